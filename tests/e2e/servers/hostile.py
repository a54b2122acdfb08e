"""A downstream that answers with hostile content, for cyclops's bad-input tests.

``python hostile.py`` serves over stdio (results are raw JSON, so any shape can be sent):

- ``read_blob(kind, size, depth)`` returns ``kind`` of content: ``text`` (``size`` characters of
  prose), ``image`` and ``audio`` (``size`` random bytes, base64), ``binary`` (a resource blob
  of random bytes, and one that claims to be text but is not UTF-8), ``nested`` (structured
  content and a JSON text ``depth`` levels deep), ``deep_text`` (a text of ``depth`` opening
  brackets), ``bomb`` (base64 of a gzip stream that inflates to ``size`` bytes), ``layers``
  (a phrase base64-encoded ``depth`` times), ``hostile`` (runs that make backtracking regexes
  explode, ``size`` characters each).
- ``send_message(url, text)`` "posts" the text and says how many characters it got (an egress
  tool: any server's ``send_*`` is one).
- ``ping`` answers ``pong``.

The content is generated in the server, so a 50 MB result costs the test nothing to send.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pydoc_data.topics
import zlib
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PROSE = "\n".join(pydoc_data.topics.topics.values())
PHRASE = "the quarterly numbers are in the usual place"


def prose(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def gzip_bomb(size: int) -> bytes:
    """A gzip stream of ``size`` (a multiple of 1 MiB) zero bytes, 1,000 times smaller: the same
    1 MiB deflate block (after a full flush it never refers back), repeated. The trailer's CRC
    is left zero: a reader that stops at a budget never gets there."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    body = block * (size >> 20) + compressor.flush(zlib.Z_FINISH)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + body + bytes(4) + (size & 0xFFFFFFFF).to_bytes(4, "little")


def layered(text: str, depth: int) -> str:
    for _ in range(depth):
        text = base64.b64encode(text.encode()).decode()
    return text


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": [value]}
    return value


HOSTILE_RUNS = ("-", "a-", "=", "%25", "\\u", "a.", "a@", "ab:", "\u200b", "QUFB", "1 ")


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def blob(kind: str, size: int, depth: int) -> dict[str, Any]:
    if kind == "text":
        return {"content": [text_block(prose(size))]}
    if kind in ("image", "audio"):
        data = base64.b64encode(os.urandom(size)).decode()
        mime = "image/png" if kind == "image" else "audio/wav"
        block = {"type": kind, "data": data, "mimeType": mime}
        return {"content": [text_block("a picture"), block]}
    if kind == "binary":
        data = base64.b64encode(os.urandom(size)).decode()
        not_utf8 = base64.b64encode(b"\xff\xfe\x00\x80" * (size // 4)).decode()
        resources = [
            {"uri": "file:///blob.bin", "mimeType": "application/octet-stream", "blob": data},
            {"uri": "file:///blob.txt", "mimeType": "text/plain", "blob": not_utf8},
        ]
        return {"content": [{"type": "resource", "resource": r} for r in resources]}
    if kind == "nested":
        leaf = {"note": PHRASE}
        return {
            "content": [text_block(json.dumps(nested(depth, leaf)))],
            "structuredContent": nested(depth, leaf),
        }
    if kind == "deep_text":
        return {"content": [text_block("[" * depth)]}
    if kind == "bomb":
        return {"content": [text_block(base64.b64encode(gzip_bomb(size)).decode())]}
    if kind == "layers":
        return {"content": [text_block(layered(PHRASE, depth))]}
    if kind == "hostile":
        return {"content": [text_block(run * (size // len(run)) + "1aB!") for run in HOSTILE_RUNS]}
    raise ValueError(f"unknown kind {kind!r}")


TOOLS = [
    {
        "name": "read_blob",
        "description": "Return content of a given kind and size.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "kind": {"type": "string"},
                "size": {"type": "integer"},
                "depth": {"type": "integer"},
            },
        },
    },
    {
        "name": "send_message",
        "description": "Post a message to a webhook URL.",
        "inputSchema": {
            "type": "object",
            "properties": {"url": {"type": "string"}, "text": {"type": "string"}},
        },
    },
    {"name": "ping", "description": "Answer pong.", "inputSchema": {"type": "object"}},
]


async def list_tools(ctx: Any, params: Any) -> dict[str, Any]:
    return {"tools": TOOLS}


async def call_tool(ctx: Any, params: Any) -> dict[str, Any]:
    raw = dict(ctx.params or {})
    arguments = raw.get("arguments") or {}
    name = raw.get("name")
    if name == "read_blob":
        kind = str(arguments.get("kind", "text"))
        return blob(kind, int(arguments.get("size", 0)), int(arguments.get("depth", 0)))
    if name == "send_message":
        text = arguments.get("text")
        length = len(text) if isinstance(text, str) else len(json.dumps(text))
        return {"content": [text_block(f"posted {length} characters")]}
    return {"content": [text_block("pong")]}


def make_server() -> Server[Any]:
    server: Server[Any] = Server("e2e-hostile", version="1")
    server.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    return server


async def serve_stdio() -> None:
    server = make_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_http(port: int) -> None:
    import uvicorn  # noqa: PLC0415 - only the HTTP mode needs it (stdio starts faster)

    app = make_server().streamable_http_app(host="127.0.0.1", json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, help="serve Streamable HTTP on this port")
    port = parser.parse_args().http
    if port:
        serve_http(port)
    else:
        anyio.run(serve_stdio)
