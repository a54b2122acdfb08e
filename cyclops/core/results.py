"""Turning an MCP result (or a recorded one) into the text pieces detection reads."""

from __future__ import annotations

import ast
import base64
import binascii
import csv
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice
from typing import Any

from .tables import table_cells
from .types import JSON, ToolResult

__all__ = ["holds_value", "holds_value_under", "insiders_only", "json_objects", "to_tool_result"]

_MAX_DEPTH = 64
_MAX_FIELDS_TEXT = 65536  # a message's fields are short; past this much, the rest is left out
_MAX_JSON_TEXT = 8 * 1024 * 1024
_MAX_LITERAL_TEXT = 64 * 1024  # Python's parser is about 20 times slower than json's
# A record's values (a ticker, a quantity, a name): short, and not too many of them.
_MAX_VALUE = 48
_MAX_VALUES = 256
_TEXT_MIME = ("text/", "application/json", "application/xml", "application/yaml", "application/x-")

IsKey = Callable[[str], bool]


def _no_key(_: str) -> bool:
    return False


@dataclass(frozen=True)
class _Keys:
    opaque: IsKey = _no_key
    private: IsKey = _no_key


@dataclass(frozen=True)
class Piece:
    """A text of a result; the values under opaque-id keys its JSON held (not in the text);
    and those under private-value keys (in the text too)."""

    text: str
    ids: tuple[str, ...] = ()
    private: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    document: JSON = None
    """The JSON object or array the text was walked from, if it was one (a Python literal's
    too: it is read the same way)."""


def to_tool_result(
    result: JSON, is_opaque_key: IsKey = _no_key, is_private_key: IsKey = _no_key
) -> ToolResult:
    """A string, or an MCP ``CallToolResult``/``ReadResourceResult``/``GetPromptResult`` as
    JSON, to a ToolResult.

    Text blocks, embedded resources (text, or blobs with a textual MIME type), resource links
    and structured content are read; images and audio are not text and are skipped. Text that
    is itself JSON is walked, so that values under opaque-id keys (``id``, ``sha``...) stay out
    of the text (they are kept aside, see :attr:`ToolResult.ids`), and values under
    private-value keys (``card_number``, ``passport_number``...) are noted
    (:attr:`ToolResult.private`).
    """
    keys = _Keys(is_opaque_key, is_private_key)
    if result is None:
        return ToolResult()
    if isinstance(result, str):
        return _tool_result(_text_pieces(result, keys), fields=_fields_of_text(result))
    if not isinstance(result, Mapping):
        return _tool_result([_walked(result, keys)])
    pieces: list[Piece] = []
    blocks = list(_blocks(result))
    for block in blocks:
        pieces.extend(_block_texts(block, keys))
    structured = result.get("structuredContent", result.get("structured_content"))
    if structured is not None:
        pieces.append(_walked(structured, keys))
    fields = _fields(structured) if isinstance(structured, Mapping) else _fields_of_blocks(blocks)
    return _tool_result(pieces, bool(result.get("isError", result.get("is_error"))), fields)


def _tool_result(
    pieces: Iterable[Piece], is_error: bool = False, fields: tuple[tuple[str, str], ...] = ()
) -> ToolResult:
    # Servers often return the same text twice (a text block and structuredContent): once.
    ids: dict[str, tuple[str, ...]] = {}
    private: dict[str, tuple[str, ...]] = {}
    values: dict[str, tuple[str, ...]] = {}
    documents = []
    loose = False
    for piece in pieces:
        if piece.document is not None:
            documents.append(piece.document)
        elif piece.text:
            loose = True
        if piece.text:
            ids[piece.text] = tuple(dict.fromkeys((*ids.get(piece.text, ()), *piece.ids)))
            both = (*private.get(piece.text, ()), *piece.private)
            private[piece.text] = tuple(dict.fromkeys(both))
            values[piece.text] = tuple(dict.fromkeys((*values.get(piece.text, ()), *piece.values)))
    return ToolResult(
        tuple(ids), is_error, _per_text(ids), fields, _per_text(private), _per_text(values),
        tuple(documents), bool(documents) and not loose,
    )  # fmt: skip


