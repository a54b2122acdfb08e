"""Word shingles of private prose: which are fingerprinted, and the keys to look text up by.

Rules:

1. A shingle is ``shingle_words`` consecutive prose words; only those holding at least
   ``min_uncommon_words`` uncommon words are fingerprinted (common prose links nothing).
2. Of the fingerprinted shingles among every ``shingle_window`` consecutive shingles, the one
   with the least key is kept (winnowing by position): any copy of
   ``shingle_words + shingle_window - 1`` words that holds a fingerprinted shingle shares a kept
   one. Windows are counted in shingles of the text, fingerprinted or not, so that a short
   message among common prose (a chat line, a mail's body between headers) keeps a fingerprint
   of its own.
3. A key is the hash of the tuple of the shingle's word codes (unsalted digests): unlike the
   hash of a str it is the same in every process of a Python build, so a replay keeps the same
   shingles, and decides as the live session did.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import accumulate, compress, count, repeat
from operator import ge, sub

from .distinctive import prose_words, prose_words_at
from .rules import ProvenanceSettings
from .text import WORD, is_uncommon, word_code

__all__ = ["private_shingles", "shingle_keys", "shingle_span"]

_NO_KEY = 1 << 64  # above every hash: a position without a fingerprinted shingle


def private_shingles(text: str, settings: ProvenanceSettings) -> tuple[list[int], list[int]]:
    """The keys of the shingles of canonical ``text`` to fingerprint, and where each starts."""
    n, wanted = settings.shingle_words, settings.min_uncommon_words
    words, starts = prose_words_at(text)
    if len(words) < n:
        return [], []
    # How many of the n words from each position on are uncommon, from running totals.
    totals = list(accumulate(map(is_uncommon, words), initial=0))
    chosen = list(map(ge, map(sub, totals[n:], totals[:-n]), repeat(wanted)))
    keys = list(map(hash, compress(_shingles_of(words, n), chosen)))
    where = list(compress(starts, chosen))
    kept = _winnow(keys, list(compress(count(), chosen)), len(chosen), settings.shingle_window)
    return list(map(keys.__getitem__, kept)), list(map(where.__getitem__, kept))


def shingle_keys(text: str, n: int) -> Iterator[int]:
    """The key of every shingle of ``n`` words of canonical ``text``, to look it up by."""
    return map(hash, _shingles_of(prose_words(text), n))


def _shingles_of(words: list[str], n: int) -> Iterator[tuple[int, ...]]:
    """Every run of ``n`` consecutive words, as their codes; its hash is its key (the hash of
    a tuple of ints is the same in every process)."""
    codes = list(map(word_code, words))
    return zip(*[codes[i:] for i in range(n)], strict=False)


def _winnow(keys: list[int], positions: list[int], total: int, window: int) -> list[int]:
    """The indices into ``keys`` (at ``positions`` among ``total`` shingles) of the least key
    of every window of ``window`` consecutive positions that holds one, in order.

    Any run of ``window`` positions that holds a key keeps one of its keys, so a copy spanning
    that many shingles always shares one. The sliding minimum is taken with ``map(min, ...)``
    over shifted lists, with positions without a key above every key, so that the work stays
    in C.
    """
    if not keys:
        return []
    if window <= 1:
        return list(range(len(keys)))
    if total <= window:
        return [keys.index(min(keys))]
    spread = [_NO_KEY] * total
    deque(map(spread.__setitem__, positions, keys), maxlen=0)
    mins = set(map(min, *[spread[i:] for i in range(window)]))
    mins.discard(_NO_KEY)
    where = dict(zip(keys, range(len(keys)), strict=True))  # a repeated key: its last index
    return sorted(map(where.__getitem__, mins))


def shingle_span(text: str, start: int, n: int) -> tuple[int, int]:
    """The span of the ``n`` prose words of ``text`` from ``start`` (a kept shingle)."""
    end = start
    count = 0
    for match in WORD.finditer(text, start):
        if match.group().isalpha():
            end = match.end()
            count += 1
            if count == n:
                break
    return start, end
