"""The fingerprint index: which earlier results does a piece of text carry pieces of?

Rules of the index:

1. Only labelled results are indexed (untrusted or sensitive content); nothing else can make a
   flow, and content copied through unlabelled calls still matches its labelled origin.
2. Text is compared in canonical form (NFKC, invisible characters stripped, confusables mapped,
   case folded).
3. Only *distinctive* tokens are fingerprinted: long enough, varied enough (entropy), made of
   more than one kind of character, not an opaque id, not made of common words. Ordinary words
   shared by a web page and an e-mail never link them.
4. Sensitive text is fingerprinted at every position (k-grams with k = ``kgram``), so a copied
   fragment as short as k characters is found and measured exactly, whatever the token
   boundaries around it. Untrusted text is winnowed: any copy of ``kgram + window - 1``
   characters is found, at a fraction of the memory. Every hit is verified against the kept
   text and extended to the whole copy; a copy shorter than ``min_fragment`` counts only inside
   a secret-like (high-entropy) token, where it is a piece of a secret, not a coincidence.
5. Private prose is fingerprinted as word shingles that hold uncommon words; short high-value
   values (codes, IBANs, card numbers) and untrusted locators and identifiers (hosts, e-mail
   addresses, handles, ``#633``, branch names) are indexed whole.
6. A fingerprint found in more than ``max_sources_per_fingerprint`` results is boilerplate and
   is dropped for good.
7. Looking text up costs time proportional to the text, never to the number of results indexed.
8. Past ``max_fingerprints`` the oldest segments are evicted, and the count says so.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import accumulate
from typing import TypeVar

from .patterns import ProvenanceSettings
from .text import WORD, entropy, is_common, tokens
from .types import Label

__all__ = ["FingerprintIndex", "Hit", "HitKind", "Segment", "identifier", "identifiers", "locators"]

_K = TypeVar("_K", int, str)
_OFFSET_BITS = 24  # packed posting: segment id << 24 | offset
_OFFSET_MASK = (1 << _OFFSET_BITS) - 1

_DIGIT = re.compile(r"\d")
_MAX_LOCATOR = 320
_DOMAIN = re.compile(r"(?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24}")
_EMAIL = re.compile(r"[a-z0-9._%+-]{1,64}@((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24})")
_HANDLE = re.compile(r"[@#][a-z0-9_][a-z0-9_.-]{2,40}")


class HitKind(StrEnum):
    FRAGMENT = "fragment"
    SHINGLE = "shingle"
    LOCATOR = "locator"
    HIGH_VALUE = "high_value"


@dataclass
class Segment:
    """One indexed piece of a result (a text block, a string in structured content...)."""

    id: int
    call: int
    labels: frozenset[Label]
    text: str
    """Canonical text: matches are verified and measured against it."""
    secretish: list[tuple[int, int]]
    """Spans of secret-like tokens (random-looking): the only place a copy shorter than
    ``min_fragment`` counts."""
    family: int
    """The segment this one is a decoded form of (itself for text as it came): leaked bytes
    count once per family, whichever forms carried them."""
    grams: array[int] = field(default_factory=lambda: array("q"))
    shingles: array[int] = field(default_factory=lambda: array("q"))
    exact: list[str] = field(default_factory=list)
    """The fingerprints this segment added, so that eviction can take them back."""

    @property
    def size(self) -> int:
        """Memory weight: fingerprints, plus the kept text at about 1/16 of a fingerprint."""
        return len(self.grams) + len(self.shingles) + len(self.exact) + len(self.text) // 16


@dataclass(frozen=True)
class Hit:
    segment: int
    call: int
    labels: frozenset[Label]
    kind: HitKind
    start: int = 0
    end: int = 0
    """The span of the segment's text that the looked-up text carries (sensitive segments)."""
    value: str = ""
    """For high-value and locator hits: the matched value (kept in memory, never reported)."""


