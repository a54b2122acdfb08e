"""session.json: a session's verdict as JSON, written atomically.

The shape is documented by ``docs/session.schema.json``; tests validate real output against it.
It names servers, tools, argument paths, rule ids and coarse destinations, never argument
values or result content, so it cannot carry the secrets it reports on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomicfile import write_atomic
from ..core.verdict import ControlEvent, Verdict
from .flow_codec import capability_json, flow_json

__all__ = ["SCHEMA_VERSION", "VerdictWriter", "verdict_json", "write_json_atomic"]

SCHEMA_VERSION = 1


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    m = verdict.metrics
    return {
        "schema_version": SCHEMA_VERSION,
        "cyclops_version": __version__,
        "patterns_sha256": verdict.patterns_sha256,
        "session": verdict.session,
        "mode": verdict.mode.value,
        "toxic": verdict.toxic,
        "flows": [flow_json(f) for f in verdict.flows],
        "leaked_bytes": verdict.leaked_bytes,
        "blocked_bytes": verdict.blocked_bytes,
        "leaked_by_destination": dict(sorted(verdict.leaked_by_destination.items())),
        "choke_point": [capability_json(c) for c in verdict.choke_point],
        "metrics": {
            "calls": m.calls,
            "allowed": m.allowed,
            "flagged": m.flagged,
            "denied": m.denied,
            "redacted": m.redacted,
            "asked": m.asked,
            "errors": m.errors,
            "by_label": {label.value: n for label, n in m.by_label.items()},
            "by_class": {cls.value: n for cls, n in m.by_class.items()},
            "by_control": {kind.value: n for kind, n in m.by_control.items()},
        },
        "controls": [_control(event) for event in verdict.controls],
        "quarantined": [capability_json(c) for c in verdict.quarantined],
        "breaker_tripped": verdict.breaker_tripped,
        "evicted": {
            "calls": verdict.evicted.calls,
            "segments": verdict.evicted.segments,
            "files": verdict.evicted.files,
        },
    }


def _control(event: ControlEvent) -> dict[str, Any]:
    finding = event.finding
    return {
        "call_index": event.call_index,
        "server": event.capability.server,
        "tool": event.capability.tool,
        "kind": finding.kind.value,
        "rule": finding.rule,
        "rule_action": finding.action.value,
        "action": event.action.value,
        "argument": finding.argument,
        "detail": finding.detail,
    }


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON to ``path`` so that a reader sees the old file or the new one, never a mix.

    (No fsync: it would cost milliseconds per call and only adds safety against power loss.)
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8"))


class VerdictWriter:
    """Writes a session's verdict to its file whenever it changed since the last write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last: dict[str, Any] | None = None

    def write(self, verdict: Verdict) -> bool:
        data = verdict_json(verdict)
        if data == self._last:
            return False
        write_json_atomic(self.path, data)
        self._last = data
        return True
