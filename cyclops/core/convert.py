"""Converters from a patterns.toml value to its compiled form, refusing what cannot compile.

Each takes the :class:`~cyclops.core.tomlreader.TableReader` the value sits in, so that a refusal
names the file, the key, the value and the fix.
"""

from __future__ import annotations

import re
from typing import Any

from .checks import CHECKS, Check
from .regex import GlobSet, PathGlob, PathGlobSet, RegexError, SafeRegex
from .tomlreader import TableReader
from .types import Label

__all__ = [
    "check", "field_names", "field_paths", "globs", "labels", "marked_regexes", "path_globs",
    "regex", "regexes", "words",
]  # fmt: skip

_LABELS = [label.value for label in Label]
_FIELD_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_FIELD_PATH = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}(?:\.[A-Za-z][A-Za-z0-9_-]{0,63}){0,7}")
_WORD = re.compile(r"[a-z]+")


def regex(reader: TableReader, key: str, pattern: str) -> SafeRegex:
    try:
        return SafeRegex(pattern)
    except RegexError as exc:
        reader.fail(
            key, pattern, str(exc), "write an RE2 regex (no look-arounds or back-references)"
        )


def regexes(reader: TableReader, key: str) -> tuple[SafeRegex, ...]:
    return tuple(regex(reader, key, p) for p in reader.strings(key, ()))


def marked_regexes(
    reader: TableReader, key: str, group: str, example: str
) -> tuple[SafeRegex, ...]:
    """Regexes that each mark what they find with a group named ``group`` (``example``: one
    that does, for the fix)."""
    found = regexes(reader, key)
    for one in found:
        if not one.marks(group):
            reader.fail(key, one.pattern, f"no group named {group}", f"mark it, as in '{example}'")
    return found


def globs(reader: TableReader, key: str, default: tuple[str, ...] = ()) -> GlobSet:
    try:
        return GlobSet(reader.strings(key, default))
    except RegexError as exc:
        reader.fail(key, reader.strings(key, default), f"bad glob: {exc}", "check [ ] pairs")


def path_globs(reader: TableReader, key: str) -> PathGlobSet:
    try:
        return PathGlobSet(tuple(PathGlob(g) for g in reader.strings(key, ())))
    except RegexError as exc:
        reader.fail(key, reader.strings(key, ()), f"bad path glob: {exc}", "check [ ] pairs")


def labels(reader: TableReader, key: str, value: Any | None = None) -> frozenset[Label]:
    """The labels listed under ``key`` (or ``value``, when the caller already holds it)."""
    items = reader.strings(key) if value is None else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        reader.fail(key, items, "expected a list of labels", f"use a list of: {', '.join(_LABELS)}")
    for item in items:
        if item not in _LABELS:
            reader.fail(key, item, "unknown label", f"use one of: {', '.join(_LABELS)}")
    return frozenset(Label(i) for i in items)


def check(reader: TableReader) -> Check | None:
    name = reader.string("check", None, choices=sorted(CHECKS))
    return CHECKS[name] if name is not None else None


def field_names(reader: TableReader, key: str) -> tuple[str, ...]:
    """Header or JSON field names (``to``, ``attendees``), case-folded."""
    names = reader.strings(key, ())
    for name in names:
        if not _FIELD_NAME.fullmatch(name):
            reader.fail(key, name, "not a header field name", "use letters, digits, - and _")
    return tuple(name.casefold() for name in names)


def field_paths(reader: TableReader, key: str) -> tuple[str, ...]:
    """JSON field names, or dotted paths to nested fields (``via.source.from.address``),
    case-folded."""
    names = reader.strings(key, ())
    for name in names:
        if not _FIELD_PATH.fullmatch(name):
            fix = "use letters, digits, - and _, and dots between nested names"
            reader.fail(key, name, "not a field name or a dotted path", fix)
    return tuple(name.casefold() for name in names)


def words(reader: TableReader, key: str, example: str = "send") -> frozenset[str]:
    """A list of lower-case words (verbs, a name's words): nothing else, or the fix names one."""
    found = reader.strings(key, [])
    for word in found:
        if not _WORD.fullmatch(word):
            reader.fail(key, word, "not one lower-case word", f'write words such as "{example}"')
    return frozenset(found)