def locators(text: str) -> set[str]:
    """Hosts, domains, e-mail addresses and @handles/#channels named in canonical text."""
    found: set[str] = set()
    for piece in text.split():
        if len(piece) > _MAX_LOCATOR or not ("." in piece or "@" in piece or "#" in piece):
            continue
        for token in _LOCATOR_SPLIT.split(piece):
            found.update(_locators_in(token.strip(".:!?*")))
    return {loc for loc in found if _distinctive_locator(loc)}


_LOCATOR_SPLIT = re.compile(r"[\"'`()\[\]{}<>,;|=&]")


def _locators_in(token: str) -> Iterator[str]:
    if "://" in token:
        host = token.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
        if _DOMAIN.fullmatch(host):
            yield host
        return
    email = _EMAIL.fullmatch(token)
    if email:
        yield token
        yield email.group(1)
    elif _HANDLE.fullmatch(token):
        yield token
    else:
        host = token.split("/", 1)[0]
        if _DOMAIN.fullmatch(host):
            yield host


def _distinctive_locator(locator: str) -> bool:
    return any(not is_common(w) for w in WORD.findall(locator))


_EDGE_PUNCTUATION = ".,;:!?()[]{}<>\"'`*"
_INNER_SYMBOLS = frozenset("-_/.:@")


def identifier(value: str) -> str | None:
    """A short value as an identifier worth matching whole (``PR-633``, ``#633``, a branch, an
    IBAN), or None: at least 3 characters, with a digit or an inner symbol, not a common word."""
    token = value.strip().strip(_EDGE_PUNCTUATION).lstrip("#@")
    if not 3 <= len(token) <= 128 or any(c.isspace() for c in token):
        return None
    if not (any(c.isdigit() for c in token) or _INNER_SYMBOLS.intersection(token)):
        return None
    return None if is_common(token) else token


_IDENTIFIER_HINT = re.compile(r"[0-9/_.:@-]")


def identifiers(text: str) -> set[str]:
    """Every identifier among the whitespace-separated words of canonical ``text``."""
    hint = _IDENTIFIER_HINT.search
    candidates = {word for word in text.split() if hint(word)}
    return {token for token in map(identifier, candidates) if token is not None}


