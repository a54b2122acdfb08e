"""npm's server-everything through cyclops, every feature, over the stdio and the HTTP front.

Each answer through cyclops is compared with the answer of a direct connection to another
server-everything process (same client capabilities), as raw JSON."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_support import (
    E2E,
    PYTHON,
    Host,
    HttpCyclops,
    call_tool,
    connect_http,
    connect_stdio,
    everything_entry,
    http_cyclops,
    node_bin,
    raw,
    serve_args,
    server_entry,
    text_of,
    write_downstream,
)
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio

ROOT_URI = "file:///work/e2e-host-root"
LIST_METHODS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


@dataclass
class Connection:
    front: str
    session: ClientSession
    host: Host
    cyclops: HttpCyclops | None = None


def _host() -> Host:
    return Host(roots=[types.Root(uri=ROOT_URI, name="e2e host root")])  # type: ignore[arg-type]


@pytest.fixture(scope="module")
async def direct(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Connection]:
    """server-everything without cyclops: the reference every answer is compared with."""
    errlog_path = tmp_path_factory.mktemp("direct") / "everything.stderr"
    host = _host()
    with errlog_path.open("w") as errlog:
        command = node_bin("mcp-server-everything")
        async with connect_stdio(command, ["stdio"], host, errlog) as session:
            yield Connection("direct", session, host)


@pytest.fixture(scope="module", params=["stdio", "http"])
async def proxied(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Connection]:
    """One cyclops per front, in front of server-everything, for the whole module."""
    front: str = request.param
    work = tmp_path_factory.mktemp(f"everything-{front}")
    downstream = write_downstream(work / "downstream.toml", [everything_entry()])
    (work / "verdicts").mkdir()
    args = serve_args(downstream, work / "verdicts")
    host = _host()
    if front == "stdio":
        with (work / "cyclops.stderr").open("w") as errlog:
            async with connect_stdio(PYTHON, args, host, errlog) as session:
                yield Connection(front, session, host)
    else:
        async with (
            http_cyclops(args, work) as cyclops,
            connect_http(cyclops.url, cyclops.token, host) as session,
        ):
            yield Connection(front, session, host, cyclops)


# -- helpers ---------------------------------------------------------------------------------

_TIME = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\s?[AaPp][Mm])?")


def masked(value: Any) -> Any:
    """JSON with the wall-clock times server-everything writes into dynamic resources masked
    (also inside base64 blobs), so two reads a second apart compare equal."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "blob" and isinstance(item, str):
                try:
                    decoded = base64.b64decode(item, validate=True).decode()
                except (ValueError, UnicodeDecodeError):
                    out[key] = item
                else:
                    out[key] = "blob:" + _TIME.sub("<time>", decoded)
            else:
                out[key] = masked(item)
        return out
    if isinstance(value, list):
        return [masked(item) for item in value]
    if isinstance(value, str):
        return _TIME.sub("<time>", value)
    return value


async def listing(connection: Connection, method: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await raw(connection.session, method, {"cursor": cursor} if cursor else None)
        items += page[LIST_METHODS[method]]
        cursor = page.get("nextCursor")
        if not cursor:
            return items


# -- lists -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", list(LIST_METHODS))
async def test_every_list_is_exactly_what_server_everything_lists_directly(
    direct: Connection, proxied: Connection, method: str
) -> None:
    expected = await listing(direct, method)
    assert expected, f"server-everything lists no {method}"
    with anyio.fail_after(15):
        while True:
            mark = proxied.host.mark()
            got = await listing(proxied, method)
            if got == expected or method != "tools/list":
                break
            # cyclops may still be re-listing after server-everything registered the tools
            # that depend on client capabilities: wait for its list_changed, then look again.
            await proxied.host.wait_for("notifications/tools/list_changed", after=mark)
    assert got == expected


# -- tools -----------------------------------------------------------------------------------

TOOL_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "text": ("echo", {"message": "hello through cyclops"}),
    "sum": ("get-sum", {"a": 2, "b": 40}),
    "annotated text and image": (
        "get-annotated-message",
        {"messageType": "error", "includeImage": True},
    ),
    "image": ("get-tiny-image", {}),
    "embedded text resource": (
        "get-resource-reference",
        {"resourceType": "Text", "resourceId": 3},
    ),
    "embedded blob resource": (
        "get-resource-reference",
        {"resourceType": "Blob", "resourceId": 4},
    ),
    "resource links": ("get-resource-links", {"count": 4}),
    "structured content": ("get-structured-content", {"location": "New York"}),
    "invalid arguments": ("get-sum", {"a": "not a number"}),
}


