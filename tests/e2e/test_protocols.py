"""Both protocol generations hosts speak: a 2026-07-28 host (no handshake, ``server/discover``)
through cyclops, over stdio and HTTP, in front of server-everything (spoken to with the
handshake protocol)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from e2e_support import (
    PYTHON,
    everything_entry,
    http_cyclops,
    serve_args,
    write_downstream,
)
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"


@asynccontextmanager
async def modern_client(front: str, tmp_path: Path) -> AsyncIterator[Client]:
    downstream = write_downstream(tmp_path / "downstream.toml", [everything_entry()])
    args = serve_args(downstream, tmp_path / "verdicts", extra=["--no-pins"])
    if front == "stdio":
        async with Client(StdioServerParameters(command=PYTHON, args=args), cache=None) as client:
            yield client
        return
    async with http_cyclops(args, tmp_path) as cyclops:
        headers = {"Authorization": f"Bearer {cyclops.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(cyclops.url, http_client=http), cache=None) as client,
        ):
            yield client


@pytest.mark.parametrize("front", ["stdio", "http"])
async def test_a_2026_host_lists_calls_reads_and_gets_prompts_through_cyclops(
    tmp_path: Path, front: str
) -> None:
    with anyio.fail_after(60):
        async with modern_client(front, tmp_path) as client:
            assert client.protocol_version == MODERN
            tools = {t.name for t in (await client.list_tools()).tools}
            assert "echo" in tools
            echoed = await client.call_tool("echo", {"message": "through cyclops"})
            assert echoed.is_error is not True
            assert "through cyclops" in echoed.content[0].text  # type: ignore[union-attr]
            resources = (await client.list_resources()).resources
            assert resources
            read = await client.read_resource(str(resources[0].uri))
            assert read.contents
            prompts = (await client.list_prompts()).prompts
            assert prompts
            simple = next(p for p in prompts if not p.arguments)
            assert (await client.get_prompt(simple.name)).messages
