"""Tier 3: cyclops end to end, in front of real MCP servers (npm and PyPI) and real clients.

The npm packages come from tests/e2e/package.json; a missing one fails the test that needs it
with a message saying how to install it (nothing here skips silently)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