@pytest.mark.parametrize("case", list(TOOL_CASES))
async def test_a_tool_result_reaches_the_host_exactly_as_the_server_sent_it(
    direct: Connection, proxied: Connection, case: str
) -> None:
    name, arguments = TOOL_CASES[case]
    expected = await call_tool(direct.session, name, arguments)
    got = await call_tool(proxied.session, name, arguments)
    assert masked(got) == masked(expected)


async def test_every_content_block_type_server_everything_makes_is_covered(
    direct: Connection,
) -> None:
    kinds: set[str] = set()
    for name, arguments in TOOL_CASES.values():
        result = await call_tool(direct.session, name, arguments)
        kinds |= {block["type"] for block in result["content"]}
        if "structuredContent" in result:
            kinds.add("structuredContent")
        if result.get("isError"):
            kinds.add("isError")
    assert kinds >= {"text", "image", "resource", "resource_link", "structuredContent", "isError"}


async def test_an_unknown_tool_is_a_json_rpc_error(proxied: Connection) -> None:
    with pytest.raises(MCPError) as caught:
        await call_tool(proxied.session, "no-such-tool-anywhere", {})
    assert caught.value.error.code == types.INVALID_PARAMS


# -- resources -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "demo://resource/static/document/features.md",
        "demo://resource/dynamic/text/7",
        "demo://resource/dynamic/blob/8",
    ],
)
async def test_a_resource_read_is_exactly_the_direct_read(
    direct: Connection, proxied: Connection, uri: str
) -> None:
    expected = await raw(direct.session, "resources/read", {"uri": uri})
    got = await raw(proxied.session, "resources/read", {"uri": uri})
    assert masked(got) == masked(expected)


async def test_a_subscribed_resource_sends_updates_until_the_host_unsubscribes(
    proxied: Connection,
) -> None:
    session, host = proxied.session, proxied.host
    uri = "demo://resource/static/document/architecture.md"
    assert await raw(session, "resources/subscribe", {"uri": uri}) == {}
    mark = host.mark()
    # The toggle sends one update at once for every subscribed URI (then every 5 s).
    await call_tool(session, "toggle-subscriber-updates")
    try:
        update = await host.wait_for(
            "notifications/resources/updated", lambda p: p.uri == uri, after=mark
        )
        assert update.params is not None
    finally:
        await call_tool(session, "toggle-subscriber-updates")
    assert await raw(session, "resources/unsubscribe", {"uri": uri}) == {}


async def test_a_resource_the_server_adds_mid_session_is_listed_and_readable(
    proxied: Connection,
) -> None:
    session, host = proxied.session, proxied.host
    name = f"e2e-{proxied.front}.txt.gz"
    data = "data:text/plain;base64," + base64.b64encode(b"cyclops e2e payload").decode()
    mark = host.mark()
    result = await call_tool(
        session, "gzip-file-as-resource", {"name": name, "data": data, "outputType": "resourceLink"}
    )
    assert result.get("isError") is not True
    [link] = result["content"]
    assert link["type"] == "resource_link"
    await host.wait_for("notifications/resources/list_changed", after=mark)
    uris = [r["uri"] for r in (await raw(session, "resources/list"))["resources"]]
    assert link["uri"] in uris
    read = await raw(session, "resources/read", {"uri": link["uri"]})
    [contents] = read["contents"]
    assert contents["uri"] == link["uri"]
    assert contents["mimeType"] == "application/gzip"


# -- prompts and completion ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("simple-prompt", {}),
        ("args-prompt", {"city": "Lisbon", "state": "Estremadura"}),
        ("resource-prompt", {"resourceType": "Text", "resourceId": "5"}),
    ],
)
async def test_a_prompt_is_rendered_exactly_as_the_server_renders_it(
    direct: Connection, proxied: Connection, name: str, arguments: dict[str, str]
) -> None:
    params = {"name": name, "arguments": arguments}
    expected = await raw(direct.session, "prompts/get", params)
    got = await raw(proxied.session, "prompts/get", params)
    assert masked(got) == masked(expected)


@pytest.mark.parametrize(
    "params",
    [
        {
            "ref": {"type": "ref/prompt", "name": "completable-prompt"},
            "argument": {"name": "department", "value": "E"},
        },
        {
            "ref": {"type": "ref/prompt", "name": "completable-prompt"},
            "argument": {"name": "name", "value": ""},
            "context": {"arguments": {"department": "Sales"}},
        },
        {
            "ref": {"type": "ref/resource", "uri": "demo://resource/dynamic/text/{resourceId}"},
            "argument": {"name": "resourceId", "value": "1"},
        },
    ],
)
async def test_a_completion_is_exactly_the_servers_completion(
    direct: Connection, proxied: Connection, params: dict[str, Any]
) -> None:
    expected = await raw(direct.session, "completion/complete", params)
    got = await raw(proxied.session, "completion/complete", params)
    assert got == expected
    assert expected["completion"]["values"], "server-everything offered nothing to compare"


