"""Streaming findings as the proxy runs: a file, syslog over UDP or TCP, or an HTTP endpoint.

``--export`` takes ``FORMAT:DESTINATION``; the one format is ``ocsf``:

    ocsf:file:PATH                    one JSON object per line, appended (mode 0600)
    ocsf:syslog+udp://HOST:PORT       RFC 5424, one message per datagram (port default 514)
    ocsf:syslog+tcp://HOST:PORT       RFC 5424 with RFC 6587 octet counting (port default 514)
    ocsf:https://HOST[:PORT]/PATH     one HTTP POST per finding, JSON body (also http://)

Rules of an export:

1. Findings go into a bounded queue (``submit`` never waits); when it is full the finding is
   dropped and counted.
2. One task per export sends them, each send bounded by a timeout. A failure is counted and
   logged to stderr (the first, then when it recovers), never raised: an export can neither
   block nor crash the proxy. After a failure the task backs off (0.5 s doubling to 30 s) and
   the queue absorbs what arrives meanwhile.
3. On shutdown what is queued is sent within a bounded time, then the counts are logged; a
   finding the task took off the queue is sent whole, shutdown or not.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx2

from ..core.types import Severity
from .decision_record import format_time
from .ocsf_controls import Finding, ocsf_event

__all__ = [
    "ExportItem",
    "ExportSpecError",
    "ExportTarget",
    "Exporter",
    "Transport",
    "export_item",
    "octet_counted",
    "parse_export",
    "syslog_message",
]

log = logging.getLogger("cyclops.export")

DEFAULT_SYSLOG_PORT = 514
SYSLOG_FACILITY = 4
"""RFC 5424 facility 4: security/authorization messages."""
_SYSLOG_SEVERITY = {Severity.CRITICAL: 2, Severity.HIGH: 3, Severity.MEDIUM: 4, Severity.LOW: 5}
MSGID = "DetectionFinding"
AUTHORIZATION_VARIABLE = "CYCLOPS_EXPORT_AUTHORIZATION"
"""If set, its value is sent as the ``Authorization`` header of HTTP exports."""
USAGE = (
    "expected ocsf:file:PATH, ocsf:syslog+udp://HOST:PORT, ocsf:syslog+tcp://HOST:PORT "
    "or ocsf:https://HOST/PATH"
)


class Transport(StrEnum):
    FILE = "file"
    SYSLOG_UDP = "syslog+udp"
    SYSLOG_TCP = "syslog+tcp"
    HTTP = "http"
    HTTPS = "https"


class ExportSpecError(ValueError):
    """An ``--export`` value cyclops cannot read (the message names it and the forms)."""


@dataclass(frozen=True)
class ExportTarget:
    transport: Transport
    path: Path | None = None
    host: str = ""
    port: int = 0
    url: str = ""

    def __str__(self) -> str:
        """The target as given, without credentials or query (safe to log)."""
        if self.transport is Transport.FILE:
            return f"ocsf:file:{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.transport in (Transport.HTTP, Transport.HTTPS):
            parts = urlsplit(self.url)
            return f"ocsf:{self.transport.value}://{host}:{self.port}{parts.path}"
        return f"ocsf:{self.transport.value}://{host}:{self.port}"


def parse_export(spec: str) -> ExportTarget:
    fmt, _, rest = spec.partition(":")
    if fmt != "ocsf" or not rest:
        raise ExportSpecError(f"--export {spec!r}: {USAGE}")
    if rest.startswith("file:"):
        path = rest.removeprefix("file:")
        if not path:
            raise ExportSpecError(f"--export {spec!r}: the file path is empty; {USAGE}")
        return ExportTarget(Transport.FILE, path=Path(os.path.expanduser(path)))
    parts = urlsplit(rest)
    try:
        transport = Transport(parts.scheme)
        port = parts.port
    except ValueError:
        raise ExportSpecError(f"--export {spec!r}: {USAGE}") from None
    if transport is Transport.FILE or not parts.hostname:
        raise ExportSpecError(f"--export {spec!r}: no host; {USAGE}")
    if transport in (Transport.HTTP, Transport.HTTPS):
        default = 443 if transport is Transport.HTTPS else 80
        return ExportTarget(transport, host=parts.hostname, port=port or default, url=rest)
    if parts.path not in ("", "/") or parts.query:
        raise ExportSpecError(f"--export {spec!r}: a syslog address takes no path; {USAGE}")
    return ExportTarget(transport, host=parts.hostname, port=port or DEFAULT_SYSLOG_PORT)


@dataclass(frozen=True)
class ExportItem:
    """One finding, serialised once for every export."""

    body: str
    """The OCSF event as compact ASCII JSON."""
    severity: Severity
    time_ms: int


def export_item(finding: Finding) -> ExportItem:
    body = json.dumps(ocsf_event(finding), separators=(",", ":"), ensure_ascii=True)
    return ExportItem(body, finding.severity, finding.time_ms)


def syslog_message(item: ExportItem, hostname: str, procid: int) -> bytes:
    """RFC 5424: ``<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG``; MSG is the JSON."""
    pri = SYSLOG_FACILITY * 8 + _SYSLOG_SEVERITY[item.severity]
    header = f"<{pri}>1 {format_time(item.time_ms)} {hostname} cyclops {procid} {MSGID} -"
    return f"{header} {item.body}".encode("ascii")


def octet_counted(message: bytes) -> bytes:
    """RFC 6587 octet-counting framing for syslog over TCP: ``LENGTH SP MESSAGE``."""
    return b"%d %s" % (len(message), message)


def _hostname() -> str:
    name = "".join(c for c in socket.gethostname() if "!" <= c <= "~")[:255]
    return name or "-"


class _Sink(Protocol):
    async def send(self, item: ExportItem) -> None: ...
    async def aclose(self) -> None: ...


class _FileSink:
    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
            self._fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise ExportSpecError(f"--export ocsf:file:{path}: {exc.strerror}") from None

    async def send(self, item: ExportItem) -> None:
        await anyio.to_thread.run_sync(os.write, self._fd, (item.body + "\n").encode("ascii"))

    async def aclose(self) -> None:
        os.close(self._fd)


class _UdpSink:
    def __init__(self, target: ExportTarget, timeout: float) -> None:
        self._target, self._timeout = target, timeout
        self._socket: anyio.abc.ConnectedUDPSocket | None = None
        self._host, self._pid = _hostname(), os.getpid()

    async def send(self, item: ExportItem) -> None:
        with anyio.fail_after(self._timeout):
            if self._socket is None:
                self._socket = await anyio.create_connected_udp_socket(
                    self._target.host, self._target.port
                )
            await self._socket.send(syslog_message(item, self._host, self._pid))

    async def aclose(self) -> None:
        if self._socket is not None:
            await self._socket.aclose()


class _TcpSink:
    def __init__(self, target: ExportTarget, timeout: float) -> None:
        self._target, self._timeout = target, timeout
        self._stream: anyio.abc.SocketStream | None = None
        self._host, self._pid = _hostname(), os.getpid()

    async def send(self, item: ExportItem) -> None:
        frame = octet_counted(syslog_message(item, self._host, self._pid))
        sent = False
        try:
            with anyio.fail_after(self._timeout):
                if self._stream is None:
                    self._stream = await anyio.connect_tcp(self._target.host, self._target.port)
                await self._stream.send(frame)
            sent = True
        finally:
            if not sent:  # failed, timed out or cancelled: reconnect for the next one
                await self.aclose()

    async def aclose(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            with anyio.CancelScope(shield=True):
                await stream.aclose()


class _HttpSink:
    def __init__(self, target: ExportTarget, timeout: float, headers: Mapping[str, str]) -> None:
        self._url = target.url
        self._client = httpx2.AsyncClient(timeout=timeout, headers=dict(headers))

    async def send(self, item: ExportItem) -> None:
        response = await self._client.post(
            self._url, content=item.body, headers={"Content-Type": "application/json"}
        )
        response.raise_for_status()

    async def aclose(self) -> None:
        await self._client.aclose()


def _sink(target: ExportTarget, timeout: float, environ: Mapping[str, str]) -> _Sink:
    if target.transport is Transport.FILE:
        assert target.path is not None
        return _FileSink(target.path)
    if target.transport is Transport.SYSLOG_UDP:
        return _UdpSink(target, timeout)
    if target.transport is Transport.SYSLOG_TCP:
        return _TcpSink(target, timeout)
    authorization = environ.get(AUTHORIZATION_VARIABLE)
    return _HttpSink(target, timeout, {"Authorization": authorization} if authorization else {})


class Exporter:
    """One export: a bounded queue and the task that empties it (rules 1-3)."""

    def __init__(
        self,
        target: ExportTarget,
        *,
        queue_size: int = 1000,
        timeout: float = 5.0,
        backoff: float = 0.5,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.target = target
        self.sent = self.failed = self.dropped = 0
        self._timeout, self._backoff, self._delay = timeout, backoff, 0.0
        self._queue_in, self._queue_out = anyio.create_memory_object_stream[ExportItem](queue_size)
        self._sink = _sink(target, timeout, environ)
        self._failing = False

    def submit(self, item: ExportItem) -> None:
        """Queue a finding; never waits (rule 1)."""
        try:
            self._queue_in.send_nowait(item)
        except anyio.WouldBlock:
            if not self.dropped:
                log.warning("export %s: queue full, findings dropped", self.target)
            self.dropped += 1

    async def run(self) -> None:
        async for item in self._queue_out:
            # An item taken off the queue is delivered even if shutdown cancels this task
            # meanwhile: the drain sees only what is still queued. Every sink bounds its time.
            with anyio.CancelScope(shield=True):
                await self._deliver(item)
            if self._delay:
                await anyio.sleep(self._delay)

    async def drain(self, seconds: float) -> None:
        """Send what is queued within ``seconds``, close, and log the counts (rule 3)."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(seconds):
            while True:
                try:
                    item = self._queue_out.receive_nowait()
                except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                    break
                await self._deliver(item)
        self._queue_in.close()
        with anyio.CancelScope(shield=True):
            await self._sink.aclose()
        unsent = self._queue_out.statistics().current_buffer_used
        self._queue_out.close()
        level = logging.WARNING if self.failed or self.dropped or unsent else logging.INFO
        log.log(
            level,
            "export %s: %d sent, %d failed, %d dropped, %d unsent at exit",
            self.target,
            self.sent,
            self.failed,
            self.dropped,
            unsent,
        )

    async def _deliver(self, item: ExportItem) -> None:
        try:
            await self._sink.send(item)
        except Exception as exc:  # noqa: BLE001 - this export's outermost boundary (rule 2)
            self.failed += 1
            self._delay = min(max(self._delay * 2, self._backoff), 30.0)
            if not self._failing:
                log.warning("export %s: sending failed: %s", self.target, _describe(exc))
            self._failing = True
            return
        self.sent += 1
        self._delay = 0.0
        if self._failing:
            log.warning("export %s: sending again (%d failed so far)", self.target, self.failed)
        self._failing = False


def _describe(exc: Exception) -> str:
    """An error's kind, never its full text (an HTTP error's text holds the URL)."""
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__
