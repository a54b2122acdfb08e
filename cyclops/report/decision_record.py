"""The decision log's records: what one line says, its canonical form and its place in the chain.

Rules of a line (``docs/audit.md`` is the specification; this module is its code):

1. A line is one JSON object in canonical form: ``json.dumps(obj, sort_keys=True,
   separators=(",", ":"), ensure_ascii=True)`` — keys sorted, no whitespace, pure ASCII (every
   other character escaped as ``\\uXXXX``), no floating-point numbers, then ``\\n``.
2. Every line carries ``v`` (the format, 1), ``seq`` (its line number, from 1), ``prev`` (the
   ``hash`` of the line before; 64 zeros for the first line) and ``hash``: the SHA-256 (hex) of
   the canonical form of the line's object *without* its ``hash`` key.
3. A line names servers, tools, argument paths, rule ids and coarse destinations; of the
   arguments only their SHA-256 (canonical JSON: sorted keys, no whitespace, UTF-8). Never an
   argument value, never a result.
4. ``kind`` says what the line records: ``open`` (a writer opened the log; it notes a torn tail it
   found and cut), ``decision`` (one decided call), ``gap`` (decisions that could not be written).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from ..core.types import JSON, Action, Decision, Flow, Label, Reason
from .flow_codec import Fields, RecordError, flow_from_fields, flow_json

__all__ = [
    "FORMAT_VERSION",
    "GENESIS",
    "ControlEntry",
    "ControlLike",
    "DecisionEntry",
    "Entry",
    "GapEntry",
    "OpenEntry",
    "RecordKind",
    "arguments_sha256",
    "canonical_json",
    "chain_line",
    "control_entry",
    "decision_entry",
    "entry_from_json",
    "entry_json",
    "format_time",
    "line_hash",
    "parse_time",
]

FORMAT_VERSION = 1
GENESIS = "0" * 64
"""The ``prev`` of the first line."""


class RecordKind(StrEnum):
    OPEN = "open"
    DECISION = "decision"
    GAP = "gap"


def canonical_json(value: Mapping[str, Any]) -> str:
    """The one serialisation of a record the chain hashes (rule 1)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def arguments_sha256(arguments: Mapping[str, JSON]) -> str:
    """SHA-256 of a call's arguments as canonical JSON: keys sorted (by code point), no
    whitespace, UTF-8 (a lone surrogate, which UTF-8 cannot hold, as its 3-byte form)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def line_hash(body: Mapping[str, Any]) -> str:
    """The ``hash`` of a line whose object, without ``hash``, is ``body`` (rule 2)."""
    return hashlib.sha256(canonical_json(body).encode("ascii")).hexdigest()


def chain_line(body: Mapping[str, Any], seq: int, prev: str) -> tuple[str, str]:
    """The line (without its newline) for ``body`` at ``seq`` after ``prev``, and its hash."""
    envelope = {**body, "v": FORMAT_VERSION, "seq": seq, "prev": prev}
    digest = line_hash(envelope)
    return canonical_json({**envelope, "hash": digest}), digest


def format_time(ms: int) -> str:
    """RFC 3339, UTC, milliseconds: ``2026-01-31T12:00:00.250Z``."""
    stamp = datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{ms % 1000:03d}Z"


def parse_time(text: str) -> int:
    """Milliseconds since the epoch of a :func:`format_time` string."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise RecordError(f"time: {text!r} is not an RFC 3339 time") from None
    if moment.tzinfo is None:
        raise RecordError(f"time: {text!r} has no time zone")
    return round(moment.timestamp() * 1000)


class ControlLike(Protocol):
    """What the log needs of a per-call control finding (the core's ``ControlFinding``)."""

    @property
    def kind(self) -> StrEnum: ...
    @property
    def rule(self) -> str: ...
    @property
    def action(self) -> Action: ...
    @property
    def argument(self) -> str | None: ...
    @property
    def detail(self) -> str: ...


@dataclass(frozen=True)
class ControlEntry:
    kind: str
    """The control's kind (secret, destination, ssrf, path, rate, budget, breaker, pin)."""
    rule: str
    """The rule id or condition that matched: never the value that matched it."""
    action: Action
    argument: str | None = None
    """The argument path it matched, when it is about one argument."""
    detail: str = ""
    """A coarse, secret-free detail: the registrable domain, the root or glob, the limit."""


def control_entry(control: ControlLike) -> ControlEntry:
    return ControlEntry(
        control.kind.value, control.rule, control.action, control.argument, control.detail
    )


