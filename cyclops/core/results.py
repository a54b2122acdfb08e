"""Turning an MCP result (or a recorded one) into the text pieces detection reads."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from .types import JSON, ToolResult

__all__ = ["to_tool_result"]

_MAX_DEPTH = 64
_MAX_FIELDS_TEXT = 65536  # a message's fields are short; past this much, the rest is left out
_MAX_JSON_TEXT = 8 * 1024 * 1024
_TEXT_MIME = ("text/", "application/json", "application/xml", "application/yaml", "application/x-")

IsOpaqueKey = Callable[[str], bool]


Piece = tuple[str, tuple[str, ...]]
"""A text of a result, and the values under opaque-id keys its JSON held."""


def to_tool_result(result: JSON, is_opaque_key: IsOpaqueKey = lambda _: False) -> ToolResult:
    """A string, or an MCP ``CallToolResult``/``ReadResourceResult`` as JSON, to a ToolResult.

    Text blocks, embedded resources (text, or blobs with a textual MIME type), resource links
    and structured content are read; images and audio are not text and are skipped. Text that
    is itself JSON is walked, so that values under opaque-id keys (``id``, ``sha``...) stay out
    of the text (they are kept aside, see :attr:`ToolResult.ids`).
    """
    if result is None:
        return ToolResult()
    if isinstance(result, str):
        return _tool_result(_text_pieces(result, is_opaque_key), fields=_fields_of_text(result))
    if not isinstance(result, Mapping):
        return _tool_result([_walked(result, is_opaque_key)])
    pieces: list[Piece] = []
    blocks = list(_blocks(result))
    for block in blocks:
        pieces.extend(_block_texts(block, is_opaque_key))
    structured = result.get("structuredContent", result.get("structured_content"))
    if structured is not None:
        pieces.append(_walked(structured, is_opaque_key))
    fields = _fields(structured) if isinstance(structured, Mapping) else _fields_of_blocks(blocks)
    return _tool_result(pieces, bool(result.get("isError", result.get("is_error"))), fields)


def _tool_result(
    pieces: Iterable[Piece], is_error: bool = False, fields: tuple[tuple[str, str], ...] = ()
) -> ToolResult:
    # Servers often return the same text twice (a text block and structuredContent): once.
    merged: dict[str, tuple[str, ...]] = {}
    for text, ids in pieces:
        if text:
            merged[text] = tuple(dict.fromkeys((*merged.get(text, ()), *ids)))
    per_text = tuple(merged.values()) if any(merged.values()) else ()
    return ToolResult(tuple(merged), is_error, per_text, fields)


def _fields_of_blocks(blocks: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The fields of the only text block, if it is a JSON object."""
    texts = [b["text"] for b in blocks if isinstance(b.get("text"), str)]
    return _fields_of_text(texts[0]) if len(texts) == 1 else ()


def _fields_of_text(text: str) -> tuple[tuple[str, str], ...]:
    parsed = _parsed(text)
    return _fields(parsed) if isinstance(parsed, Mapping) else ()


def _fields(obj: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Top-level keys whose values are strings, or lists and objects of strings two deep at
    most (an address, a list of them, ``{"name": ..., "email": ...}``), with the values as JSON;
    up to ``_MAX_FIELDS_TEXT`` characters in all (every structured result passes here)."""
    found, size = [], 0
    for key, value in obj.items():
        if _plain(value, 2):
            written = json.dumps(value)
            size += len(written)
            if size > _MAX_FIELDS_TEXT:
                break
            found.append((str(key), written))
    return tuple(found)


def _plain(value: object, depth: int) -> bool:
    if isinstance(value, str):
        return True
    if depth == 0 or not isinstance(value, list | Mapping):
        return False
    items = value.values() if isinstance(value, Mapping) else value
    return all(_plain(item, depth - 1) for item in items)


def _blocks(result: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for key in ("content", "contents"):  # tools/call, resources/read
        blocks = result.get(key)
        if isinstance(blocks, list):
            yield from (b for b in blocks if isinstance(b, Mapping))


def _block_texts(block: Mapping[str, Any], is_opaque_key: IsOpaqueKey) -> Iterator[Piece]:
    kind = block.get("type")
    if isinstance(block.get("text"), str):
        yield from _text_pieces(block["text"], is_opaque_key)
    elif isinstance(block.get("blob"), str) and _is_textual(block.get("mimeType")):
        yield from _text_pieces(_decode_blob(block["blob"]), is_opaque_key)
    if kind == "resource" and isinstance(block.get("resource"), Mapping):
        yield from _block_texts(block["resource"], is_opaque_key)
    if kind == "resource_link":
        yield from ((str(block[k]), ()) for k in ("uri", "name", "description") if block.get(k))


def _is_textual(mime: object) -> bool:
    return isinstance(mime, str) and mime.startswith(_TEXT_MIME)


def _decode_blob(blob: str) -> str:
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def _text_pieces(text: str, is_opaque_key: IsOpaqueKey) -> Iterator[Piece]:
    parsed = _parsed(text)
    if isinstance(parsed, dict | list):
        yield _walked(parsed, is_opaque_key)
        return
    yield text, ()


@lru_cache(maxsize=1)  # the text's pieces and its fields are read one after the other
def _parsed(text: str) -> JSON:
    """``text`` as JSON when it is an object or an array, else None (also when it is too deep
    to parse: then it is read as text). Shared: never changed by its readers."""
    if text.lstrip()[:1] not in ("{", "[") or len(text) > _MAX_JSON_TEXT:
        return None
    try:
        parsed: JSON = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return parsed


def _walked(value: JSON, is_opaque_key: IsOpaqueKey) -> Piece:
    """The strings of JSON ``value``, one per line, and those under opaque-id keys apart."""
    ids: list[str] = []
    text = "\n".join(_strings(value, is_opaque_key, 0, ids))
    return text, tuple(dict.fromkeys(ids))


def _strings(value: JSON, is_opaque_key: IsOpaqueKey, depth: int, ids: list[str]) -> Iterator[str]:
    """The strings of ``value``; those under opaque-id keys go to ``ids`` instead."""
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
            if is_opaque_key(str(key)):
                ids.extend(_strings(item, _no_key, depth + 1, ids))  # all of it is the id
            else:
                yield from _strings(item, is_opaque_key, depth + 1, ids)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, is_opaque_key, depth + 1, ids)


def _no_key(_: str) -> bool:
    return False
