"""Running the proxy: start the downstreams, serve the host over stdio or HTTP, shut down clean.

Shutdown — stdin closed, SIGTERM or SIGINT — cancels everything in one task group: the front
stops, every downstream holder leaves its connection (stdio children are terminated by the SDK's
client), and the verdicts are flushed. No child outlives cyclops.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ..config import DEFAULT_ASK_TIMEOUT
from ..core.patterns import Patterns
from ..core.pins import SuspicionKind, suspicious_descriptions
from ..core.types import Decision, Label, Mode
from ..report.export_sinks import ExportTarget
from ..report.feed import DecisionFeed
from .config import DownstreamConfig
from .downstream import Callbacks, Connect, Downstream, State
from .hoststdin import answering_invalid_requests, host_stdin
from .hoststdout import host_stdout
from .http import HttpOptions, serve_http
from .pinning import PinStore
from .server import Tap
from .sessions import Recorder, Sessions

__all__ = ["ServeOptions", "serve"]

log = logging.getLogger("cyclops")


@dataclass(frozen=True)
class ServeOptions:
    downstream: DownstreamConfig
    patterns: Patterns
    mode: Mode
    verdicts: str | None
    """Where each session's verdict goes; ``{session}`` is replaced by the session id."""
    record: Path | None = None
    http: HttpOptions | None = None
    startup_timeout: float = 30.0
    observer: Callable[[str, Decision], None] | None = None
    """Told every decision (session id, decision): for the demo's commentary."""
    child_stderr: TextIO | None = None
    """Where the stdio servers' stderr goes (default: cyclops's own stderr)."""
    detection: bool = True
    """False: forward everything without asking the core (``--mode off``)."""
    connectors: Mapping[str, Connect] = field(default_factory=dict)
    """Servers reached in-process instead of through their transport (tests, embedding)."""
    pins_dir: Path | None = None
    """Where tool pins are kept (one file per server); None: no pinning."""
    ask_timeout: float = DEFAULT_ASK_TIMEOUT
    """How long an ``ask`` waits for the user's answer before the call is denied."""
    decision_log: Path | None = None
    """The tamper-evident log every decision of every session is appended to."""
    exports: tuple[ExportTarget, ...] = ()
    """Where findings are streamed as they happen (OCSF: a file, syslog, HTTP)."""


Front = Callable[[Server[Any], Tap], Awaitable[None]]
"""Serves the host: stdio, HTTP, or (for the demo and tests) an in-process client."""


async def serve(options: ServeOptions, front: Front | None = None) -> None:
    # SIGTERM and SIGINT stay caught until the very end: one that arrives while the downstreams
    # are being shut down (a host that closed stdin and then signals) must not orphan them.
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as stop_signals:
        await _serve(options, front, stop_signals)


async def _serve(
    options: ServeOptions, front: Front | None, stop_signals: AsyncIterator[int]
) -> None:
    feed = DecisionFeed.open(options.decision_log, options.exports, options.patterns.sha256)
    recorder = Recorder(options.record) if options.record else None
    try:
        async with anyio.create_task_group() as tg:
            if feed is not None:
                tg.start_soon(feed.run, tg)
            observer = feed.observer(options.observer) if feed else options.observer
            sessions = Sessions(
                patterns=options.patterns,
                mode=options.mode,
                declared_roles=options.downstream.declared_roles(),
                verdict_template=options.verdicts,
                recorder=recorder,
                task_group=tg,
                observer=observer,
            )
            pins = PinStore(options.pins_dir) if options.pins_dir is not None else None
            tap = Tap(
                sessions,
                _session_key(options),
                observer=observer,
                detection=options.detection,
                pins=pins,
                ask_timeout=options.ask_timeout,
            )
            downstreams = _start_downstreams(options, tap, tg)
            await _wait_ready(downstreams, options.startup_timeout)
            await tap.rebuild()
            _report_bindings(options.patterns, downstreams)
            _report_suspicious_descriptions(options.patterns, downstreams)
            tg.start_soon(_reset_breakers_on_signal, sessions)
            try:
                await _serve_host(options, front, tap, tg, stop_signals)
            finally:  # also when a signal cancelled the front: the last verdicts are written
                tg.cancel_scope.cancel()
                with anyio.CancelScope(shield=True):
                    await sessions.flush()
    finally:
        if recorder is not None:
            recorder.close()
        if feed is not None:  # here too after a SIGTERM cancelled the front: nothing queued is lost
            with anyio.CancelScope(shield=True):
                await feed.flush()