@dataclass(frozen=True)
class DecisionEntry:
    time_ms: int
    session: str
    index: int
    server: str
    tool: str
    action: Action
    reasons: tuple[Reason, ...]
    labels: frozenset[Label]
    flows: tuple[Flow, ...]
    controls: tuple[ControlEntry, ...]
    leaked_bytes: int
    args_sha256: str


@dataclass(frozen=True)
class OpenEntry:
    time_ms: int
    cyclops_version: str
    patterns_sha256: str | None
    torn_bytes: int = 0
    """Bytes of a torn last line (a crash mid-write) found and cut when the log was opened."""
    torn_sha256: str | None = None


@dataclass(frozen=True)
class GapEntry:
    time_ms: int
    lost: int
    """Decisions that could not be written (the disk failed); the chain stays whole."""


Entry = DecisionEntry | OpenEntry | GapEntry


def decision_entry(session: str, decision: Decision, at: float) -> DecisionEntry:
    """The log's record of one decision; ``at`` (seconds since the epoch) when the call has no
    time of its own. Only the arguments' hash is kept."""
    call = decision.call
    return DecisionEntry(
        time_ms=round((call.at if call.at is not None else at) * 1000),
        session=session,
        index=decision.index,
        server=call.server,
        tool=call.tool,
        action=decision.action,
        reasons=decision.reasons,
        labels=decision.labels,
        flows=decision.flows,
        controls=tuple(control_entry(control) for control in decision.controls),
        leaked_bytes=decision.leaked_bytes,
        args_sha256=arguments_sha256(call.arguments),
    )


def entry_json(entry: Entry) -> dict[str, Any]:
    """The line's object without its chain fields (``v``, ``seq``, ``prev``, ``hash``)."""
    time = format_time(entry.time_ms)
    if isinstance(entry, OpenEntry):
        return {
            "kind": RecordKind.OPEN.value,
            "time": time,
            "cyclops_version": entry.cyclops_version,
            "patterns_sha256": entry.patterns_sha256,
            "torn_bytes": entry.torn_bytes,
            "torn_sha256": entry.torn_sha256,
        }
    if isinstance(entry, GapEntry):
        return {"kind": RecordKind.GAP.value, "time": time, "lost": entry.lost}
    return {
        "kind": RecordKind.DECISION.value,
        "time": time,
        "session": entry.session,
        "index": entry.index,
        "server": entry.server,
        "tool": entry.tool,
        "decision": entry.action.value,
        "reasons": [reason.value for reason in entry.reasons],
        "labels": sorted(label.value for label in entry.labels),
        "flows": [flow_json(flow) for flow in entry.flows],
        "controls": [_control_json(control) for control in entry.controls],
        "leaked_bytes": entry.leaked_bytes,
        "args_sha256": entry.args_sha256,
    }


def _control_json(control: ControlEntry) -> dict[str, Any]:
    return {
        "kind": control.kind,
        "rule": control.rule,
        "action": control.action.value,
        "argument": control.argument,
        "detail": control.detail,
    }


def entry_from_json(data: object, where: str = "line") -> Entry:
    """A line's object (chain fields ignored) as its typed entry; :class:`RecordError` if it is
    not one cyclops writes."""
    f = Fields(data, where)
    kind = f.enum("kind", RecordKind)
    time_ms = parse_time(f.string("time"))
    if kind is RecordKind.OPEN:
        return OpenEntry(
            time_ms=time_ms,
            cyclops_version=f.string("cyclops_version"),
            patterns_sha256=f.optional_string("patterns_sha256"),
            torn_bytes=f.count("torn_bytes"),
            torn_sha256=f.optional_string("torn_sha256"),
        )
    if kind is RecordKind.GAP:
        return GapEntry(time_ms=time_ms, lost=f.count("lost"))
    labels = f.strings("labels")
    reasons = f.strings("reasons")
    try:
        parsed_labels = frozenset(Label(label) for label in labels)
        parsed_reasons = tuple(Reason(reason) for reason in reasons)
    except ValueError as exc:
        raise RecordError(f"{where}: {exc}") from None
    return DecisionEntry(
        time_ms=time_ms,
        session=f.string("session"),
        index=f.count("index"),
        server=f.string("server"),
        tool=f.string("tool"),
        action=f.enum("decision", Action),
        reasons=parsed_reasons,
        labels=parsed_labels,
        flows=f.objects("flows", flow_from_fields),
        controls=f.objects("controls", _control_from),
        leaked_bytes=f.count("leaked_bytes"),
        args_sha256=f.string("args_sha256"),
    )


def _control_from(f: Fields) -> ControlEntry:
    return ControlEntry(
        kind=f.string("kind"),
        rule=f.string("rule"),
        action=f.enum("action", Action),
        argument=f.optional_string("argument"),
        detail=f.string("detail"),
    )
