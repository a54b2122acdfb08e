"""Shared machinery for the end-to-end tests: starting cyclops (stdio or HTTP) in front of real
servers, a recording MCP host, raw JSON-RPC requests, and process-tree bookkeeping."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from pydantic import RootModel

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "tests" / "e2e"
NODE_BIN = E2E / "node_modules" / ".bin"
SCHEMA_PATH = ROOT / "docs" / "session.schema.json"
PYTHON = sys.executable
INSTALL_HINT = (
    "tests/e2e/node_modules is missing or incomplete: run the test command in README.md "
    "(its `npm ci --prefix tests/e2e --no-audit --no-fund` installs tests/e2e/package.json)"
)
STARTUP_TIMEOUT = 30.0
CALL_TIMEOUT = 20.0

# The fake private key the attack tests plant in the workspace (never a real key).
FAKE_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBu7Jq0eS2kV9xQfT4mR1cW8pL3nZ5yA6hD0gK2sXvB9wAAAJhqk3N0apNz
dAAAAAtzc2gtZWQyNTUxOQAAACBu7Jq0eS2kV9xQfT4mR1cW8pL3nZ5yA6hD0gK2sXvB9w
AAAEDe2ZmYWtlLWtleS1mb3ItY3ljbG9wcy1lMmUtdGVzdHMtMDAwMDAwMDAwMDAwMDBu7J
q0eS2kV9xQfT4mR1cW8pL3nZ5yA6hD0gK2sXvB9wAAABJlMmVAY3ljbG9wcy5leGFtcGxlAQ==
-----END OPENSSH PRIVATE KEY-----
"""
ATTACKER_URL = "https://paste.attacker-example.net/drop"
RAWLINE = str(E2E / "servers" / "rawline.py")
"""A server that writes what it is told, raw, to its stdout (garbage, floods, hangs)."""
HOSTILE = str(E2E / "servers" / "hostile.py")
"""A server whose tools return hostile content (50 MB results, deep nesting, bombs)."""


def node_bin(name: str) -> str:
    """An npm executable of tests/e2e; a missing one fails the test (never skips it)."""
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{path} not found. {INSTALL_HINT}", pytrace=False)
    return str(path)


# -- raw JSON-RPC ----------------------------------------------------------------------------


class RawRequest(types.Request[Any, str]):
    """Any request, params as given (so a test compares wire JSON, not the SDK's models)."""

    method: str
    params: dict[str, Any] | None = None


class RawResult(RootModel[dict[str, Any]]):
    """Any result, as the server sent it."""


async def raw(
    session: ClientSession,
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    progress: ProgressFnT | None = None,
    timeout: float = CALL_TIMEOUT,
) -> dict[str, Any]:
    """Send one request and return the raw result (an error answer raises ``MCPError``)."""
    request = RawRequest(method=method, params=dict(params) if params is not None else None)
    with anyio.fail_after(timeout):
        result = await session.send_request(request, RawResult, progress_callback=progress)
    return result.root


