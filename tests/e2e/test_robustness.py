"""Downstreams that fail: one that cannot start, one that dies in a call, one that never answers;
and cyclops's own shutdown (stdin closed, SIGTERM, SIGINT) leaving no child process behind."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from e2e_support import (
    E2E,
    PYTHON,
    Host,
    call_tool,
    connect_stdio,
    descendants,
    kill_all,
    load_json,
    node_bin,
    python_server_entry,
    raw,
    serve_args,
    server_entry,
    stop,
    survivors,
    text_of,
    write_downstream,
)
from mcp.client.session import ClientSession

pytestmark = pytest.mark.anyio

FLAKY = str(E2E / "servers" / "flaky.py")
PAGE_URL = "https://blog.example.org/"


def flaky_entry(timeout: float, startup_delay: float = 0.0) -> str:
    args = [FLAKY, "--startup-delay", str(startup_delay)]
    return server_entry("flaky", PYTHON, args, timeout=timeout)


async def wait_for_tools(
    session: ClientSession, host: Host, names: set[str], errlog: Path, timeout: float
) -> None:
    """Wait (bounded) until cyclops lists ``names``; fail with cyclops's log if it never does."""
    try:
        with anyio.fail_after(timeout):
            while True:
                mark = host.mark()
                if names <= tool_names(await raw(session, "tools/list")):
                    return
                await host.wait_for("notifications/tools/list_changed", after=mark, timeout=60)
    except TimeoutError:
        log = errlog.read_text(errors="replace")
        pytest.fail(f"cyclops did not offer {sorted(names)} within {timeout} s:\n{log}")


def tool_names(listing: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in listing["tools"]}


# -- a server that cannot start --------------------------------------------------------------


async def test_a_server_whose_command_does_not_exist_is_left_out_and_the_others_work(
    tmp_path: Path,
) -> None:
    downstream = write_downstream(
        tmp_path / "downstream.toml",
        [
            server_entry("missing", str(tmp_path / "no-such-mcp-server"), ["--stdio"]),
            python_server_entry("web", "cyclops.examples.servers.web"),
        ],
    )
    args = serve_args(downstream, tmp_path / "verdicts")
    with (tmp_path / "cyclops.stderr").open("w") as errlog:
        # A healthy cyclops in front of one Python server answers in about 2 s: a server that
        # can never start must not hold the host's handshake much longer than that.
        async with connect_stdio(PYTHON, args, Host(), errlog, startup_timeout=10) as session:
            assert tool_names(await raw(session, "tools/list")) == {"fetch_page"}
            page = await call_tool(session, "fetch_page", {"url": PAGE_URL})
            assert page.get("isError") is not True
            assert "<html>" in text_of(page)


# -- servers that crash or hang --------------------------------------------------------------


@dataclass
class Flaky:
    session: ClientSession
    host: Host


@pytest.fixture(scope="module")
async def flaky(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Flaky]:
    work = tmp_path_factory.mktemp("flaky")
    downstream = write_downstream(
        work / "downstream.toml",
        [python_server_entry("web", "cyclops.examples.servers.web"), flaky_entry(timeout=1)],
    )
    host = Host()
    args = serve_args(downstream, work / "verdicts")
    errlog_path = work / "cyclops.stderr"
    with errlog_path.open("w") as errlog:
        async with connect_stdio(PYTHON, args, host, errlog) as session:
            await wait_for_tools(session, host, {"whoami", "crash", "hang"}, errlog_path, 10)
            yield Flaky(session, host)


async def test_a_slow_starting_server_with_a_short_call_timeout_still_comes_up(
    tmp_path: Path,
) -> None:
    """``timeout`` bounds a call; starting the server and its handshake have their own bound."""
    downstream = write_downstream(
        tmp_path / "downstream.toml", [flaky_entry(timeout=1, startup_delay=2)]
    )
    host = Host()
    errlog_path = tmp_path / "cyclops.stderr"
    with errlog_path.open("w") as errlog:
        args = serve_args(downstream, tmp_path / "verdicts")
        async with connect_stdio(PYTHON, args, host, errlog) as session:
            await wait_for_tools(session, host, {"whoami"}, errlog_path, 10)
            assert text_of(await call_tool(session, "whoami")).isdigit()


async def test_a_server_that_hangs_in_a_call_gives_an_error_result_after_its_timeout(
    flaky: Flaky,
) -> None:
    with anyio.fail_after(6):  # timeout = 1 for this server
        result = await call_tool(flaky.session, "hang")
    assert result.get("isError") is True
    assert not text_of(result).startswith("cyclops blocked this call")
    with anyio.fail_after(5):
        assert text_of(await call_tool(flaky.session, "whoami")).isdigit()
        assert "<html>" in text_of(await call_tool(flaky.session, "fetch_page", {"url": PAGE_URL}))


