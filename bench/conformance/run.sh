#!/usr/bin/env bash
# The MCP conformance suite against server.mjs directly and through cyclops (see README.md).
# Needs npm on PATH and a Python with cyclops installed (PYTHON=..., default python3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "${PYTHON:-python3}" "$here/run.py" "$@"