async def call_tool(
    session: ClientSession, name: str, arguments: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    return await raw(session, "tools/call", {"name": name, "arguments": dict(arguments or {})})


def text_of(result: Mapping[str, Any]) -> str:
    return "\n".join(
        str(block.get("text", "")) for block in result.get("content", []) if isinstance(block, dict)
    )


def is_denial(result: Mapping[str, Any]) -> bool:
    return result.get("isError") is True and text_of(result).startswith("cyclops blocked this call")


# -- the host --------------------------------------------------------------------------------


@dataclass
class Host:
    """The host end of one MCP connection: it records every notification and server→client
    request, and answers sampling, elicitation and roots the way a test tells it to."""

    roots: list[types.Root] = field(default_factory=list)
    sampling_reply: str = "the host's sampled answer"
    elicitation_reply: dict[str, Any] = field(default_factory=dict)
    notifications: list[types.ServerNotification] = field(default_factory=list)
    transport_errors: list[Exception] = field(default_factory=list)
    sampled: list[types.CreateMessageRequestParams] = field(default_factory=list)
    elicited: list[types.ElicitRequestParams] = field(default_factory=list)
    roots_requests: int = 0
    http_session_id: str | None = None
    """The ``mcp-session-id`` cyclops gave this host (HTTP only)."""
    leftovers: list[ProcessId] = field(default_factory=list)
    """stdio: the server's processes still running once the connection had closed."""
    _changed: anyio.Event = field(default_factory=anyio.Event)

    def session_options(self) -> dict[str, Any]:
        return {
            "sampling_callback": self._on_sampling,
            "elicitation_callback": self._on_elicitation,
            "list_roots_callback": self._on_list_roots,
            "message_handler": self._on_message,
            "client_info": types.Implementation(name="cyclops-e2e-host", version="1"),
        }

    def mark(self) -> int:
        """A position in the notification log, for :meth:`wait_for`."""
        return len(self.notifications)

    def since(self, mark: int, method: str | None = None) -> list[types.ServerNotification]:
        return [n for n in self.notifications[mark:] if method is None or n.method == method]

    async def wait_for(
        self,
        method: str,
        predicate: Callable[[Any], bool] = lambda _: True,
        *,
        after: int = 0,
        timeout: float = 10.0,
    ) -> types.ServerNotification:
        """The first notification ``method`` (at or after ``after``) whose params match."""
        seen = after
        with anyio.fail_after(timeout):
            while True:
                for notification in self.notifications[seen:]:
                    if notification.method == method and predicate(notification.params):
                        return notification
                seen = len(self.notifications)
                await self._changed.wait()

    def _touch(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            self.transport_errors.append(message)
        else:
            self.notifications.append(message)
        self._touch()

    async def _on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampled.append(params)
        self._touch()
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.sampling_reply),
            model="e2e-host-model",
            stop_reason="endTurn",
        )

    async def _on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.elicited.append(params)
        self._touch()
        if not self.elicitation_reply:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=self.elicitation_reply)

    async def _on_list_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        self.roots_requests += 1
        self._touch()
        return types.ListRootsResult(roots=list(self.roots))


# -- downstream.toml -------------------------------------------------------------------------


def server_entry(
    name: str,
    command: str,
    args: Sequence[str] = (),
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str:
    lines = [
        "[[server]]",
        f"name = {json.dumps(name)}",
        'transport = "stdio"',
        f"command = {json.dumps(command)}",
        f"args = {json.dumps(list(args))}",
    ]
    if timeout is not None:
        lines.append(f"timeout = {timeout}")
    if env:
        pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in env.items())
        lines.append(f"env = {{ {pairs} }}")
    if cwd is not None:
        lines.append(f"cwd = {json.dumps(cwd)}")
    return "\n".join(lines) + "\n"


def write_downstream(path: Path, entries: Iterable[str]) -> Path:
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def everything_entry() -> str:
    return server_entry("everything", node_bin("mcp-server-everything"), ["stdio"], timeout=30)


def python_server_entry(name: str, module: str, *args: str, timeout: float | None = None) -> str:
    return server_entry(name, PYTHON, ["-m", module, *args], timeout=timeout)


