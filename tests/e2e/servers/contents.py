"""A downstream whose one tool, ``media``, returns an audio block (server-everything has none), an
image, annotations, structured content and ``_meta`` at every level: all of it must reach the
host through cyclops untouched."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

WAV = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt e2e-audio-bytes").decode()
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\ne2e-image-bytes").decode()

RESULT: dict[str, Any] = {
    "content": [
        {"type": "text", "text": "a clip and a picture", "_meta": {"e2e/block": 1}},
        {
            "type": "audio",
            "data": WAV,
            "mimeType": "audio/wav",
            "annotations": {"audience": ["user"], "priority": 0.5},
        },
        {"type": "image", "data": PNG, "mimeType": "image/png"},
    ],
    "structuredContent": {"seconds": 1.5, "tags": ["e2e", "audio"]},
    "isError": False,
    "_meta": {"e2e/result": {"nested": [1, 2, 3]}},
}

TOOL: dict[str, Any] = {
    "name": "media",
    "title": "Media",
    "description": "Return an audio clip and a picture.",
    "inputSchema": {"type": "object", "properties": {}},
    "outputSchema": {
        "type": "object",
        "properties": {"seconds": {"type": "number"}, "tags": {"type": "array"}},
        "required": ["seconds"],
    },
    "annotations": {"readOnlyHint": True, "openWorldHint": False},
    "_meta": {"e2e/tool": "media"},
}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult.model_validate({"tools": [TOOL]})


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult.model_validate(RESULT)


async def main() -> None:
    server: Server[Any] = Server(
        "e2e-contents", version="1", on_list_tools=list_tools, on_call_tool=call_tool
    )
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
