"""Tier 2: cyclops in front of in-process servers, talking to an in-process host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from feature_server import Seen, feature_server
from harness import Host, proxied
from mcp import Client
from mcp.shared.exceptions import MCPError

from cyclops.proxy.downstream import RawRequest, RawResult

pytestmark = pytest.mark.anyio


async def direct_tools() -> list[dict[str, Any]]:
    """What the feature server lists, seen directly (no proxy)."""
    async with Client(feature_server("solo", Seen()), mode="legacy", cache=None) as client:
        result = await client.session.send_request(RawRequest(method="tools/list"), RawResult)
    tools: list[dict[str, Any]] = result.root["tools"]
    return tools


async def test_a_single_servers_tools_are_listed_unchanged(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        listed = (await host.raw("tools/list"))["tools"]
    assert listed == await direct_tools()


async def test_colliding_names_are_namespaced_by_server(tmp_path: Path) -> None:
    servers = {"alpha": feature_server("alpha", Seen()), "beta": feature_server("beta", Seen())}
    async with proxied(servers, tmp_path) as host:
        names = [t["name"] for t in (await host.raw("tools/list"))["tools"]]
        prompts = [p["name"] for p in (await host.raw("prompts/list"))["prompts"]]
        echoed = await host.raw("tools/call", {"name": "beta__echo", "arguments": {"text": "hi"}})
    assert "alpha__echo" in names
    assert "beta__echo" in names
    assert "echo" not in names
    assert prompts == ["alpha__greet", "beta__greet"]
    assert echoed["content"][0]["text"] == "hi"


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("echo", {"content": [{"type": "text", "text": "x"}], "_meta": {"vendor/y": 2}}),
        (
            "structured",
            {"content": [{"type": "text", "text": '{"n": 3}'}], "structuredContent": {"n": 3}},
        ),
        ("fails", {"content": [{"type": "text", "text": "it failed"}], "isError": True}),
    ],
)
async def test_results_pass_through_untouched(
    tmp_path: Path, tool: str, expected: dict[str, Any]
) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        result = await host.raw("tools/call", {"name": tool, "arguments": {"text": "x"}})
    assert {k: v for k, v in result.items() if k != "resultType"} == expected


async def test_every_content_block_type_passes_through(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        result = await host.raw("tools/call", {"name": "image", "arguments": {}})
    assert [block["type"] for block in result["content"]] == ["image", "resource_link"]


async def test_an_unknown_tool_is_a_json_rpc_error(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        with pytest.raises(MCPError) as caught:
            await host.raw("tools/call", {"name": "nope", "arguments": {}})
    assert caught.value.error.code == types.INVALID_PARAMS


async def test_an_unknown_method_is_method_not_found(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        with pytest.raises(MCPError) as caught:
            await host.raw("vendor/unknown", {})
    assert caught.value.error.code == types.METHOD_NOT_FOUND


async def test_resources_are_listed_read_and_routed_by_uri(tmp_path: Path) -> None:
    servers = {"alpha": feature_server("alpha", Seen()), "beta": feature_server("beta", Seen())}
    async with proxied(servers, tmp_path) as host:
        resources = [r["uri"] for r in (await host.raw("resources/list"))["resources"]]
        templates = [
            t["uriTemplate"]
            for t in (await host.raw("resources/templates/list"))["resourceTemplates"]
        ]
        static = await host.raw("resources/read", {"uri": "memo://beta/one"})
        templated = await host.raw("resources/read", {"uri": "memo://alpha/items/42"})
    assert resources == ["memo://alpha/one", "memo://beta/one"]
    assert templates == ["memo://alpha/items/{id}", "memo://beta/items/{id}"]
    assert static["contents"][0]["text"] == "content of memo://beta/one"
    assert templated["contents"][0]["text"] == "content of memo://alpha/items/42"


async def test_subscriptions_are_forwarded_and_updates_reach_the_subscriber(tmp_path: Path) -> None:
    seen = Seen()
    async with proxied({"solo": feature_server("solo", seen)}, tmp_path) as host:
        await host.raw("resources/subscribe", {"uri": "memo://solo/one"})
        assert seen.subscriptions == ["memo://solo/one"]
        await host.raw("tools/call", {"name": "touch", "arguments": {"text": "memo://solo/one"}})
        with anyio.fail_after(5):
            while not any(
                isinstance(n, types.ResourceUpdatedNotification) for n in host.notifications
            ):
                await anyio.lowlevel.checkpoint()
        await host.raw("resources/unsubscribe", {"uri": "memo://solo/one"})
    assert seen.subscriptions == []


async def test_prompts_and_completions_are_routed(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        prompt = await host.raw("prompts/get", {"name": "greet", "arguments": {"who": "Ada"}})
        completion = await host.raw(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "greet"},
                "argument": {"name": "who", "value": "A"},
            },
        )
    assert prompt["messages"][0]["content"]["text"] == "Hello Ada from solo"
    assert completion["completion"]["values"] == ["solo-a", "solo-b"]


async def test_the_log_level_reaches_every_server_and_their_logs_reach_the_host(
    tmp_path: Path,
) -> None:
    first, second = Seen(), Seen()
    servers = {"alpha": feature_server("alpha", first), "beta": feature_server("beta", second)}
    async with proxied(servers, tmp_path) as host:
        await host.raw("logging/setLevel", {"level": "warning"})
        await host.raw("tools/call", {"name": "alpha__log", "arguments": {"text": "hello"}})
        with anyio.fail_after(5):
            while not any(
                isinstance(n, types.LoggingMessageNotification) for n in host.notifications
            ):
                await anyio.lowlevel.checkpoint()
    logs = [n for n in host.notifications if isinstance(n, types.LoggingMessageNotification)]
    assert (first.levels, second.levels) == (["warning"], ["warning"])
    assert logs[0].params.logger == "alpha/feature"


async def test_progress_is_relayed_when_the_host_asks_for_it(tmp_path: Path) -> None:
    updates: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        updates.append(value)

    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        await host.client.call_tool("slow", {}, progress_callback=progress)
    assert updates == [1, 2, 3]


async def test_sampling_elicitation_and_roots_reach_the_host(tmp_path: Path) -> None:
    async def sampling(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="pong"), model="test"
        )

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": True})

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

    options = {
        "sampling_callback": sampling,
        "elicitation_callback": elicitation,
        "list_roots_callback": roots,
    }
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path, **options) as host:
        sampled = await host.raw("tools/call", {"name": "sample", "arguments": {}})
        elicited = await host.raw("tools/call", {"name": "elicit", "arguments": {}})
        rooted = await host.raw("tools/call", {"name": "roots", "arguments": {}})
    assert sampled["content"][0]["text"] == "model said: pong"
    assert elicited["content"][0]["text"] == "user: accept"
    assert rooted["content"][0]["text"] == "file:///work"


async def test_a_changed_tool_list_is_relisted_and_announced(tmp_path: Path) -> None:
    async with proxied({"solo": feature_server("solo", Seen())}, tmp_path) as host:
        await host.raw("tools/call", {"name": "grow", "arguments": {"text": "fresh_tool"}})
        with anyio.fail_after(5):
            await host.changed.wait()
        names = [t["name"] for t in (await host.raw("tools/list"))["tools"]]
    assert "fresh_tool" in names


async def test_the_servers_instructions_are_combined(tmp_path: Path) -> None:
    servers = {"alpha": feature_server("alpha", Seen()), "beta": feature_server("beta", Seen())}
    async with proxied(servers, tmp_path) as host:
        instructions = host.client.session.initialize_result.instructions  # type: ignore[union-attr]
    assert instructions == "[alpha] alpha instructions\n\n[beta] beta instructions"


async def host_is_alive(host: Host) -> bool:
    result = await host.raw("tools/call", {"name": "echo", "arguments": {"text": "still here"}})
    return bool(result["content"][0]["text"] == "still here")
