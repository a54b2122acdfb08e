from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server.lowlevel import Server

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns
from cyclops.proxy.config import DownstreamConfig, ServerConfig, Transport
from cyclops.proxy.downstream import RawRequest, RawResult
from cyclops.proxy.run import ServeOptions, serve
from cyclops.proxy.server import Tap
from cyclops.testing import in_process


@dataclass
class Host:
    """The host side of a proxied session: an in-process client and what reached it."""

    client: Client
    tap: Tap
    notifications: list[Any] = field(default_factory=list)
    changed: anyio.Event = field(default_factory=anyio.Event)

    async def raw(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.session.send_request(
            RawRequest(method=method, params=params), RawResult
        )
        return result.root


ToolFn = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def tools_server(
    name: str, tools: dict[str, ToolFn], descriptions: dict[str, str] | None = None
) -> Server[Any]:
    """A minimal server whose tools are the given async functions of their arguments."""
    described = descriptions or {}

    async def list_tools(ctx: Any, params: Any) -> dict[str, Any]:
        listed = [{"name": t, "inputSchema": {"type": "object"}} for t in tools]
        for tool in listed:
            if tool["name"] in described:
                tool["description"] = described[tool["name"]]
        return {"tools": listed}

    async def call_tool(ctx: Any, params: Any) -> dict[str, Any]:
        raw = dict(ctx.params or {})
        return await tools[raw["name"]](raw.get("arguments") or {})

    server: Server[Any] = Server(name, version="1")
    server.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    return server


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


@asynccontextmanager
async def proxied(
    servers: dict[str, Server[Any]],
    tmp_path: Path,
    mode: Mode = Mode.PREVENT,
    *,
    patterns: Patterns | None = None,
    pins_dir: Path | None = None,
    ask_timeout: float = 10.0,
    client_mode: str = "legacy",
    **client_options: Any,
) -> AsyncIterator[Host]:
    """cyclops in front of in-process servers, with an in-process host client."""
    started = anyio.Event()
    done = anyio.Event()
    hosts: list[Host] = []

    async def front(server: Server[Any], tap: Tap) -> None:
        notifications: list[Any] = []
        changed = anyio.Event()

        async def on_message(message: Any) -> None:
            notifications.append(message)
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with Client(
            server, mode=client_mode, cache=None, message_handler=on_message, **client_options
        ) as client:
            hosts.append(Host(client, tap, notifications, changed))
            started.set()
            await done.wait()

    options = ServeOptions(
        downstream=DownstreamConfig(
            "<test>", tuple(ServerConfig(n, Transport.STDIO, command="in-process") for n in servers)
        ),
        patterns=patterns or load_patterns(),
        mode=mode,
        verdicts=str(tmp_path / "verdicts" / "{session}.json"),
        record=tmp_path / "trace.jsonl",
        startup_timeout=10,
        connectors={name: in_process(server) for name, server in servers.items()},
        pins_dir=pins_dir,
        ask_timeout=ask_timeout,
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(serve, options, front)
        with anyio.fail_after(15):
            await started.wait()
        try:
            yield hosts[0]
        finally:
            done.set()


def verdicts(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((tmp_path / "verdicts").glob("*.json"))]
