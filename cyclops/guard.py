"""The one place where an error while deciding is caught, so that every front fails closed."""

from __future__ import annotations

import logging

from .core.session import Session
from .core.types import JSON, Decision, ToolCall

__all__ = ["answer", "decide", "observe"]

log = logging.getLogger("cyclops")


def decide(session: Session, call: ToolCall) -> Decision:
    """``session.decide(call)``; if it raises, the fail-closed decision (deny in prevent mode)."""
    try:
        return session.decide(call)
    except Exception as exc:  # noqa: BLE001 - the outermost boundary of detection: fail closed
        _log_internal_error("deciding", call.server, call.tool, exc)
        return session.fail_closed(call)


def answer(session: Session, asked: Decision, approved: bool, *, answered: bool = True) -> Decision:
    """``session.answer``: the final decision of an asked call; if it raises, fail closed."""
    try:
        return session.answer(asked.index, approved, answered=answered)
    except Exception as exc:  # noqa: BLE001 - the outermost boundary of detection: fail closed
        _log_internal_error("answering", asked.call.server, asked.call.tool, exc)
        return session.fail_closed(asked.call, asked.index)


def observe(session: Session, index: int, result: JSON) -> None:
    """``session.observe_json``; an error is logged and counted (the call already ran)."""
    try:
        session.observe_json(index, result)
    except Exception as exc:  # noqa: BLE001 - the same boundary, for results
        _log_internal_error("reading the result of", "call", str(index), exc)
        session.note_error()


def _log_internal_error(doing: str, server: str, tool: str, exc: Exception) -> None:
    # The exception's message may quote argument values; log only its type and place.
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    place = f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}" if where else "?"
    log.error("internal error %s %s/%s: %s at %s", doing, server, tool, type(exc).__name__, place)
