"""``cyclops replay``: recorded calls through the same core, decisions out."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from .core.patterns import Patterns
from .core.session import Session
from .core.types import Action, Decision, Mode, ToolCall
from .core.verdict import Verdict
from .guard import answer, decide, observe
from .report.decision_log import DecisionLog
from .report.session_json import VerdictWriter
from .trace import TraceRecord

__all__ = ["decision_line", "replay", "verdict_path"]


def verdict_path(out_dir: Path, session: str) -> Path:
    """``DIR/<session>.session.json``, the session id made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session)[:100].lstrip(".") or "session"
    return out_dir / f"{safe}.session.json"


def decision_line(session: str, decision: Decision) -> str:
    return json.dumps(
        {
            "index": decision.index,
            "session": session,
            "server": decision.call.server,
            "tool": decision.call.tool,
            "decision": decision.action.value,
            "flows": [f.flow_class.value for f in decision.flows],
            "controls": [f"{c.kind.value}:{c.rule}" for c in decision.controls],
            "leaked_bytes": decision.leaked_bytes,
        },
        ensure_ascii=False,
    )


def replay(
    records: Iterable[TraceRecord],
    patterns: Patterns,
    mode: Mode,
    emit: Callable[[str], None],
    out_dir: Path | None = None,
    *,
    decision_log: DecisionLog | None = None,
) -> dict[str, Verdict]:
    """Feed every record through its session's core (each decision appended to
    ``decision_log``, if given); returns each session's verdict."""
    sessions: dict[str, Session] = {}
    writers: dict[str, VerdictWriter] = {}
    for record in records:
        session = sessions.get(record.session)
        if session is None:
            session = sessions[record.session] = Session(patterns, mode, record.session)
            if out_dir is not None:
                writers[record.session] = VerdictWriter(verdict_path(out_dir, record.session))
        decision = _decide(session, record)
        if decision_log is not None:
            decision_log.record(record.session, decision)
        emit(decision_line(record.session, decision))
        if decision.forwards and record.result is not None:
            observe(session, decision.index, record.result)
        if record.session in writers:
            writers[record.session].write(session.verdict())
    return {name: session.verdict() for name, session in sessions.items()}


def _decide(session: Session, record: TraceRecord) -> Decision:
    """Decide a recorded call in the circumstances the proxy recorded with it."""
    call = ToolCall(record.server, record.tool, record.arguments, at=record.at)
    if record.roles:
        session.declare_roles(record.server, record.roles)
    if record.quarantined:
        session.controller.quarantine(call.capability)
    else:
        session.controller.release(call.capability)
    decision = decide(session, call)
    if decision.action is Action.ASK:
        approved = record.approved if record.approved is not None else record.result is not None
        decision = answer(session, decision, approved)
    return decision