async def test_a_server_that_dies_in_a_call_gives_an_error_result_and_comes_back(
    flaky: Flaky,
) -> None:
    session, host = flaky.session, flaky.host
    before = text_of(await call_tool(session, "whoami"))
    mark = host.mark()
    with anyio.fail_after(5):
        result = await call_tool(session, "crash")
    assert result.get("isError") is True
    assert not text_of(result).startswith("cyclops blocked this call")

    # The other server is not affected while this one is down.
    page = await call_tool(session, "fetch_page", {"url": PAGE_URL})
    assert page.get("isError") is not True

    # cyclops restarts it and tells the host its tools are back.
    await host.wait_for("notifications/tools/list_changed", after=mark, timeout=15)
    assert {"whoami", "crash", "hang"} <= tool_names(await raw(session, "tools/list"))
    after = await call_tool(session, "whoami")
    assert after.get("isError") is not True
    assert text_of(after).isdigit()
    assert text_of(after) != before


# -- shutdown --------------------------------------------------------------------------------


@dataclass
class RawPeer:
    """A host speaking raw JSON lines to a cyclops it started itself (so the test owns its
    stdin, its pid and its exit status)."""

    process: Process
    stdout: BufferedByteReceiveStream
    stderr_path: Path
    next_id: int = 1

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(message) + "\n").encode())

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(message) + "\n").encode())
        with anyio.fail_after(30):
            while True:
                try:
                    line = await self.stdout.receive_until(b"\n", 16 * 1024 * 1024)
                except (anyio.IncompleteRead, anyio.EndOfStream):
                    log = self.stderr_path.read_text(errors="replace")
                    pytest.fail(f"cyclops closed its stdout before answering {method}:\n{log}")
                answer: dict[str, Any] = json.loads(line)
                if answer.get("id") == request_id:
                    assert "error" not in answer, answer
                    result: dict[str, Any] = answer["result"]
                    return result


@asynccontextmanager
async def raw_cyclops(args: list[str], stderr_path: Path) -> AsyncIterator[RawPeer]:
    with stderr_path.open("w") as stderr:
        process = await anyio.open_process(
            [PYTHON, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    try:
        assert process.stdout is not None
        peer = RawPeer(process, BufferedByteReceiveStream(process.stdout), stderr_path)
        await peer.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-e2e-host", "version": "1"},
            },
        )
        await peer.notify("notifications/initialized")
        yield peer
    finally:
        children = descendants(process.pid)
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.aclose()
        kill_all(children)


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM", "SIGINT"])
async def test_cyclops_stops_with_every_child_and_writes_its_verdict(
    tmp_path: Path, how: str
) -> None:
    downstream = write_downstream(
        tmp_path / "downstream.toml",
        [
            server_entry("filesystem", node_bin("mcp-server-filesystem"), [str(tmp_path)]),
            python_server_entry("web", "cyclops.examples.servers.web"),
        ],
    )
    verdicts = tmp_path / "verdicts"
    stderr_path = tmp_path / "cyclops.stderr"
    async with raw_cyclops(serve_args(downstream, verdicts), stderr_path) as peer:
        page = await peer.request(
            "tools/call", {"name": "fetch_page", "arguments": {"url": PAGE_URL}}
        )
        assert page.get("isError") is not True
        children = descendants(peer.process.pid)
        assert len(children) >= 2, children
        if how == "stdin closed":
            assert peer.process.stdin is not None
            await peer.process.stdin.aclose()
            with anyio.fail_after(15):
                code = await peer.process.wait()
        else:
            code = await stop(peer.process, signal.Signals[how])
        left = survivors(children)
        kill_all(left)
    log = stderr_path.read_text(errors="replace")
    assert (code, left) == (0, []), f"exit status {code}, still running: {left}\n{log}"
    [verdict_path] = verdicts.glob("*.session.json")
    assert load_json(verdict_path)["metrics"]["calls"] == 1


async def test_a_sigterm_while_cyclops_shuts_down_still_stops_every_child(tmp_path: Path) -> None:
    """A host closes stdin, then sends SIGTERM when cyclops has not exited yet (the SDK's stdio
    hosts do so after 2 s). cyclops may still be waiting for a server that does not exit at end
    of input (server-everything sometimes does not): that server must not outlive cyclops."""
    stubborn = str(E2E / "servers" / "stubborn.py")
    downstream = write_downstream(
        tmp_path / "downstream.toml",
        [
            server_entry("stubborn", PYTHON, [stubborn]),
            python_server_entry("web", "cyclops.examples.servers.web"),
        ],
    )
    stderr_path = tmp_path / "cyclops.stderr"
    async with raw_cyclops(serve_args(downstream, tmp_path / "verdicts"), stderr_path) as peer:
        pong = await peer.request("tools/call", {"name": "ping", "arguments": {}})
        assert pong.get("isError") is not True
        children = descendants(peer.process.pid)
        assert any("stubborn.py" in child.command for child in children), children
        assert peer.process.stdin is not None
        await peer.process.stdin.aclose()
        # cyclops has read the end of its input and is stopping its servers; the stubborn one
        # has not exited. Now the host loses patience:
        with anyio.move_on_after(0.5):
            await peer.process.wait()
        code = await stop(peer.process, signal.SIGTERM)
        left = survivors(children)
        kill_all(left)
    log = stderr_path.read_text(errors="replace")
    assert left == [], f"exit status {code}; still running after cyclops exited: {left}\n{log}"