class FingerprintIndex:
    def __init__(self, settings: ProvenanceSettings, max_fingerprints: int) -> None:
        self._s = settings
        self._max = max_fingerprints
        self._grams: dict[int, int | list[int]] = {}
        self._shingles: dict[int, int | list[int]] = {}
        self._exact: dict[str, int | list[int]] = {}
        self._boilerplate: set[int] = set()
        self._segments: dict[int, Segment] = {}
        self._order: deque[int] = deque()
        self._size = 0
        self._next_id = 0
        self.evicted_segments = 0

    # -- adding ---------------------------------------------------------------------------------

    def add(
        self,
        call: int,
        labels: frozenset[Label],
        text: str,
        high_value: Iterable[str],
        family: int | None = None,
    ) -> int:
        """Index canonical ``text`` from call ``call``; ``high_value`` are its normalised values.

        ``family`` is the id of the segment ``text`` is a decoded form of. Returns the new id.
        """
        sensitive = Label.SENSITIVE in labels
        seg_id = self._next_id
        self._next_id += 1
        found = list(self._distinctive_tokens(text)) if sensitive else []
        spans = [(a, b) for a, b, _ in found]
        secretish = [
            part
            for a, b, _ in found
            for part in _value_parts(text, a, b)
            if _mixed(text[part[0] : part[1]])
            and entropy(text[part[0] : part[1]]) >= self._s.secret_entropy
        ]
        family_id = seg_id if family is None else family
        # Only private text is kept: it is what copies are verified and measured against.
        kept = text if sensitive else ""
        segment = Segment(seg_id, call, labels, kept, secretish=secretish, family=family_id)
        if sensitive:
            self._add_grams(segment, text, spans, window=1)
            self._add_shingles(segment, text)
            for value in high_value:
                self._post_exact(value, segment)
        if Label.UNTRUSTED in labels:
            # What untrusted content steers with are whole tokens: an address, a URL, a path,
            # a command's words, a PR number. They are indexed whole.
            for token in locators(text) | identifiers(text):
                self._post_exact(token, segment)
        if segment.size:
            self._segments[segment.id] = segment
            self._order.append(segment.id)
            self._size += segment.size
            self._evict()
        return seg_id

    def _distinctive_tokens(self, text: str) -> list[tuple[int, int, float]]:
        """Start, end and entropy of every distinctive token of ``text``."""
        s = self._s
        found = []
        for start, end in tokens(text, s.min_token_length):
            token = text[start:end]
            if token.isalpha():
                continue  # one plain word, however long, is not distinctive
            if not _DIGIT.search(token) and all(is_common(w) for w in WORD.findall(token)):
                continue
            bits = entropy(token)
            if bits >= s.min_token_entropy:
                found.append((start, end, bits))
        return self._without_opaque(text, found)

    def _without_opaque(
        self, text: str, found: list[tuple[int, int, float]]
    ) -> list[tuple[int, int, float]]:
        """``found`` minus the opaque ids, checked in one pass (one token per line)."""
        opaque = self._s.opaque_id
        if opaque is None or not found:
            return found
        joined = "\n".join(text[a:b] for a, b, _ in found)
        starts = list(accumulate((b - a + 1 for a, b, _ in found), initial=0))
        hit = {bisect_right(starts, start) - 1 for start, _ in opaque.spans(joined)}
        return [token for i, token in enumerate(found) if i not in hit]

    def _add_grams(
        self, seg: Segment, text: str, spans: list[tuple[int, int]], window: int
    ) -> None:
        grams, boilerplate, added = self._grams, self._boilerplate, seg.grams
        base = seg.id << _OFFSET_BITS
        for start, end in spans:
            for offset, key in self._token_grams(seg, text, start, end, window):
                if key in grams:
                    if self._post(grams, key, seg, offset):
                        added.append(key)
                elif key not in boilerplate:  # the common case, inlined: a new fingerprint
                    grams[key] = base | min(offset, _OFFSET_MASK)
                    added.append(key)

    def _token_grams(
        self, seg: Segment, text: str, start: int, end: int, window: int
    ) -> list[tuple[int, int]]:
        """(offset, hash) of the k-grams of one token worth keeping."""
        k = self._s.kgram
        positions = range(start, end - k + 1)
        if window > 1:
            return [
                (start + i, h)
                for i, h in _winnow([hash(text[p : p + k]) for p in positions], window)
            ]
        if _within(seg.secretish, start, end):
            return [(p, hash(text[p : p + k])) for p in positions]
        # Inside an identifier (``object.__getitem__``) a k-gram of letters only is a piece of
        # an ordinary word; a copy of the identifier is found by the k-grams across its symbols.
        return [(p, hash(g)) for p in positions if not (g := text[p : p + k]).isalpha()]

    def _add_shingles(self, seg: Segment, text: str) -> None:
        """Winnowed shingles of ``shingle_words`` words holding enough uncommon ones: any copy
        of ``shingle_words + shingle_window - 1`` words shares one."""
        n, wanted = self._s.shingle_words, self._s.min_uncommon_words
        spans = _prose_words(text)
        words = [text[a:b] for a, b in spans]
        uncommon = [len(w) > 2 and not is_common(w) for w in words]
        keys: list[int] = []
        starts: list[int] = []
        running = sum(uncommon[: n - 1])
        for i in range(len(words) - n + 1):
            running += uncommon[i + n - 1]
            if running >= wanted:
                keys.append(hash(tuple(words[i : i + n])))
                starts.append(spans[i][0])
            running -= uncommon[i]
        table, added = self._shingles, seg.shingles
        for offset, key in _winnow(keys, self._s.shingle_window):
            if key in table:
                if self._post(table, key, seg, starts[offset]):
                    added.append(key)
            else:
                table[key] = seg.id << _OFFSET_BITS | min(starts[offset], _OFFSET_MASK)
                added.append(key)

    def _post_exact(self, value: str, seg: Segment) -> None:
        if value not in seg.exact and self._post(self._exact, value, seg, 0):
            seg.exact.append(value)

    def _post(self, table: dict[_K, int | list[int]], key: _K, seg: Segment, offset: int) -> bool:
        """Add a posting; False when it was not added (already there, or boilerplate).

        Segments are added in order, so this segment's posting, if any, is the last one.
        """
        posting = seg.id << _OFFSET_BITS | min(offset, _OFFSET_MASK)
        current = table.get(key)
        if current is None:
            table[key] = posting
            return True
        if isinstance(current, int):
            if current >> _OFFSET_BITS == seg.id:
                return False
            table[key] = [current, posting]
            return True
        if current[-1] >> _OFFSET_BITS == seg.id:
            return False
        if len(current) >= self._s.max_sources_per_fingerprint:
            del table[key]
            if isinstance(key, int):
                self._boilerplate.add(key)
            return False
        current.append(posting)
        return True

    # -- eviction -------------------------------------------------------------------------------

    def _evict(self) -> None:
        while self._size > self._max and self._order:
            seg = self._segments.pop(self._order.popleft())
            self._size -= seg.size
            self.evicted_segments += 1
            _forget(self._grams, seg.grams, seg.id)
            _forget(self._shingles, seg.shingles, seg.id)
            _forget(self._exact, seg.exact, seg.id)

    @property
    def size(self) -> int:
        return self._size

    def segment(self, seg_id: int) -> Segment | None:
        return self._segments.get(seg_id)

    # -- looking up -----------------------------------------------------------------------------

    def fragments(self, text: str) -> Iterator[Hit]:
        """Hits for pieces of indexed results that canonical ``text`` carries."""
        k = self._s.kgram
        covered: dict[int, int] = {}  # segment -> query position up to which it is matched
        for i in range(len(text) - k + 1):
            value = self._grams.get(hash(text[i : i + k]))
            if value is None:
                continue
            for posting in [value] if isinstance(value, int) else value:
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is None or covered.get(seg.id, -1) > i:
                    continue
                hit = self._extend(seg, posting & _OFFSET_MASK, text, i, k)
                if hit is not None:
                    covered[seg.id] = i + (hit.end - hit.start) - k + 1
                    yield hit

    def _extend(self, seg: Segment, offset: int, text: str, i: int, k: int) -> Hit | None:
        source = seg.text
        if source[offset : offset + k] != text[i : i + k]:
            return None  # hash collision
        start, q = offset, i
        while start > 0 and q > 0 and source[start - 1] == text[q - 1]:
            start, q = start - 1, q - 1
        end, q = offset + k, i + k
        while end < len(source) and q < len(text) and source[end] == text[q]:
            end, q = end + 1, q + 1
        while start < end and source[start].isspace():
            start += 1
        while end > start and source[end - 1].isspace():
            end -= 1
        if _within(seg.secretish, start, end):
            # A piece of a secret-like token counts as cut, however short, if it is no word.
            if end - start < self._s.min_fragment and _whole_word(source, start, end):
                return None
        else:
            start, end = _trim_partial_words(source, start, end)
            if end - start < self._s.min_fragment or _wordy(source, start, end):
                return None  # words in common ("on sequence", "research") are no copied data
        return Hit(seg.id, seg.call, seg.labels, HitKind.FRAGMENT, start, end)

    def shingles(self, text: str) -> Iterator[Hit]:
        n = self._s.shingle_words
        words = [text[a:b] for a, b in _prose_words(text)]
        for i in range(len(words) - n + 1):
            value = self._shingles.get(hash(tuple(words[i : i + n])))
            if value is None:
                continue
            for posting in [value] if isinstance(value, int) else value:
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is not None:
                    span = _shingle_span(seg.text, posting & _OFFSET_MASK, n)
                    yield Hit(seg.id, seg.call, seg.labels, HitKind.SHINGLE, *span)

    def exact(self, values: Iterable[str], kind: HitKind) -> Iterator[Hit]:
        """Hits for whole values (high-value tokens, locators) found in indexed results."""
        for value in values:
            found = self._exact.get(value)
            if found is None:
                continue
            for posting in [found] if isinstance(found, int) else found:
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is not None:
                    yield Hit(seg.id, seg.call, seg.labels, kind, value=value)


