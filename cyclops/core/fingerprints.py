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
   boundaries around it. Every hit is verified against the kept text and extended to the whole
   copy; a copy shorter than ``min_fragment`` counts only inside a secret-like (high-entropy)
   token, where it is a piece of a secret, not a coincidence.
5. Private prose is fingerprinted as winnowed word shingles that hold uncommon words (any copy
   of ``shingle_words + shingle_window - 1`` words that holds one shares a kept one; which are
   kept is decided by unsalted word digests, the same in every process); short high-value
   values (codes, IBANs, card numbers) and untrusted locators and identifiers (hosts, e-mail
   addresses, handles, ``#633``, branch names) are indexed whole. Untrusted text is indexed
   by these alone (and, where it addressed the agent, by its steering values: a phone
   number): they are what it steers with.
6. A fingerprint found in more than ``max_sources_per_fingerprint`` results is boilerplate and
   is dropped for good.
7. Looking text up costs time proportional to the text, never to the number of results indexed.
8. Past ``max_fingerprints`` the oldest segments are evicted, and the count says so.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_not
from typing import TypeVar

from .distinctive import (
    identifiers,
    locators,
    plain_piece,
    secret_piece,
)
from .hits import Hit, HitKind
from .rules import ProvenanceSettings
from .shingles import private_shingles, shingle_keys, shingle_span
from .tokenfacts import TokenFacts
from .types import Label

__all__ = ["FingerprintIndex", "Segment"]

_K = TypeVar("_K", int, str)
_OFFSET_BITS = 24  # packed posting: segment id << 24 | offset
_OFFSET_MASK = (1 << _OFFSET_BITS) - 1
_PIECE_EDGES = " \t\r\n.,;:!?\"'()[]{}<>"


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
    ids: tuple[tuple[int, int], ...] = ()
    """Spans, after the indexed text, of the values its JSON held under opaque-id keys: never
    looked up (ids passed between calls link nothing), but counted in a leak of the text."""
    grams: array[int] = field(default_factory=lambda: array("q"))
    shingles: array[int] = field(default_factory=lambda: array("q"))
    exact: list[str] = field(default_factory=list)
    """The fingerprints this segment added, so that eviction can take them back."""

    @property
    def size(self) -> int:
        """Memory weight: fingerprints, plus the kept text at about 1/16 of a fingerprint."""
        return len(self.grams) + len(self.shingles) + len(self.exact) + len(self.text) // 16


class FingerprintIndex:
    def __init__(self, settings: ProvenanceSettings, max_fingerprints: int) -> None:
        self._s = settings
        self._max = max_fingerprints
        self._grams: dict[int, int | list[int]] = {}
        self._shingles: dict[int, int | list[int]] = {}
        self._exact: dict[str, int | list[int]] = {}
        self._boilerplate: set[int] = set()
        self._token_facts = TokenFacts(settings)
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
        *,
        family: int | None = None,
        ids: Iterable[str] = (),
        secrets: Iterable[str] = (),
    ) -> int:
        """Index canonical ``text`` from call ``call``; ``high_value`` are its normalised values.

        ``family`` is the id of the segment ``text`` is a decoded form of; ``ids`` (canonical)
        are kept after a private text, not indexed (see :attr:`Segment.ids`); ``secrets``
        (canonical) are values secret rules matched: secret-like wherever they are in ``text``,
        whatever their characters (``glpat-`` and twenty letters). Returns the new id.
        """
        sensitive = Label.SENSITIVE in labels
        seg_id = self._next_id
        self._next_id += 1
        family_id = seg_id if family is None else family
        if not sensitive:
            segment = Segment(seg_id, call, labels, "", secretish=[], family=family_id)
        else:
            # Only private text is kept: it is what copies are verified and measured against.
            facts = self._token_facts.of(text, secrets)
            kept, spans = _with_ids(text, ids)
            segment = Segment(seg_id, call, labels, kept, facts.secret_parts, family_id, spans)
            grams = self._post_all(
                self._grams, segment, facts.gram_keys, facts.gram_offsets, boilerplate=True
            )
            segment.grams.extend(grams)
            self._add_shingles(segment, text)
            for value in high_value:
                self._post_exact(value, segment)
        if Label.UNTRUSTED in labels:
            # What untrusted content steers with are whole tokens: an address, a URL, a path,
            # a command's words, a PR number, and the steering values it was given (a phone
            # number). They are indexed whole.
            tokens = locators(text) | identifiers(text)
            if not sensitive:  # a private text's values are posted above
                tokens.update(high_value)
            for token in tokens:
                self._post_exact(token, segment)
        if segment.size:
            self._segments[segment.id] = segment
            self._order.append(segment.id)
            self._size += segment.size
            self._evict()
        return seg_id

    def _add_shingles(self, seg: Segment, text: str) -> None:
        keys, starts = private_shingles(text, self._s)
        seg.shingles.extend(self._post_all(self._shingles, seg, keys, starts, boilerplate=False))

    def _post_all(
        self,
        table: dict[int, int | list[int]],
        seg: Segment,
        keys: list[int],
        offsets: list[int],
        *,
        boilerplate: bool,
    ) -> list[int]:
        """What :meth:`_post` does key by key, for a new segment's keys at once (each at its
        first offset); the keys it added. ``boilerplate``: keys dropped as boilerplate stay
        out."""
        base = seg.id << _OFFSET_BITS
        if offsets and max(offsets) > _OFFSET_MASK:
            offsets = [min(offset, _OFFSET_MASK) for offset in offsets]
        # Built backwards, so that each key keeps its first offset.
        first = dict(zip(keys[::-1], map(base.__or__, offsets[::-1]), strict=True))
        # Keys new to the table are added at once (in C); only keys already there need a look.
        # (set.difference looks each of its own items up in the other: O(len(first)).)
        absent = set(first).difference(table)
        present = first.keys() - absent
        fresh = absent.difference(self._boilerplate) if boilerplate else absent
        table.update(zip(fresh, map(first.__getitem__, fresh), strict=True))
        added = list(fresh)
        limit = self._s.max_sources_per_fingerprint
        for key in present:
            current = table[key]
            if isinstance(current, int):
                table[key] = [current, first[key]]
            elif len(current) < limit:
                current.append(first[key])
            else:
                del table[key]
                self._boilerplate.add(key)
                continue
            added.append(key)
        return added

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

    def piece(self, hit: Hit) -> str:
        """The private text a hit found (its value, for a high-value hit)."""
        if hit.kind is HitKind.HIGH_VALUE:
            return hit.value
        segment = self._segments.get(hit.segment)
        return segment.text[hit.start : hit.end].strip(_PIECE_EDGES) if segment is not None else ""

    # -- looking up -----------------------------------------------------------------------------

    def fragments(self, text: str, label: Label | None = None) -> Iterator[Hit]:
        """Hits for pieces of indexed results (only those labelled ``label``, if given) that
        canonical ``text`` carries."""
        k = self._s.kgram
        # Every k-gram, joined from k shifted copies of the text (twice as fast as slicing).
        grams = map("".join, zip(*[text[j:] for j in range(k)], strict=False))
        found = list(map(self._grams.get, map(hash, grams)))
        covered: dict[int, int] = {}  # segment -> query position up to which it is matched
        # segment -> diagonal, query end and secret part of the last copy that made no piece:
        # the k-grams further along that copy extend to the same copy, and make no piece either.
        refused: dict[int, tuple[int, int, tuple[int, int] | None]] = {}
        for i in compress(range(len(found)), map(is_not, found, repeat(None))):
            for posting in _postings(found[i]):
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is None or covered.get(seg.id, -1) > i:
                    continue
                if label is not None and label not in seg.labels:
                    continue
                offset = posting & _OFFSET_MASK
                secret = _span_around(seg.secretish, offset, offset + k)
                last = refused.get(seg.id)
                if last and last[0] == offset - i and i + k <= last[1] and last[2] == secret:
                    continue
                copy = _copy(seg.text, offset, text, i, k)
                if copy is None:
                    continue  # hash collision
                hit = self._piece(seg, copy[0], copy[1], secret, offset - i)
                if hit is None:
                    refused[seg.id] = (offset - i, copy[2], secret)
                else:
                    covered[seg.id] = i + (hit.end - hit.start) - k + 1
                    yield hit

    def _piece(
        self, seg: Segment, start: int, end: int, secret: tuple[int, int] | None, shift: int
    ) -> Hit | None:
        """The hit for a copy of ``seg.text[start:end]`` found by a k-gram inside ``secret``
        (a secret-like part), if the copy is a piece of data; ``shift``: where the source is
        ahead of the looked-up text along the copy."""
        source, reach = seg.text, (start, end)
        pieces = []
        if secret is not None:  # the part inside the secret-like token
            inside = max(start, secret[0]), min(end, secret[1])
            pieces.append(secret_piece(source, *inside, self._s.min_fragment))
        if secret is None or start < secret[0] or end > secret[1]:  # the copy as plain text
            pieces.append(plain_piece(source, start, end, self._s.min_fragment))
        found = [piece for piece in pieces if piece is not None]
        if not found:
            return None
        start, end = max(found, key=lambda piece: piece[1] - piece[0])
        kind = HitKind.FRAGMENT
        return Hit(seg.id, seg.call, seg.labels, kind, start, end, at=start - shift, reach=reach)

    def shingles(self, text: str) -> Iterator[Hit]:
        n = self._s.shingle_words
        for value in map(self._shingles.get, shingle_keys(text, n)):
            for posting in _postings(value):
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is not None:
                    span = shingle_span(seg.text, posting & _OFFSET_MASK, n)
                    yield Hit(seg.id, seg.call, seg.labels, HitKind.SHINGLE, *span)

    def exact(self, values: Iterable[str], kind: HitKind) -> Iterator[Hit]:
        """Hits for whole values (high-value tokens, locators) found in indexed results."""
        for value in values:
            for posting in _postings(self._exact.get(value)):
                seg = self._segments.get(posting >> _OFFSET_BITS)
                if seg is not None:
                    yield Hit(seg.id, seg.call, seg.labels, kind, value=value)