def serve_args(
    downstream: Path,
    verdicts: Path,
    *,
    mode: str = "detect",
    record: Path | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """``python -m cyclops serve ...`` (logs at info level, to the test's stderr file)."""
    args = [
        "-m",
        "cyclops",
        "--log-level",
        "info",
        "serve",
        "--downstream",
        str(downstream),
        "--verdicts",
        str(verdicts / "{session}.session.json"),
        "--mode",
        mode,
    ]
    if record is not None:
        args += ["--record", str(record)]
    return [*args, *extra]


# -- connecting ------------------------------------------------------------------------------


@asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str],
    host: Host,
    errlog: TextIO,
    *,
    env: Mapping[str, str] | None = None,
    startup_timeout: float = STARTUP_TIMEOUT,
) -> AsyncIterator[ClientSession]:
    """Start a stdio MCP server (cyclops or a server itself) the way the SDK's hosts do and
    complete the handshake. Whatever the server started and left running when the connection
    closed is noted in ``host.leftovers``, then killed."""
    params = StdioServerParameters(command=command, args=list(args), env=dict(env or {}) or None)
    before = {p.pid for p in _children(os.getpid())}
    spawned: list[ProcessId] = []
    try:
        async with stdio_client(params, errlog=errlog) as (read, write):
            # The new child of this process running these arguments (tests may start several
            # servers at once, each with its own arguments).
            tail = " ".join(args)
            mine = [
                p
                for p in _children(os.getpid())
                if p.pid not in before and p.command.endswith(tail)
            ]
            async with ClientSession(read, write, **host.session_options()) as session:
                with anyio.fail_after(startup_timeout):
                    init = await session.initialize()
                assert init.protocol_version == "2025-11-25"
                try:
                    yield session
                finally:
                    spawned = mine + [d for p in mine for d in descendants(p.pid)]
    finally:
        host.leftovers = survivors(spawned)
        kill_all(host.leftovers)


@asynccontextmanager
async def connect_http(url: str, token: str, host: Host) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}

    async def remember_session_id(response: httpx2.Response) -> None:
        host.http_session_id = response.headers.get("mcp-session-id") or host.http_session_id

    async with (
        httpx2.AsyncClient(
            headers=headers,
            timeout=httpx2.Timeout(30.0, read=60.0),
            event_hooks={"response": [remember_session_id]},
        ) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, **host.session_options()) as session,
    ):
        with anyio.fail_after(STARTUP_TIMEOUT):
            init = await session.initialize()
        assert init.protocol_version == "2025-11-25"
        yield session


# -- processes -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class ProcessId:
    """A process, told apart from a later one that reuses its pid by its start time."""

    pid: int
    start: int
    command: str


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a live process, or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0], int(fields[19])


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def descendants(pid: int) -> list[ProcessId]:
    """Every live descendant of ``pid`` (children, grandchildren, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] != "Z":
                parents.setdefault(stat[0], []).append(int(entry.name))
    found: list[ProcessId] = []
    queue = [pid]
    while queue:
        for child in parents.get(queue.pop(), []):
            stat = _stat(child)
            if stat is not None:
                found.append(ProcessId(child, stat[2], _command(child)))
                queue.append(child)
    return found


def _children(pid: int) -> list[ProcessId]:
    return [p for p in descendants(pid) if (_stat(p.pid) or (0,))[0] == pid]


def alive(process: ProcessId) -> bool:
    stat = _stat(process.pid)
    return stat is not None and stat[1] != "Z" and stat[2] == process.start


def survivors(processes: Iterable[ProcessId]) -> list[ProcessId]:
    return [p for p in processes if alive(p)]


def kill_all(processes: Iterable[ProcessId]) -> None:
    """SIGKILL whatever is left (a failed test must not leak processes into the next ones)."""
    for process in survivors(processes):
        with suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)


@dataclass
class HttpCyclops:
    """A ``cyclops serve --http`` subprocess."""

    process: Process
    port: int
    token: str
    stderr_path: Path
    exit_code: int | None = None
    """Set once it has been stopped."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


async def wait_for_port(port: int, process: Process, stderr: Path, timeout: float) -> None:
    """A bounded retry loop on connect; fails at once (with cyclops's stderr) if it exits."""
    with anyio.fail_after(timeout):
        while True:
            if process.returncode is not None:
                pytest.fail(
                    f"cyclops exited with {process.returncode} before listening:\n"
                    + stderr.read_text(errors="replace")
                )
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
            else:
                await stream.aclose()
                return


