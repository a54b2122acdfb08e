"""The trace format: one JSON object per call, as ``cyclops replay`` reads and ``--record`` writes.

    {"session": str (optional, default "default"), "server": str, "tool": str,
     "arguments": object, "result": str | {"content": [...], "structuredContent": ...,
     "isError": bool} (optional: a call that did not run has none),
     "at": number (optional: seconds since the epoch, for rate limits),
     "roles": [str] (optional: the server's roles in effect, declared or learned),
     "approved": bool (optional: the user's answer when the call was asked about; without it an
                       asked call that has a result counts as approved),
     "quarantined": bool (optional: the tool was quarantined, changed since it was pinned)}
A server's tool descriptions that instruct the agent are a record of its ``tools/list`` (no
arguments; the descriptions as the result), as the proxy records them (see ``core.types.LISTING``).

A trace is validated whole before anything runs, so a bad line is reported with its number and
nothing is half-done. Error messages never quote the line: it may hold secrets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .core.types import JSON

__all__ = [
    "DEFAULT_SESSION",
    "CallContext",
    "TraceError",
    "TraceRecord",
    "parse_trace",
    "trace_line",
]

DEFAULT_SESSION = "default"
_KEYS = {"session", "server", "tool", "arguments", "result"} | {
    "at",
    "roles",
    "approved",
    "quarantined",
}
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
    at: float | None = None
    roles: tuple[str, ...] | None = None
    approved: bool | None = None
    quarantined: bool = False


@dataclass(frozen=True)
class CallContext:
    """What the proxy knew about a call besides its arguments, recorded so a replay agrees."""

    at: float | None = None
    roles: tuple[str, ...] = ()
    approved: bool | None = None
    quarantined: bool = False


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
    at = data.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int | float)):
        raise TraceError(number, "'at' must be a number (seconds since the epoch)")
    roles = data.get("roles")
    if roles is not None and not (
        isinstance(roles, list) and all(isinstance(r, str) and r for r in roles)
    ):
        raise TraceError(number, "'roles' must be a list of role names")
    for key in ("approved", "quarantined"):
        if data.get(key) is not None and not isinstance(data[key], bool):
            raise TraceError(number, f"{key!r} must be true or false")
    return TraceRecord(
        number,
        session,
        data["server"],
        data["tool"],
        arguments,
        result,
        float(at) if at is not None else None,
        tuple(roles) if roles is not None else None,
        data.get("approved"),
        bool(data.get("quarantined", False)),
    )


def trace_line(
    session: str,
    server: str,
    tool: str,
    arguments: Mapping[str, JSON],
    result: JSON,
    *,
    context: CallContext | None = None,
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
    context = context or CallContext()
    if context.at is not None:
        record["at"] = context.at
    if context.roles:
        record["roles"] = list(context.roles)
    if context.approved is not None:
        record["approved"] = context.approved
    if context.quarantined:
        record["quarantined"] = True
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
