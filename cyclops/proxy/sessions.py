"""Upstream sessions: one detection core, one verdict and one lock per host session.

stdio has one session. Over HTTP every ``mcp-session-id`` gets its own; taint never passes
between them. A session's tool calls and resource reads are decided one at a time, in the order
they arrive, each after every earlier result was seen: that is the order a replay of the
recorded trace uses, so a live session and its replay make the same decisions.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.lowlevel
from mcp.server.session import ServerSession

from .. import guard
from ..core.patterns import Patterns
from ..core.pins import instructing_texts
from ..core.session import Session
from ..core.types import JSON, LISTING, Action, Capability, Decision, Mode, ToolCall
from ..core.verdict import Verdict
from ..report.session_json import verdict_json, write_json_atomic
from ..trace import CallContext, trace_line

__all__ = ["Recorder", "Sessions", "UpstreamSession", "VerdictSink", "verdict_file"]

log = logging.getLogger("cyclops.sessions")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def verdict_file(template: str, session: str) -> Path:
    """``template`` with ``{session}`` replaced by a file-name-safe session id."""
    safe = _SAFE.sub("_", session)[:100].lstrip(".") or "session"
    return Path(os.path.expanduser(template.replace("{session}", safe)))


class VerdictSink:
    """Writes a session's latest verdict off the event loop.

    A finding (a flow, a control, a denial, an error) is written at once; a change of the
    counters alone waits up to ``QUIET_SECONDS`` for company, so that a busy session does not
    rewrite its verdict on every call. The verdict is built on the event loop (where the core
    lives) once per write, then serialised and written in a worker thread; every write is atomic
    (temp file + rename), so the file on disk is always a whole verdict.
    """

    QUIET_SECONDS = 0.5

    def __init__(self, path: Path, verdict: Callable[[], Verdict]) -> None:
        self.path = path
        self._verdict = verdict
        self._written: dict[str, Any] | None = None
        self._changed = anyio.Event()
        self._urgent = anyio.Event()

    def changed(self, *, finding: bool) -> None:
        self._changed.set()
        if finding:
            self._urgent.set()

    async def run(self) -> None:
        while True:
            await self._changed.wait()
            with anyio.move_on_after(self.QUIET_SECONDS):
                await self._urgent.wait()
            self._changed, self._urgent = anyio.Event(), anyio.Event()
            await self.flush()

    async def flush(self) -> None:
        latest = self._verdict()
        await anyio.to_thread.run_sync(self._write, latest)

    def _write(self, verdict: Verdict) -> None:
        data = verdict_json(verdict)
        if data != self._written:
            write_json_atomic(self.path, data)
            self._written = data


class Recorder:
    """``--record``: every call and its result as a replayable trace (it holds their data)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file: TextIO = os.fdopen(descriptor, "a", encoding="utf-8")

    def record(
        self,
        session: str,
        server: str,
        tool: str,
        arguments: Mapping[str, JSON],
        result: JSON,
        *,
        context: CallContext,
    ) -> None:
        line = trace_line(session, server, tool, arguments, result, context=context)
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


@dataclass
class UpstreamSession:
    key: str
    core: Session
    sink: VerdictSink | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    peer: ServerSession | None = None
    """The latest handle on the host session (for notifications and server→client requests)."""
    subscriptions: set[str] = field(default_factory=set)
    unread: deque[tuple[int, JSON]] = field(default_factory=deque)
    """Results on their way to the host that the core has not read yet, oldest first."""

    def read_results(self) -> None:
        """Show the core the results it has not read yet, in order.

        A result is read after its response went out, so that indexing it does not delay the
        host; but before anything asks or changes the core (the next decision, a verdict, a
        tool list), so the core sees the same sequence as when it read each result at once,
        and as a replay of the recorded trace does.
        """
        while self.unread:
            index, result = self.unread.popleft()
            guard.observe(self.core, index, result)

    def verdict(self) -> Verdict:
        self.read_results()
        return self.core.verdict()