def _winnow(hashes: list[int], window: int) -> list[tuple[int, int]]:
    """(offset, hash) of the minimum of every window of ``window`` consecutive hashes.

    Any run of ``window`` k-grams keeps at least one fingerprint, so a copy of
    ``kgram + window - 1`` characters always shares one. The sliding minimum is built by
    doubling with ``map(min, ...)`` so that the work stays in C.
    """
    if window <= 1:
        return list(enumerate(hashes))
    if len(hashes) <= window:
        return [(hashes.index(min(hashes)), min(hashes))] if hashes else []
    mins, size = hashes, 1
    while size * 2 <= window:
        mins = list(map(min, mins, mins[size:]))
        size *= 2
    if size < window:
        mins = list(map(min, mins, mins[window - size :]))
    where = dict(zip(hashes, range(len(hashes)), strict=True))
    return sorted((where[h], h) for h in set(mins))


_LONG_WORDY = 24


def _trim_partial_words(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span that starts or ends inside a word of ``text`` to whole words, and drop
    what is not a letter or digit at its ends (``quence on sequen`` → ``on``). Only words of
    letters are trimmed: a cut through ``de3276668260918...`` is a piece of a number."""
    if start > 0 and text[start - 1].isalpha():
        while start < end and text[start].isalpha():
            start += 1
    if end < len(text) and text[end].isalpha():
        while end > start and text[end - 1].isalpha():
            end -= 1
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


def _wordy(text: str, start: int, end: int) -> bool:
    """Letters and spaces only, and short: a few words any two texts may share."""
    return end - start < _LONG_WORDY and all(c.isalpha() or c.isspace() for c in text[start:end])


def _whole_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is letters only and a whole word of ``text``."""
    return (
        (start == 0 or not text[start - 1].isalpha())
        and (end == len(text) or not text[end].isalpha())
        and text[start:end].isalpha()
    )


_STRUCTURE = re.compile(r"[=:/,;]+")


def _value_parts(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The parts of a token between structural separators: ``region=eu-west-1`` is a key and a
    value, ``host:5432:db:user:pw`` five fields; each is judged on its own."""
    position = start
    for separator in _STRUCTURE.finditer(text, start, end):
        if separator.start() > position:
            yield position, separator.start()
        position = separator.end()
    if end > position:
        yield position, end


def _mixed(token: str) -> bool:
    """Random-looking, as keys, passwords, codes and IBANs are; words, names and identifiers
    (``collections.abc``, ``object.__getattr__``) are not. Either the kind of character
    (letter, digit, symbol; ``_.-`` count as letters) switches three times or more, or there
    are at least four digits among letters."""
    runs = _KIND_RUNS.findall(token)
    if len(runs) >= 4:  # three switches
        return True
    digits = sum(len(r) for r in runs if r[0].isdigit())
    return digits >= 4 and sum(1 for c in token if c.isalpha()) >= 2


# Runs of one kind of character: digits, letters (with ``_.-``), anything else.
_KIND_RUNS = re.compile(r"[0-9]+|(?:[^\W0-9]|[.-])+|[^\w.-]+")


def _within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) lies inside one of the sorted, disjoint ``spans``."""
    i = bisect_right(spans, (start, _OFFSET_MASK)) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


_LETTERS = re.compile(r"(?<![^\W_])[^\W\d_]+(?![^\W_])")


def _prose_words(text: str) -> list[tuple[int, int]]:
    """Spans of the words made of letters only: ids and numbers are the k-grams' business."""
    return [m.span() for m in _LETTERS.finditer(text)]


def _shingle_span(text: str, start: int, n: int) -> tuple[int, int]:
    end = start
    count = 0
    for match in WORD.finditer(text, start):
        if match.group().isalpha():
            end = match.end()
            count += 1
            if count == n:
                break
    return start, end


def _forget(table: dict[_K, int | list[int]], keys: Iterable[_K], seg_id: int) -> None:
    for key in keys:
        value = table.get(key)
        if value is None:
            continue
        kept = [
            p for p in ([value] if isinstance(value, int) else value) if p >> _OFFSET_BITS != seg_id
        ]
        if not kept:
            del table[key]
        else:
            table[key] = kept[0] if len(kept) == 1 else kept