# -- logging ---------------------------------------------------------------------------------


async def test_log_messages_are_forwarded_at_the_level_the_host_chose(
    proxied: Connection,
) -> None:
    session, host = proxied.session, proxied.host
    assert await raw(session, "logging/setLevel", {"level": "debug"}) == {}
    mark = host.mark()
    # The toggle logs one message at once (a random level; "debug" lets every level through).
    await call_tool(session, "toggle-simulated-logging")
    try:
        message = await host.wait_for("notifications/message", after=mark)
    finally:
        await call_tool(session, "toggle-simulated-logging")
    params = message.params
    assert isinstance(params, types.LoggingMessageNotificationParams)
    assert params.level in {
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    }
    assert params.logger is not None
    assert params.logger.split("/")[0] == "everything"

    # Subscribing logs at "info": above the "error" threshold nothing arrives, at "info" it does.
    uri = "demo://resource/static/document/startup.md"
    assert await raw(session, "logging/setLevel", {"level": "error"}) == {}
    mark = host.mark()
    await raw(session, "resources/subscribe", {"uri": uri})
    await raw(session, "resources/unsubscribe", {"uri": uri})
    assert await raw(session, "logging/setLevel", {"level": "info"}) == {}
    await raw(session, "resources/subscribe", {"uri": uri})
    info = await host.wait_for("notifications/message", after=mark)
    await raw(session, "resources/unsubscribe", {"uri": uri})
    assert isinstance(info.params, types.LoggingMessageNotificationParams)
    assert info.params.level == "info"
    assert all(
        n.params.level == "info"
        for n in host.since(mark, "notifications/message")
        if isinstance(n.params, types.LoggingMessageNotificationParams)
    )


# -- progress and cancellation ---------------------------------------------------------------


async def test_progress_reaches_a_host_that_asked_for_it(proxied: Connection) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = await raw(
        proxied.session,
        "tools/call",
        {"name": "trigger-long-running-operation", "arguments": {"duration": 0.6, "steps": 3}},
        progress=on_progress,
    )
    assert result.get("isError") is not True
    assert seen == [(1, 3), (2, 3), (3, 3)]


async def test_no_progress_reaches_a_host_that_did_not_ask(proxied: Connection) -> None:
    host = proxied.host
    mark = host.mark()
    result = await call_tool(
        proxied.session, "trigger-long-running-operation", {"duration": 0.3, "steps": 3}
    )
    assert result.get("isError") is not True
    assert not host.since(mark, "notifications/progress")


