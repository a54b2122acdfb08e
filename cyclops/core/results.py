"""Turning an MCP result (or a recorded one) into the text pieces detection reads."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .types import JSON, ToolResult

__all__ = ["to_tool_result"]

_MAX_DEPTH = 64
_TEXT_MIME = ("text/", "application/json", "application/xml", "application/yaml", "application/x-")

IsOpaqueKey = Callable[[str], bool]


def to_tool_result(result: JSON, is_opaque_key: IsOpaqueKey = lambda _: False) -> ToolResult:
    """A string, or an MCP ``CallToolResult``/``ReadResourceResult`` as JSON, to a ToolResult.

    Text blocks, embedded resources (text, or blobs with a textual MIME type), resource links
    and structured content are read; images and audio are not text and are skipped. Text that
    is itself JSON is walked, so that values under opaque-id keys (``id``, ``sha``...) stay out.
    """
    if result is None:
        return ToolResult()
    if isinstance(result, str):
        return ToolResult(tuple(_text_pieces(result, is_opaque_key)))
    if not isinstance(result, Mapping):
        return ToolResult(("\n".join(_strings(result, is_opaque_key, 0)),))
    texts: list[str] = []
    for block in _blocks(result):
        texts.extend(_block_texts(block, is_opaque_key))
    structured = result.get("structuredContent", result.get("structured_content"))
    if structured is not None:
        texts.append("\n".join(_strings(structured, is_opaque_key, 0)))
    # Servers often return the same text twice (a text block and structuredContent): once.
    unique = tuple(dict.fromkeys(t for t in texts if t))
    return ToolResult(unique, bool(result.get("isError", result.get("is_error"))))


def _blocks(result: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for key in ("content", "contents"):  # tools/call, resources/read
        blocks = result.get(key)
        if isinstance(blocks, list):
            yield from (b for b in blocks if isinstance(b, Mapping))


def _block_texts(block: Mapping[str, Any], is_opaque_key: IsOpaqueKey) -> Iterator[str]:
    kind = block.get("type")
    if isinstance(block.get("text"), str):
        yield from _text_pieces(block["text"], is_opaque_key)
    elif isinstance(block.get("blob"), str) and _is_textual(block.get("mimeType")):
        yield from _text_pieces(_decode_blob(block["blob"]), is_opaque_key)
    if kind == "resource" and isinstance(block.get("resource"), Mapping):
        yield from _block_texts(block["resource"], is_opaque_key)
    if kind == "resource_link":
        yield from (str(block[k]) for k in ("uri", "name", "description") if block.get(k))


def _is_textual(mime: object) -> bool:
    return isinstance(mime, str) and mime.startswith(_TEXT_MIME)


def _decode_blob(blob: str) -> str:
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def _text_pieces(text: str, is_opaque_key: IsOpaqueKey) -> Iterator[str]:
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[") and len(text) <= 8 * 1024 * 1024:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):  # too deep to parse: read it as text
            parsed = None
        if isinstance(parsed, dict | list):
            yield "\n".join(_strings(parsed, is_opaque_key, 0))
            return
    yield text


def _strings(value: JSON, is_opaque_key: IsOpaqueKey, depth: int) -> Iterator[str]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        yield str(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not is_opaque_key(str(key)):
                yield from _strings(item, is_opaque_key, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, is_opaque_key, depth + 1)
