"""The one place where an error while deciding is caught, so that every front fails closed.

A call the core cannot check whole is failed closed here too, before the core sees it: one too
large to check in bounded time and memory (the core's cost grows with the size of the arguments:
a 50 MB argument took minutes and gigabytes, on the proxy's event loop, where every session
waits for it), and one nested deeper than the core reads (what lies deeper would go unseen).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from .core.session import Session
from .core.types import JSON, Decision, ToolCall

__all__ = ["MAX_CHECKED_CHARS", "MAX_CHECKED_DEPTH", "answer", "decide", "observe"]

log = logging.getLogger("cyclops")

MAX_CHECKED_CHARS = 4 * 1024 * 1024
"""The most characters of argument text (keys and string values together) a call may carry to be
checked: the HTTP front's body cap, so that stdio and HTTP hosts meet the same limit. A larger
call is denied in prevent mode and flagged in detect mode, like one whose deciding failed."""
MAX_CHECKED_DEPTH = 64
"""The deepest nesting of arguments the core reads (``cyclops.core.arguments``); a value below it
would not be seen, so a deeper call is failed closed as well."""


def decide(session: Session, call: ToolCall) -> Decision:
    """``session.decide(call)``; if it raises, or the call is too large to check, the
    fail-closed decision (deny in prevent mode)."""
    why = _uncheckable(call.arguments)
    if why is not None:
        log.error("%s/%s: the arguments are %s; failing closed", call.server, call.tool, why)
        return session.fail_closed(call)
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


def _uncheckable(arguments: Mapping[str, JSON]) -> str | None:
    """Why the core cannot check these arguments whole, or None. Walked without recursion:
    arguments may be nested deeper than Python's stack."""
    total = 0
    pending: list[tuple[object, int]] = [(arguments, 0)]
    while pending:
        value, depth = pending.pop()
        items: Iterable[object] = ()
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, Mapping):
            total += sum(len(key) for key in value if isinstance(key, str))
            items = value.values()
        elif isinstance(value, list | tuple):
            total += len(value)
            items = value
        else:
            total += 1
        if total > MAX_CHECKED_CHARS:
            return f"more than {MAX_CHECKED_CHARS} characters"
        if items and depth >= MAX_CHECKED_DEPTH:
            return f"nested deeper than {MAX_CHECKED_DEPTH} levels"
        pending.extend((item, depth + 1) for item in items)
    return None


def _log_internal_error(doing: str, server: str, tool: str, exc: Exception) -> None:
    # The exception's message may quote argument values; log only its type and place.
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    place = f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}" if where else "?"
    log.error("internal error %s %s/%s: %s at %s", doing, server, tool, type(exc).__name__, place)