@asynccontextmanager
async def http_server(
    args: Sequence[str], port: int, stderr_path: Path, timeout: float
) -> AsyncIterator[Process]:
    """``python <args>``, an MCP server listening on ``port`` (its output to ``stderr_path``),
    once it accepts connections; killed at the end."""
    with stderr_path.open("w") as errors:
        process = await anyio.open_process(
            [PYTHON, *args], stdin=subprocess.DEVNULL, stdout=errors, stderr=errors
        )
    try:
        await wait_for_port(port, process, stderr_path, timeout)
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.aclose()


def http_entry(name: str, url: str, timeout: float | None = None) -> str:
    """A downstream.toml entry for a server reached over Streamable HTTP."""
    entry = f'[[server]]\nname = "{name}"\ntransport = "http"\nurl = "{url}"\n'
    return entry + (f"timeout = {timeout}\n" if timeout is not None else "")


@asynccontextmanager
async def http_cyclops(
    args: Sequence[str], workdir: Path, *, env: Mapping[str, str] | None = None
) -> AsyncIterator[HttpCyclops]:
    """Run ``python <args> --http --port N`` with a token; stop it with SIGTERM at the end
    (bounded) and check that none of its child processes outlives it."""
    port = free_port()
    token = f"e2e-token-{os.getpid()}-{port}"
    stderr_path = workdir / f"cyclops-http-{port}.stderr"
    environment = {**os.environ, **(env or {}), "CYCLOPS_TOKEN": token}
    with stderr_path.open("w", encoding="utf-8") as stderr:
        process = await anyio.open_process(
            [PYTHON, *args, "--http", "--host", "127.0.0.1", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            env=environment,
        )
    server = HttpCyclops(process, port, token, stderr_path)
    try:
        await wait_for_port(port, process, stderr_path, STARTUP_TIMEOUT)
        yield server
    finally:
        children = descendants(process.pid)
        with anyio.CancelScope(shield=True):
            try:
                server.exit_code = await stop(process, signal.SIGTERM)
            finally:
                await process.aclose()
                left = survivors(children)  # cyclops has exited: its children must be gone
                kill_all(left)
    assert not left, f"child processes outlived cyclops: {left}"


async def stop(process: Process, sig: signal.Signals, timeout: float = 10.0) -> int:
    """Send ``sig`` and wait (bounded) for the exit code; if it does not exit, kill it and its
    children and fail."""
    children = descendants(process.pid)
    if process.returncode is None:
        process.send_signal(sig)
    try:
        with anyio.fail_after(timeout):
            return await process.wait()
    except TimeoutError:
        process.kill()
        await process.wait()
        kill_all(children)
        raise AssertionError(f"process {process.pid} ignored {sig.name} for {timeout} s") from None


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# -- a raw JSON-RPC line host ----------------------------------------------------------------


INITIALIZE_PARAMS: dict[str, Any] = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "raw-line-e2e-host", "version": "1"},
}
MAX_LINE = 512 * 1024 * 1024


