"""JSON with comments (VS Code's ``mcp.json`` allows ``//``, ``/* */`` and trailing commas), read
so that a program can replace one member's value and leave every other byte as it was.

:func:`blank_comments` turns comments and trailing commas into spaces — the text keeps its length,
so an offset into it is an offset into the original — and :func:`top_members` finds where each
top-level member's value starts and ends. Pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["JsoncError", "Member", "blank_comments", "indent_unit", "line_indent", "top_members"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n\ufeff"


class JsoncError(ValueError):
    def __init__(self, problem: str, offset: int, text: str) -> None:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"{problem} at line {line}, column {column}")
        self.problem = problem
        self.line = line


@dataclass(frozen=True)
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    value: Any


def blank_comments(text: str) -> str:
    """The text with comments and trailing commas replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JsoncError("unterminated /* comment", i, text)
            for j in range(i, end + 2):
                if text[j] != "\n":
                    out[j] = " "
            i = end + 2
        else:
            i += 1
    blanked = "".join(out)
    return _blank_trailing_commas(blanked)


def _blank_trailing_commas(text: str) -> str:
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if c == ",":
            j = i + 1
            while j < n and text[j] in _SPACE:
                j += 1
            if j < n and text[j] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """The offset just past the string literal that opens at ``start``."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    raise JsoncError("unterminated string", start, text)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def top_members(blanked: str) -> list[Member]:
    """The members of the top-level object of a text from :func:`blank_comments`."""
    i = _skip(blanked, 0)
    if i >= len(blanked) or blanked[i] != "{":
        raise JsoncError("expected a JSON object", i, blanked)
    members: list[Member] = []
    i = _skip(blanked, i + 1)
    if i < len(blanked) and blanked[i] == "}":
        return _only_space_after(blanked, i + 1, members)
    while True:
        key_start = i
        try:
            key, i = _DECODER.raw_decode(blanked, i)
        except json.JSONDecodeError as exc:
            raise JsoncError(f"bad JSON ({exc.msg})", exc.pos, blanked) from None
        if not isinstance(key, str):
            raise JsoncError("expected a member name", key_start, blanked)
        i = _skip(blanked, i)
        if i >= len(blanked) or blanked[i] != ":":
            raise JsoncError("expected ':'", i, blanked)
        value_start = _skip(blanked, i + 1)
        try:
            value, end = _DECODER.raw_decode(blanked, value_start)
        except json.JSONDecodeError as exc:
            raise JsoncError(f"bad JSON ({exc.msg})", exc.pos, blanked) from None
        members.append(Member(key, key_start, value_start, end, value))
        i = _skip(blanked, end)
        if i < len(blanked) and blanked[i] == ",":
            i = _skip(blanked, i + 1)
            continue
        if i < len(blanked) and blanked[i] == "}":
            return _only_space_after(blanked, i + 1, members)
        raise JsoncError("expected ',' or '}'", i, blanked)


def _only_space_after(blanked: str, i: int, members: list[Member]) -> list[Member]:
    rest = _skip(blanked, i)
    if rest != len(blanked):
        raise JsoncError("text after the JSON object", rest, blanked)
    return members


def line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line ``offset`` is on."""
    start = text.rfind("\n", 0, offset) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def indent_unit(text: str, start: int, end: int, base: str) -> str | None:
    """The indentation step used inside ``text[start:end]`` beyond ``base`` (None: one line)."""
    inner = text[start:end]
    if "\n" not in inner:
        return None
    for line in inner.split("\n")[1:]:
        stripped = line.lstrip(" \t")
        lead = line[: len(line) - len(stripped)]
        if stripped and lead.startswith(base) and len(lead) > len(base):
            return lead[len(base) :]
    return "  "