async def test_a_cancelled_call_gets_no_result_and_cyclops_keeps_serving(
    proxied: Connection,
) -> None:
    session = proxied.session
    started = anyio.Event()
    finished: list[dict[str, Any]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async def long_call(scope: anyio.CancelScope) -> None:
        with scope:
            finished.append(
                await raw(
                    session,
                    "tools/call",
                    {
                        "name": "trigger-long-running-operation",
                        "arguments": {"duration": 60, "steps": 240},
                    },
                    progress=on_progress,
                    timeout=90,
                )
            )

    scope = anyio.CancelScope()
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(long_call, scope)
            await started.wait()  # the call is running downstream
            scope.cancel()
        assert finished == []
        # The session's calls are decided one at a time: a call stuck behind the cancelled one
        # would hang here.
        echo = await call_tool(session, "echo", {"message": "still serving"})
    assert text_of(echo).endswith("still serving")


# -- server→client requests ------------------------------------------------------------------


async def test_a_sampling_request_reaches_the_host_and_its_answer_reaches_the_tool(
    proxied: Connection,
) -> None:
    host = proxied.host
    host.sampling_reply = f"sampled-by-the-{proxied.front}-host"
    before = len(host.sampled)
    result = await call_tool(
        proxied.session,
        "trigger-sampling-request",
        {"prompt": "name a colour", "maxTokens": 12},
    )
    assert result.get("isError") is not True
    [request] = host.sampled[before:]
    assert request.max_tokens == 12
    [message] = request.messages
    assert isinstance(message.content, types.TextContent)
    assert "name a colour" in message.content.text
    assert host.sampling_reply in text_of(result)


async def test_an_elicitation_request_reaches_the_host_and_its_answer_reaches_the_tool(
    proxied: Connection,
) -> None:
    host = proxied.host
    host.elicitation_reply = {"name": f"Ada from {proxied.front}", "check": True}
    before = len(host.elicited)
    try:
        result = await call_tool(proxied.session, "trigger-elicitation-request")
    finally:
        host.elicitation_reply = {}
    assert result.get("isError") is not True
    [request] = host.elicited[before:]
    assert isinstance(request, types.ElicitRequestFormParams)
    assert "name" in request.requested_schema["properties"]
    assert f"Ada from {proxied.front}" in text_of(result)


async def test_a_url_elicitation_reaches_the_host_as_a_url_request(proxied: Connection) -> None:
    host = proxied.host
    before = len(host.elicited)
    url = "https://example.org/e2e-consent"
    result = await call_tool(
        proxied.session,
        "trigger-url-elicitation",
        {"url": url, "elicitationId": f"e2e-{proxied.front}"},
    )
    assert result.get("isError") is not True
    [request] = host.elicited[before:]
    assert isinstance(request, types.ElicitRequestURLParams)
    assert request.url == url
    assert request.elicitation_id == f"e2e-{proxied.front}"


async def test_the_hosts_roots_reach_the_server_that_asks_for_them(proxied: Connection) -> None:
    result = await call_tool(proxied.session, "get-roots-list")
    assert result.get("isError") is not True
    assert ROOT_URI in text_of(result)


async def test_a_url_elicitation_required_error_keeps_its_code_and_data(
    direct: Connection, proxied: Connection
) -> None:
    arguments = {
        "url": "https://example.org/e2e-authorize",
        "elicitationId": f"e2e-error-path-{proxied.front}",
        "errorPath": True,
    }
    errors: list[types.ErrorData] = []
    for connection in (direct, proxied):
        with pytest.raises(MCPError) as caught:
            await call_tool(connection.session, "trigger-url-elicitation", arguments)
        errors.append(caught.value.error)
    expected, got = errors
    assert got.code == expected.code == types.URL_ELICITATION_REQUIRED
    assert isinstance(got.data, dict)
    assert isinstance(expected.data, dict)
    assert [(e["mode"], e["url"]) for e in got.data["elicitations"]] == [
        (e["mode"], e["url"]) for e in expected.data["elicitations"]
    ]


# -- name collisions -------------------------------------------------------------------------


async def test_two_servers_with_the_same_names_are_told_apart_by_a_server_prefix(
    direct: Connection, tmp_path: Path
) -> None:
    command = node_bin("mcp-server-everything")
    copies = ("left", "right")
    # ${VAR} in an entry's env comes from cyclops's environment; nothing else of it is passed on.
    entries = [
        server_entry(copy, command, ["stdio"], env={"E2E_COPY": f"${{E2E_{copy.upper()}}}"})
        for copy in copies
    ]
    cyclops_env = {"E2E_LEFT": "left", "E2E_RIGHT": "right", "E2E_PRIVATE": "not for servers"}
    downstream = write_downstream(tmp_path / "downstream.toml", entries)
    names = {
        kind: [item["name"] for item in await listing(direct, method)]
        for kind, method in (("tools", "tools/list"), ("prompts", "prompts/list"))
    }
    args = serve_args(downstream, tmp_path / "verdicts")
    with (tmp_path / "cyclops.stderr").open("w") as errlog:
        async with connect_stdio(PYTHON, args, _host(), errlog, env=cyclops_env) as session:
            proxied = Connection("stdio", session, _host())
            for kind, method in (("tools", "tools/list"), ("prompts", "prompts/list")):
                got = sorted(item["name"] for item in await listing(proxied, method))
                assert got == sorted(f"{c}__{n}" for c in copies for n in names[kind])

            # Each prefixed name reaches its own server.
            for copy in copies:
                env = json.loads(text_of(await call_tool(session, f"{copy}__get-env")))
                assert env["E2E_COPY"] == copy
                assert "E2E_PRIVATE" not in env
                assert "E2E_LEFT" not in env

            params = {"name": "args-prompt", "arguments": {"city": "Porto"}}
            expected = await raw(direct.session, "prompts/get", params)
            got_prompt = await raw(session, "prompts/get", {**params, "name": "right__args-prompt"})
            assert got_prompt == expected

            # Resources keep their URIs: the same URI from two servers is listed once.
            uris = [r["uri"] for r in await listing(proxied, "resources/list")]
            assert uris == [r["uri"] for r in await listing(direct, "resources/list")]


async def test_audio_blocks_meta_and_structured_content_pass_through_untouched(
    tmp_path: Path,
) -> None:
    server = [str(E2E / "servers" / "contents.py")]
    downstream = write_downstream(
        tmp_path / "downstream.toml", [server_entry("contents", PYTHON, server)]
    )
    with (tmp_path / "direct.stderr").open("w") as errlog:
        async with connect_stdio(PYTHON, server, Host(), errlog) as session:
            expected_tools = await raw(session, "tools/list")
            expected = await call_tool(session, "media")
    assert "audio" in {block["type"] for block in expected["content"]}
    args = serve_args(downstream, tmp_path / "verdicts")
    with (tmp_path / "cyclops.stderr").open("w") as errlog:
        async with connect_stdio(PYTHON, args, Host(), errlog) as session:
            assert await raw(session, "tools/list") == expected_tools
            assert await call_tool(session, "media") == expected