class Sessions:
    def __init__(
        self,
        *,
        patterns: Patterns,
        mode: Mode,
        declared_roles: Mapping[str, Iterable[str]],
        verdict_template: str | None,
        recorder: Recorder | None,
        task_group: anyio.abc.TaskGroup,
        observer: Callable[[str, Decision], None] | None = None,
    ) -> None:
        self._patterns = patterns
        self._observer = observer
        self._listings: dict[str, str] = {}
        self._mode = mode
        self._roles = declared_roles
        self._template = verdict_template
        self.recorder = recorder
        self._tg = task_group
        self._sessions: dict[str, UpstreamSession] = {}
        self._tools: dict[str, list[str]] = {}
        self._quarantined: dict[str, frozenset[str]] = {}

    def get(self, key: str) -> UpstreamSession:
        session = self._sessions.get(key)
        if session is None:
            core = Session(self._patterns, self._mode, key, self._roles)
            for server, tools in self._tools.items():
                core.declare_tools(server, tools)
            for server, names in self._quarantined.items():
                for name in names:
                    core.controller.quarantine(Capability(server, name))
            session = self._sessions[key] = UpstreamSession(key, core)
            if self._template:
                session.sink = VerdictSink(verdict_file(self._template, key), session.verdict)
                self._tg.start_soon(session.sink.run)
                log.info("session %s: verdict at %s", key, session.sink.path)
            for server, listing in self._listings.items():
                if listing:
                    self._read_listing(session, server, listing)
        return session

    def finished(
        self,
        session: UpstreamSession,
        decision: Decision,
        result: dict[str, Any] | None,
        context: CallContext,
    ) -> None:
        """After each tapped call: the verdict, and the record (``None``: the call did not run)."""
        if session.sink is not None:
            finding = bool(decision.flows or decision.controls or decision.reasons)
            session.sink.changed(finding=finding or decision.action is not Action.ALLOW)
        if self.recorder is not None:
            call = decision.call
            self.recorder.record(
                session.key, call.server, call.tool, call.arguments, result, context=context
            )

    def read_soon(self, session: UpstreamSession) -> None:
        """Have ``session``'s core read its unread results once the event loop has sent the
        response on its way (or earlier, when something needs the core first)."""
        self._tg.start_soon(_read_after_reply, session)

    def declare_tools(self, server: str, tools: list[str]) -> None:
        """A downstream's tool names, for every session's role detection (now and later)."""
        self._tools[server] = tools
        for session in self._sessions.values():
            session.read_results()
            session.core.declare_tools(server, tools)

    def declare_listing(
        self, server: str, tools: list[dict[str, Any]], instructions: str | None
    ) -> None:
        """A downstream's tools and instructions: what of them instructs the agent (tool
        poisoning) every session reads as the result of a ``tools/list`` call of ``server``,
        now and when it starts; the core makes the server hostile."""
        listing = instructing_texts(self._patterns, tools, instructions)
        if listing == self._listings.get(server, ""):
            return
        self._listings[server] = listing
        if listing:
            log.warning("%s: its tool descriptions instruct the agent: a hostile server", server)
            for session in self._sessions.values():
                self._read_listing(session, server, listing)

    def _read_listing(self, session: UpstreamSession, server: str, listing: str) -> None:
        """Feed ``listing`` to ``session``'s core as a call of ``server``'s ``tools/list``,
        recorded and logged like a tapped call (a replay reads it the same way)."""
        session.read_results()
        call = ToolCall(server, LISTING, {}, at=time.time())
        context = CallContext(at=call.at, roles=session.core.roles_of(server))
        decision = guard.decide(session.core, call)
        if self._observer is not None:
            self._observer(session.key, decision)
        result = {"content": [{"type": "text", "text": listing}]} if decision.forwards else None
        if result is not None:
            guard.observe(session.core, decision.index, result)
        self.finished(session, decision, result, context)

    def set_quarantined(self, server: str, tools: set[str]) -> None:
        """The tools of ``server`` whose calls every session holds back (changed since pinned)."""
        before = self._quarantined.get(server, frozenset())
        self._quarantined[server] = frozenset(tools)
        for session in self._sessions.values():
            session.read_results()
            for name in before - tools:
                session.core.controller.release(Capability(server, name))
            for name in tools:
                session.core.controller.quarantine(Capability(server, name))

    def is_quarantined(self, capability: Capability) -> bool:
        return capability.tool in self._quarantined.get(capability.server, ())

    def reset_breakers(self) -> None:
        for session in self._sessions.values():
            session.read_results()
            session.core.controller.reset_breaker()
        log.warning("breakers reset in %d session(s)", len(self._sessions))

    def all(self) -> list[UpstreamSession]:
        return list(self._sessions.values())

    async def flush(self) -> None:
        for session in self._sessions.values():
            if session.sink is not None:
                await session.sink.flush()

    def verdict_paths(self) -> list[Path]:
        return [s.sink.path for s in self._sessions.values() if s.sink is not None]


_REPLY_TURNS = 8
"""Event-loop turns left for a response to reach its transport's write before its result is
read (over stdio the reading began a median 0.05 ms after the write, 1,000 calls)."""


async def _read_after_reply(session: UpstreamSession) -> None:
    for _ in range(_REPLY_TURNS):
        await anyio.lowlevel.checkpoint()
    session.read_results()
