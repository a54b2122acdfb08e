"""Reports built from the core's typed records: session.json (and, later, logs and exports)."""

from .session_json import SCHEMA_VERSION, VerdictWriter, verdict_json, write_json_atomic

__all__ = ["SCHEMA_VERSION", "VerdictWriter", "verdict_json", "write_json_atomic"]
