"""The trace format: one JSON object per call, as ``cyclops replay`` reads and ``--record`` writes.

    {"session": str (optional, default "default"), "server": str, "tool": str,
     "arguments": object, "result": str | {"content": [...], "structuredContent": ...,
     "isError": bool} (optional: a call that did not run has none)}

A trace is validated whole before anything runs, so a bad line is reported with its number and
nothing is half-done. Error messages never quote the line: it may hold secrets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .core.types import JSON

__all__ = ["DEFAULT_SESSION", "TraceError", "TraceRecord", "parse_trace", "trace_line"]

DEFAULT_SESSION = "default"
_KEYS = {"session", "server", "tool", "arguments", "result"}
_NO_RESULT: Any = None


class TraceError(ValueError):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class TraceRecord:
    line: int
    session: str
    server: str
    tool: str
    arguments: Mapping[str, JSON]
    result: JSON = _NO_RESULT
    """None when the call did not run (or its result was not recorded)."""


def parse_trace(lines: Iterable[str]) -> list[TraceRecord]:
    records = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise TraceError(
                number, f"not valid JSON (column {getattr(exc, 'colno', '?')})"
            ) from None
        records.append(_record(number, data))
    return records


def _record(number: int, data: object) -> TraceRecord:
    if not isinstance(data, dict):
        raise TraceError(number, "expected a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise TraceError(number, f"unknown key(s) {', '.join(map(repr, unknown))}")
    for key in ("server", "tool"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise TraceError(number, f"{key!r} must be a non-empty string")
    session = data.get("session", DEFAULT_SESSION)
    if not isinstance(session, str) or not session:
        raise TraceError(number, "'session' must be a non-empty string")
    arguments = data.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise TraceError(number, "'arguments' must be an object")
    result = data.get("result", _NO_RESULT)
    if result is not None and not isinstance(result, str | dict):
        raise TraceError(number, "'result' must be a string or an object")
    if isinstance(result, dict) and not isinstance(result.get("content", []), list):
        raise TraceError(number, "'result.content' must be a list of content blocks")
    return TraceRecord(number, session, data["server"], data["tool"], arguments, result)


def trace_line(
    session: str, server: str, tool: str, arguments: Mapping[str, JSON], result: JSON
) -> str:
    """One line of a trace (for ``--record``)."""
    record: dict[str, JSON] = {
        "session": session,
        "server": server,
        "tool": tool,
        "arguments": dict(arguments),
    }
    if result is not None:
        record["result"] = result
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
