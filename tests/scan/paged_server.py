"""A stdio MCP server that lists its 25 tools ten to a page (``nextCursor``), for the scan's
live listing: every page must be read."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE = 10
TOOLS = [
    {"name": f"send_{i:02d}", "inputSchema": {"type": "object", "properties": {}}}
    for i in range(25)
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    page: dict[str, Any] = {"tools": TOOLS[start : start + PAGE]}
    if start + PAGE < len(TOOLS):
        page["nextCursor"] = str(start + PAGE)
    return types.ListToolsResult.model_validate(page)


async def main() -> None:
    server: Server[Any] = Server("paged", version="1", on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