@dataclass
class LineHost:
    """A host that writes raw bytes to a stdio cyclops it started itself and reads every line
    cyclops writes back: the test owns the process, its stdin and its exit status, and can send
    what no SDK client would (bytes that are not UTF-8, lines that are not JSON-RPC)."""

    process: Process
    stderr_path: Path
    lines: list[bytes] = field(default_factory=list)
    """Every line cyclops wrote to its stdout, in order."""
    responses: dict[Any, dict[str, Any]] = field(default_factory=dict)
    """Each JSON-RPC response (result or error) by its id, until :meth:`response` takes it."""
    error_texts: list[str] = field(default_factory=list)
    """What the host was shown as an error: JSON-RPC error messages and data, and the text of
    every tool result with ``isError``."""
    closed: bool = False
    """cyclops closed its stdout."""
    next_id: int = 1
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    async def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(data)

    async def send(self, message: Mapping[str, Any]) -> None:
        await self.send_bytes(json.dumps(message).encode() + b"\n")

    def new_id(self) -> int:
        request_id, self.next_id = self.next_id, self.next_id + 1
        return request_id

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float = CALL_TIMEOUT,
    ) -> dict[str, Any]:
        """Send a request; the whole response message (``result`` or ``error``)."""
        request_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self.send(message)
        return await self.response(request_id, timeout=timeout)

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float = CALL_TIMEOUT
    ) -> dict[str, Any]:
        """``tools/call``; its result (an error response fails the test)."""
        answer = await self.request(
            "tools/call", {"name": name, "arguments": dict(arguments)}, timeout=timeout
        )
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    async def response(self, request_id: Any, *, timeout: float = CALL_TIMEOUT) -> dict[str, Any]:
        try:
            with anyio.fail_after(timeout):
                while request_id not in self.responses:
                    if self.closed:
                        pytest.fail(f"cyclops closed its stdout before answering {request_id}")
                    await self._arrived.wait()
        except TimeoutError:
            log = self.stderr_path.read_text(errors="replace")[-4000:]
            pytest.fail(f"no answer to request {request_id} in {timeout} s; cyclops log:\n{log}")
        return self.responses.pop(request_id)

    async def wait_until(self, predicate: Callable[[], bool], *, timeout: float) -> None:
        """Wait (bounded) until ``predicate()`` holds; it is checked after every line read."""
        with anyio.fail_after(timeout):
            while not predicate():
                if self.closed:
                    pytest.fail("cyclops closed its stdout")
                await self._arrived.wait()

    async def initialize(self) -> None:
        answer = await self.request("initialize", INITIALIZE_PARAMS, timeout=STARTUP_TIMEOUT)
        assert "result" in answer, answer
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def read_lines(self) -> None:
        assert self.process.stdout is not None
        stdout = BufferedByteReceiveStream(self.process.stdout)
        try:
            while True:
                line = await stdout.receive_until(b"\n", MAX_LINE)
                self.lines.append(line)
                message = json.loads(line)  # everything on cyclops's stdout is JSON-RPC
                if isinstance(message, dict) and ("result" in message or "error" in message):
                    self.responses[message.get("id")] = message
                    self._note_errors(message)
                self._touch()
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError):
            self.closed = True
            self._touch()

    def _touch(self) -> None:
        self._arrived.set()
        self._arrived = anyio.Event()

    def _note_errors(self, message: dict[str, Any]) -> None:
        self.error_texts.extend(errors_shown(message))

    def tracebacks(self) -> list[str]:
        """Error texts shown to the host that carry a Python traceback or source location."""
        return [t for t in self.error_texts if "Traceback" in t or 'File "' in t or ".py:" in t]


def errors_shown(message: Mapping[str, Any]) -> list[str]:
    """What a host is shown as an error in ``message``: a JSON-RPC error's message and data, or
    the text of a tool result with ``isError``."""
    error = message.get("error")
    if isinstance(error, dict):
        return [f"{error.get('message')} {error.get('data')}"]
    result = message.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return [text_of(result)]
    return []


@asynccontextmanager
async def line_host(
    args: Sequence[str], stderr_path: Path, *, env: Mapping[str, str] | None = None
) -> AsyncIterator[LineHost]:
    """Start ``python <args>`` (a stdio cyclops), initialize it, and read its stdout in the
    background. At the end it is killed if still running, and so is whatever it started."""
    with stderr_path.open("w") as stderr:
        process = await anyio.open_process(
            [PYTHON, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, **(env or {})},
        )
    host = LineHost(process, stderr_path)
    children: list[ProcessId] = []
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(host.read_lines)
            try:
                await host.initialize()
                yield host
            finally:
                children = descendants(process.pid)
                if process.returncode is None:
                    process.kill()
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
        kill_all(children)


def reset_peak_rss(pid: int) -> None:
    """Start a new peak (VmHWM) for a process of this user."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def peak_rss_mib(pid: int) -> float:
    """The peak resident memory (VmHWM) of a live process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for process {pid}")


def rss_mib(pid: int) -> float:
    """The current resident memory (VmRSS) of a live process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")