def _per_text(found: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    return tuple(found.values()) if any(found.values()) else ()


def _fields_of_blocks(blocks: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The fields of the only text block, if it is a JSON object."""
    texts = [b["text"] for b in blocks if isinstance(b.get("text"), str)]
    return _fields_of_text(texts[0]) if len(texts) == 1 else ()


def _fields_of_text(text: str) -> tuple[tuple[str, str], ...]:
    """The fields of a JSON object, of the only object of a JSON list, or of the only row of
    a CSV table under its header (one row, as SQL servers print it)."""
    parsed = _parsed(text)
    if isinstance(parsed, list) and len(parsed) == 1:
        parsed = parsed[0]
    if isinstance(parsed, Mapping):
        return _fields(parsed)
    return _csv_row(text) if parsed is None else ()


_CSV_HEADER = re.compile(r"[A-Za-z_][\w.]{0,63}(?:,[A-Za-z_][\w.]{0,63})+")
_MAX_CSV = 4096


def _csv_row(text: str) -> tuple[tuple[str, str], ...]:
    """``name,email\nAda,ada@x.example``: its one row under the header's names."""
    lines = text.strip().splitlines()
    if len(lines) != 2 or len(text) > _MAX_CSV or not _CSV_HEADER.fullmatch(lines[0].strip()):
        return ()
    names = lines[0].strip().split(",")
    values = next(csv.reader([lines[1]]), [])
    if len(values) != len(names):
        return ()
    return tuple((name, json.dumps(value)) for name, value in zip(names, values, strict=True))


def _fields(obj: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Top-level keys whose values are strings, or lists and objects of strings two deep at
    most (an address, a list of them, ``{"name": ..., "email": ...}``, flags and numbers beside
    them: ``{"email": ..., "self": true}``), with the values as JSON;
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
    if depth < 2 and (value is None or isinstance(value, bool | int | float)):
        return True  # a flag beside an address (``{"email": ..., "self": true}``)
    if depth == 0 or not isinstance(value, list | Mapping):
        return False
    items = value.values() if isinstance(value, Mapping) else value
    return all(_plain(item, depth - 1) for item in items)


def _blocks(result: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for key in ("content", "contents"):  # tools/call, resources/read
        blocks = result.get(key)
        if isinstance(blocks, list):
            yield from (b for b in blocks if isinstance(b, Mapping))
    messages = result.get("messages")  # prompts/get: one content block per message
    if isinstance(messages, list):
        found = (m.get("content") for m in messages if isinstance(m, Mapping))
        yield from (b for b in found if isinstance(b, Mapping))


def _block_texts(block: Mapping[str, Any], keys: _Keys) -> Iterator[Piece]:
    kind = block.get("type")
    if isinstance(block.get("text"), str):
        yield from _text_pieces(block["text"], keys)
    elif isinstance(block.get("blob"), str) and _is_textual(block.get("mimeType")):
        yield from _text_pieces(_decode_blob(block["blob"]), keys)
    if kind == "resource" and isinstance(block.get("resource"), Mapping):
        yield from _block_texts(block["resource"], keys)
    if kind == "resource_link":
        yield from (Piece(str(block[k])) for k in ("uri", "name", "description") if block.get(k))


def _is_textual(mime: object) -> bool:
    return isinstance(mime, str) and mime.startswith(_TEXT_MIME)


def _decode_blob(blob: str) -> str:
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def _text_pieces(text: str, keys: _Keys) -> Iterator[Piece]:
    parsed = _parsed(text)
    if isinstance(parsed, dict | list):
        yield _walked(parsed, keys)
        return
    literal = _python_literal(text)
    if literal is not None:
        # Such results key entries by data (``{'Le Marais Boutique': 'Rating: 4.2'}``): keys
        # that are no field's name stay in the text, as they were before it was parsed.
        yield _walked(literal, keys, with_keys=True)
        return
    cells = (cell for cell in table_cells(text) if len(cell) <= _MAX_VALUE)
    if keys.private is _no_key and keys.opaque is _no_key:
        yield Piece(text, values=tuple(dict.fromkeys(islice(cells, _MAX_VALUES))))
        return
    lines = _KeyedLines(keys)
    text = lines.read(text)
    ids, private = tuple(dict.fromkeys(lines.ids)), tuple(dict.fromkeys(lines.private))
    values = islice(chain(lines.values, cells), _MAX_VALUES)
    yield Piece(text, ids, private, tuple(dict.fromkeys(values)))


_MAX_KEY = 40
_MAX_ID = 128


class _KeyedLines:
    """The values of ``key: value`` lines (YAML-like, as many servers print a record; a list
    item's ``- key: value`` too), unquoted: under a private-value key, noted (``private``);
    under an opaque-id key and one token (``ID: 1963f1a2b3c4d5e6``), taken out of the text and
    kept apart (``ids``), as a JSON record's are; every short one, a record's value
    (``values``)."""

    def __init__(self, keys: _Keys) -> None:
        self.keys = keys
        self.ids: list[str] = []
        self.private: list[str] = []
        self.values: list[str] = []

    def read(self, text: str) -> str:
        """``text`` without the ids of its lines."""
        lines = text.splitlines(keepends=True)
        kept = [self._line(line) for line in lines]
        return text if kept == lines else "".join(kept)

    def _line(self, line: str) -> str:
        colon = line.find(":", 0, _MAX_KEY + 4)  # a key is short: prose is skipped early
        if colon <= 0:
            return line
        key = line[:colon].strip().removeprefix("- ").strip()
        if not key or key.count(" ") > 3:
            return line
        value = line[colon + 1 :].strip().strip("'\"").strip()
        if not value:
            return line
        if len(value) <= _MAX_VALUE:
            self.values.append(value)
        if self.keys.private(key):
            self.private.append(value)
        elif len(value) <= _MAX_ID and value.split() == [value] and self.keys.opaque(key):
            self.ids.append(value)
            return line[: colon + 1] + line[len(line.rstrip("\r\n")) :]
        return line


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


def _python_literal(text: str) -> JSON:
    """A dict or list written as a Python literal (the ``repr`` some servers and toolkits print
    their results as: ``{'tweet': {'content': '...'}}``; no names, no calls: ``literal_eval``
    evaluates nothing), of at most ``_MAX_LITERAL_TEXT`` characters; else None."""
    if text.lstrip()[:1] not in ("{", "[") or len(text) > _MAX_LITERAL_TEXT or "'" not in text:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


class _Walk:
    """The strings of a JSON value (and its keys that are no identifier, ``with_keys``), one
    per line; those under opaque-id keys apart (``ids``), those under private-value keys noted
    as well (``private``); and every short one, ids included (``values``)."""

    def __init__(self, keys: _Keys, with_keys: bool = False) -> None:
        self.keys = keys
        self.with_keys = with_keys
        self.ids: list[str] = []
        self.private: list[str] = []
        self.values: list[str] = []

    def strings(self, value: JSON, depth: int = 0, under_private: bool = False) -> Iterator[str]:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            if under_private:
                self.private.append(str(value))
            if len(self.values) < _MAX_VALUES and len(str(value)) <= _MAX_VALUE:
                self.values.append(str(value))
            yield str(value)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if self.keys.opaque(str(key)):
                    ids = list(_Walk(_Keys()).strings(item, depth + 1))  # all of it is the id
                    self.ids.extend(ids)
                    self.values.extend(v for v in ids if len(v) <= _MAX_VALUE)
                    continue
                if self.with_keys and not str(key).isidentifier():
                    yield str(key)  # data, not a field's name: ``{'Le Marais Boutique': 4.2}``
                private = under_private or self.keys.private(str(key))
                yield from self.strings(item, depth + 1, private)
        elif isinstance(value, list | tuple):
            for item in value:
                yield from self.strings(item, depth + 1, under_private)


def _walked(value: JSON, keys: _Keys, *, with_keys: bool = False) -> Piece:
    walk = _Walk(keys, with_keys)
    text = "\n".join(walk.strings(value))
    ids, private = tuple(dict.fromkeys(walk.ids)), tuple(dict.fromkeys(walk.private))
    document = value if isinstance(value, dict | list) else None
    return Piece(text, ids, private, tuple(dict.fromkeys(walk.values[:_MAX_VALUES])), document)


def json_objects(document: JSON) -> Iterator[Mapping[str, Any]]:
    """Every JSON object in ``document`` (as parsed: see ``ToolResult.documents``), down to
    ``_MAX_DEPTH`` levels."""
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(value, Mapping):
            yield value
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list | tuple):
            stack.extend((item, depth + 1) for item in value)


def holds_value_under(documents: Iterable[JSON], is_key: IsKey) -> bool:
    """Whether an object of the JSON ``documents`` holds a value under a key ``is_key``
    accepts (see :func:`holds_value`)."""
    return any(
        holds_value(record, is_key) for document in documents for record in json_objects(document)
    )


def holds_value(record: Mapping[str, JSON], is_key: IsKey) -> bool:
    """Whether a JSON object holds a value (a string that is not blank, a number) under a key
    ``is_key`` accepts."""
    return any(is_key(str(key)) and _filled(value) for key, value in record.items())


def insiders_only(result: ToolResult, insiders: Mapping[str, frozenset[str]]) -> bool:
    """Whether a result is JSON throughout that names its authors, each an insider by
    ``insiders`` (key: the values of an insider; see ``Patterns.insiders``)."""
    if not insiders or not result.json_only:
        return False
    said = [
        str(record[key]).upper() in values
        for document in result.documents
        for record in json_objects(document)
        for key, values in insiders.items()
        if key in record
    ]
    return bool(said) and all(said)


def _filled(value: JSON) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, int | float) and not isinstance(value, bool)