def _copy(source: str, offset: int, text: str, i: int, k: int) -> tuple[int, int, int] | None:
    """The whole copy around a k-gram found at ``offset`` in ``source`` and ``i`` in ``text``:
    its start and end in ``source`` (without surrounding whitespace) and its end in ``text``;
    None when the two k-grams differ (a hash collision)."""
    if source[offset : offset + k] != text[i : i + k]:
        return None
    start, q = offset, i
    while start > 0 and q > 0 and source[start - 1] == text[q - 1]:
        start, q = start - 1, q - 1
    end, q = offset + k, i + k
    while end < len(source) and q < len(text) and source[end] == text[q]:
        end, q = end + 1, q + 1
    query_end = q
    while start < end and source[start].isspace():
        start += 1
    while end > start and source[end - 1].isspace():
        end -= 1
    return start, end, query_end


def _postings(value: int | list[int] | None) -> list[int]:
    if value is None:
        return []
    return [value] if isinstance(value, int) else value


def _span_around(spans: list[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The one of the sorted, disjoint ``spans`` that [start, end) lies inside, if any."""
    i = bisect_right(spans, (start, _OFFSET_MASK)) - 1
    return spans[i] if i >= 0 and spans[i][0] <= start and end <= spans[i][1] else None


def _forget(table: dict[_K, int | list[int]], keys: Iterable[_K], seg_id: int) -> None:
    for key in keys:
        value = table.get(key)
        if value is None:
            continue
        kept = [p for p in _postings(value) if p >> _OFFSET_BITS != seg_id]
        if not kept:
            del table[key]
        else:
            table[key] = kept[0] if len(kept) == 1 else kept


def _with_ids(text: str, ids: Iterable[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` with ``ids`` after it, one per line, and their spans."""
    parts, spans, at = [text], [], len(text)
    for value in ids:
        parts.append("\n" + value)
        spans.append((at + 1, at + 1 + len(value)))
        at += 1 + len(value)
    return "".join(parts), tuple(spans)