async def _serve_host(
    options: ServeOptions,
    front: Front | None,
    tap: Tap,
    tg: anyio.abc.TaskGroup,
    stop_signals: AsyncIterator[int],
) -> None:
    """Serve the host until it leaves or a signal says stop."""
    server = tap.server()
    if front is not None:
        tg.start_soon(_stop_on_signals, stop_signals, tg.cancel_scope.cancel)
        await front(server, tap)
    elif options.http is not None:
        stop = anyio.Event()
        tg.start_soon(_stop_on_signals, stop_signals, stop.set)
        await serve_http(server, options.http, stop)
    else:
        tg.start_soon(_stop_on_signals, stop_signals, tg.cancel_scope.cancel)
        lines = host_stdin()
        with host_stdout() as wire:
            async with (
                stdio_server(stdin=lines, stdout=wire) as (read, write),
                answering_invalid_requests(read, write, lines) as checked,
            ):
                await server.run(checked, write, server.create_initialization_options())


def _session_key(options: ServeOptions) -> Callable[[Any], str]:
    if options.http is None:
        key = f"stdio-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        return lambda ctx: key

    def http_key(ctx: Any) -> str:
        request = getattr(ctx, "request", None)
        session_id = request.headers.get("mcp-session-id") if request is not None else None
        return f"http-{session_id}" if session_id else "http-anonymous"

    return http_key


def _start_downstreams(
    options: ServeOptions, tap: Tap, tg: anyio.abc.TaskGroup
) -> list[Downstream]:
    async def listed(downstream: Downstream) -> None:
        await tap.rebuild()
        await tap.on_downstream_notification(downstream, "notifications/tools/list_changed", {})

    callbacks = Callbacks(
        request=tap.on_downstream_request,
        notification=tap.on_downstream_notification,
        listed=listed,
    )
    downstreams = [
        Downstream(config, callbacks, options.child_stderr, options.connectors.get(config.name))
        for config in options.downstream.servers
    ]
    tap.attach(downstreams)
    for downstream in downstreams:
        tg.start_soon(downstream.run)
    return downstreams


async def _wait_ready(downstreams: list[Downstream], timeout: float) -> None:
    """Give every downstream up to ``timeout`` seconds together to start or fail; the slow and
    the failed ones join later (restarted with back-off)."""
    async with anyio.create_task_group() as tg:
        for downstream in downstreams:
            tg.start_soon(downstream.settle, timeout)
    for downstream in downstreams:
        if downstream.state is not State.READY:
            log.warning(
                "%s is not ready (%s); its tools appear once it is",
                downstream.name,
                downstream.error or "starting",
            )


def _report_bindings(patterns: Patterns, downstreams: list[Downstream]) -> None:
    """Which roles are bound to which servers, and declared sinks no server offers."""
    bound: dict[str, list[str]] = {}
    for downstream in downstreams:
        for role in downstream.config.roles:
            bound.setdefault(role, []).append(downstream.name)
            offered = {t.get("name") for t in downstream.listing.tools}
            missing = _declared_sinks(patterns, role) - offered
            if downstream.state is State.READY and missing:
                log.warning(
                    "%s (role %s) does not offer %s, which patterns.toml names as a sink",
                    downstream.name,
                    role,
                    ", ".join(sorted(missing)),
                )
    for role, servers in sorted(bound.items()):
        log.info("role %s: %s", role, ", ".join(servers))


def _declared_sinks(patterns: Patterns, role_name: str) -> set[str]:
    role = patterns.role(role_name)
    if role is None:
        return set()
    sinks = {Label.EGRESS, Label.PRIVILEGED}
    return {
        glob.pattern
        for glob, labels in role.tools
        if labels & sinks and not any(c in glob.pattern for c in "*?[")
    }


def _report_suspicious_descriptions(patterns: Patterns, downstreams: list[Downstream]) -> None:
    """Tool descriptions that instruct the agent or name another server's tools."""
    tools = {d.name: d.listing.tools for d in downstreams}
    markers = patterns.untrusted_markers + patterns.file_requests
    for found in suspicious_descriptions(tools, markers):
        log.warning(
            "%s/%s: its description %s (%s)",
            found.server,
            found.tool,
            "names another server's tool"
            if found.kind is SuspicionKind.OTHER_TOOL
            else "carries an instruction aimed at the agent",
            found.detail,
        )


async def _reset_breakers_on_signal(sessions: Sessions) -> None:
    """SIGUSR1: the operator resets every session's breaker."""
    with anyio.open_signal_receiver(signal.SIGUSR1) as signals:
        async for _ in signals:
            sessions.reset_breakers()


async def _stop_on_signals(signals: AsyncIterator[int], stop: Callable[[], object]) -> None:
    async for _ in signals:
        log.info("stopping")
        stop()
        return
