"""Small text measures shared by provenance and secret detection."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

from .commonwords import COMMON_WORDS

__all__ = ["WORD", "countable_chars", "entropy", "is_common", "tokens", "words"]

# Tokens are what a copy keeps together: runs without whitespace, quotes or brackets. A URL's
# scheme is cut off so that every URL does not share "https://" with every other.
_TOKEN_CHARS = r"""[^\s"'`()\[\]{}<>,;|]"""
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]{1,15}://")
WORD = re.compile(r"[^\W_]+")


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    if not text:
        return 0.0
    total = len(text)
    return math.log2(total) - sum(n * math.log2(n) for n in Counter(text).values()) / total


@lru_cache(maxsize=8)
def _token_regex(min_length: int) -> re.Pattern[str]:
    # A fixed-width lower bound keeps the scan linear and skips short words in C.
    return re.compile(f"{_TOKEN_CHARS}{{{max(1, min_length)},}}")


def tokens(text: str, min_length: int = 1) -> Iterator[tuple[int, int]]:
    """Spans of the tokens of ``text`` at least ``min_length`` long (a URL's scheme excluded)."""
    for match in _token_regex(min_length).finditer(text):
        start, end = match.span()
        scheme = _SCHEME.match(text, start, end)
        if scheme:
            start = scheme.end()
        if end - start >= min_length:
            yield start, end


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


def countable_chars(text: str) -> int:
    """Characters that count as leaked: those of the whitespace-separated tokens that hold an
    uncommon word. ``password:``, ``-----BEGIN`` or ``the`` count nothing; ``sk_live_9yNm...``
    counts whole, common word inside and all."""
    return sum(
        len(token)
        for token in text.split()
        if any(not is_common(word.casefold()) for word in WORD.findall(token))
    )
