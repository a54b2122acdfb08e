"""Small text measures shared by provenance and secret detection."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from hashlib import blake2b

from .commonwords import COMMON_WORDS

__all__ = [
    "WORD",
    "IntervalSet",
    "countable_chars",
    "entropy",
    "has_letters_and_digits",
    "is_common",
    "is_uncommon",
    "tokens",
    "word_code",
    "words",
]

# Tokens are what a copy keeps together: runs without whitespace, quotes or brackets. A URL's
# scheme is cut off so that every URL does not share "https://" with every other.
_TOKEN_BREAKS = "\"'`()[]{}<>,;|"
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]{1,15}://")
WORD = re.compile(r"[^\W_]+")


_SHORT = 64
# n * log2(n) and log2(n), the very floats the formula computes, for the lengths of most tokens.
_N_LOG2_N = [n * math.log2(n) if n else 0.0 for n in range(_SHORT + 1)]
_LOG2 = [math.log2(n) if n else 0.0 for n in range(_SHORT + 1)]


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    total = len(text)
    if not total:
        return 0.0
    if total <= _SHORT:
        # Counted in C, in order of first appearance as Counter does: the same sum, bit for bit.
        counts = map(text.count, dict.fromkeys(text))
        return _LOG2[total] - sum(map(_N_LOG2_N.__getitem__, counts)) / total
    return math.log2(total) - sum(n * math.log2(n) for n in Counter(text).values()) / total


def tokens(text: str, min_length: int = 1) -> list[tuple[int, int]]:
    """Spans of the tokens of ``text`` at least ``min_length`` long (a URL's scheme excluded)."""
    # str.replace and str.split cut the text in C, many times faster than a regex; only the
    # tokens long enough are then looked for, each after the one before.
    spaced = text
    for char in _TOKEN_BREAKS:
        if char in spaced:
            spaced = spaced.replace(char, " ")
    spans = []
    end = 0
    for token in spaced.split():
        if len(token) < min_length:
            continue
        start = spaced.find(token, end)
        end = start + len(token)
        if "://" in token and (scheme := _SCHEME.match(token)):
            if end - start - scheme.end() >= min_length:
                spans.append((start + scheme.end(), end))
        else:
            spans.append((start, end))
    return spans


def words(text: str) -> list[tuple[int, int]]:
    """Spans of the words (letter and digit runs) of ``text``."""
    return [m.span() for m in WORD.finditer(text)]


_SUFFIXES = ("ing", "ed", "es", "s", "ly", "er")


@lru_cache(maxsize=65536)
def is_common(word: str) -> bool:
    """Whether a (case-folded) word, or its plain stem, is a common English word."""
    if word in COMMON_WORDS:
        return True
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            # planned -> plan, moves -> move, notes -> note
            if stem in COMMON_WORDS or stem + "e" in COMMON_WORDS:
                return True
            if len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in COMMON_WORDS:
                return True
    return False


@lru_cache(maxsize=65536)
def is_uncommon(word: str) -> bool:
    """Whether a (case-folded) word counts in a shingle: longer than two letters, not common."""
    return len(word) > 2 and not is_common(word)


@lru_cache(maxsize=65536)
def word_code(word: str) -> int:
    """A 64-bit number for ``word``, the same in every process (``hash`` of a str is salted per
    process). Winnowing keeps fingerprints by their numbers: were they salted, a replay could
    keep other fingerprints, and decide otherwise, than the live session did."""
    return int.from_bytes(blake2b(word.encode(), digest_size=8).digest(), "big")


def has_letters_and_digits(text: str) -> bool:
    return any(map(str.isdigit, text)) and any(map(str.isalpha, text))


def countable_chars(text: str) -> int:
    """Characters that count as leaked: those of the whitespace-separated tokens that hold an
    uncommon word. ``password:``, ``-----BEGIN`` or ``the`` count nothing; ``sk_live_9yNm...``
    counts whole, common word inside and all."""
    return sum(
        len(token)
        for token in text.split()
        if any(not is_common(word.casefold()) for word in WORD.findall(token))
    )


class IntervalSet:
    """A union of half-open integer intervals."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        merged: list[tuple[int, int]] = []
        for start, end in sorted(s for s in spans if s[1] > s[0]):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self._spans = merged

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._spans)

    def covers(self, start: int, end: int) -> bool:
        """Whether the intervals hold all of [start, end)."""
        return not self.outside(start, end)

    def outside(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of [start, end) that no interval holds."""
        parts = []
        for a, b in self._spans:
            if b <= start or a >= end:
                continue
            if a > start:
                parts.append((start, a))
            start = max(start, b)
        if start < end:
            parts.append((start, end))
        return parts

    def union(self, other: Iterable[tuple[int, int]]) -> IntervalSet:
        return IntervalSet([*self._spans, *other])

    def count(self, text: str) -> int:
        """Countable characters of ``text`` inside the intervals (see :func:`countable_chars`).
        A token an interval cuts is judged whole when it mixes letters and digits (a host, a
        key, an id) or is an e-mail address: ``.example`` cut off
        ``vorzanqu-6289.int.acme.example`` or ``ada.oyelaran@proton.example`` counts; ``is``
        cut off ``isframe(object):`` does not."""
        return sum(countable_chars(text[a:b]) + _cut_off(text, a, b) for a, b in self._spans)


_CONTEXT = 256
"""Characters looked at on each side of an interval for the token it cuts (a longer token is
judged by that much of it)."""
_ADDRESS = re.compile(r"[^\W_][\w.+-]*@[^\W_][\w-]*\.[^\W_]")
"""An e-mail address in a token: its domain cut off it is a piece of the address."""


def _cut_off(text: str, start: int, end: int) -> int:
    """What :func:`countable_chars` leaves out of ``text[start:end]`` that counts: the part of
    a token of letters and digits the interval cuts, when that part alone is common words."""
    left = start > 0 and not text[start - 1].isspace()  # the interval begins inside a token
    right = end < len(text) and not text[end].isspace()  # it ends inside one
    space = text.find(" ", start, end)
    if space < 0:  # inside one token
        return _missed(text, start, text[start:end]) if left or right else 0
    extra = _missed(text, start, text[start:space]) if left else 0
    if right:
        extra += _missed(text, end - 1, text[text.rfind(" ", start, end) + 1 : end])
    return extra


def _missed(text: str, i: int, part: str) -> int:
    """``part``'s length if it alone counts nothing but the token around ``i`` mixes letters
    and digits or is an e-mail address; else 0."""
    if not part.strip() or countable_chars(part):
        return 0
    at = text.rfind(" ", max(0, i - _CONTEXT), i)
    first = at + 1 if at >= 0 else max(0, i - _CONTEXT)
    at = text.find(" ", i, i + _CONTEXT)
    token = text[first : at if at >= 0 else i + _CONTEXT]
    whole = has_letters_and_digits(token) or ("@" in token and _ADDRESS.search(token))
    return len(part.strip()) if whole else 0
