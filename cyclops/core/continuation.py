"""Pieces too short to link alone that continue what a destination already received.

A secret cut into pieces (``cust_897`` / ``94 | Przybylski | Folasade |`` / ...) has pieces
that no fingerprint finds: names are plain words, dates are opaque ids, a tail may be two
letters. What gives them away is where they sit in the private text: right after a piece the
same destination already got.

Rules (texts in matchable form: case folded, separators one space):

1. An *anchor* is the end of a span of a private text that the call carries (a hit), or that
   the latest call to the same destination that carried any delivered: pieces are sent one
   after another, and looking back one call keeps the cost of a call its own.
2. A piece of the call's text *continues* an anchor when it is the private text's next
   characters (after a space, or else after any separator) as long as they agree, holds at
   least ``min_length`` letters or digits, and starts and stops at token boundaries of the
   call's text (or its ends). It may stop inside a word of the private text: a piece is cut
   off anywhere. Such pieces only add to a leak that linked pieces make (see :mod:`.leak`):
   a coincidence never makes a result leak to a destination.
3. A continuation is an anchor in turn: the next piece may continue it. A character of the
   call's text belongs to one continuation at most (anchors are taken in order).
4. Cost: per anchor, the places of the call's text that hold its next two characters (found
   in C), each compared in C (slices); never the session's length. A call's text longer than
   ``MAX_TEXT`` is not searched (split pieces are short; long texts are fingerprinted).
5. Pieces sent *before* the first one that linked (``cust_540`` / ``39;Szczepani`` / ``k;Fol``
   ... / ``+4992635495271``) are read back from the texts of the calls to the same destination
   just before: the latest one's text must hold the private text's characters before the
   earliest piece the call carries (as far as they agree, with ``min_length`` letters or
   digits, between two token boundaries of that text), then the one before it those before
   that piece, and so on while each does (:func:`.callends.preceding`).
6. A piece the latest call to the destination *ended* with (its last characters, past any
   separators, from the start of one of its tokens, with at least ``MIN_TAIL`` letters or
   digits) is an anchor wherever the private text holds it inside a token: inside a word
   or before a joiner such as ``-`` (:func:`.callends.trailing`). That is a value cut in two
   (``kelzant`` / ``ryn-690.int.vande``, ``ixsoksok`` / ``-440``) when the call before linked
   nothing of that value. When the call continues it, the piece it continues counts too.
7. An id kept with a private text (a record's ``id``) may be cut in two like any value
   (``cust_4022`` / ``7 | Nakas``): it counts whole when a call's text holds its head, with
   at least ``MIN_HEAD`` letters or digits, as a token, and the next call to the same
   destination its rest, however short, as a token (:meth:`Continuer.cut`).
8. A value cut right after its first letters (``MY`` / ``ROTHVEX-183``: too short an end for
   rule 6) counts whole when the call's text runs on from where the latest call's text ended
   (its last run of fewer than ``MIN_TAIL`` letters or digits: :func:`.callends.short_ends`)
   inside a word of the private text that run starts, with at least ``min_rest`` letters or
   digits (``min_fragment``), to the end of one of its tokens (:meth:`Continuer.joined`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

__all__ = [
    "MAX_PIECE",
    "MAX_PLACES",
    "MAX_TEXT",
    "MIN_HEAD",
    "MIN_TAIL",
    "SHORT_TEXT",
    "Continuer",
    "boundary",
]

MAX_PIECE = 4096
"""Characters compared past one place: longer copies are the k-grams' business."""
MAX_TEXT = 4096
"""A call's text longer than this is not searched: pieces of a split secret are short
messages, and a long text's private data is found by its fingerprints."""
SHORT_TEXT = 256
"""A call's text longer than this is not read for the piece it ends with (rules 6 and 8):
split pieces are short."""
MAX_PLACES = 4
"""Places of a private text where the end of the call before is looked at (rules 6 and 8)."""
MIN_TAIL = 4
"""Letters and digits the end of the latest call's text needs to anchor on its own (rule 6);
a shorter end anchors only a long piece that runs on from it (rule 8)."""
MIN_HEAD = 4
"""Letters and digits the head of a cut id needs (rule 7): with fewer, a token of the call
before that starts like an id would be a coincidence."""


class Continuer:
    """The pieces of one call's text that continue anchors in private texts."""

    def __init__(self, query: str, min_length: int) -> None:
        self._query = query
        self._searched = len(query) <= MAX_TEXT
        self._min = min_length if self._searched else 0
        self._used = bytearray(len(query) + 1)
        """1 where a piece or a hit already took the query's character."""

    def claim(self, copied: str) -> None:
        """Take the query's first free copy of ``copied`` (what a hit found): no continuation
        is read out of it again."""
        if not self._searched or not copied:
            return
        at = self._query.find(copied)
        while at >= 0 and self._used[at]:
            at = self._query.find(copied, at + 1)
        if at >= 0:
            self._take(at, at + len(copied))

    def _take(self, start: int, end: int) -> None:
        self._used[start:end] = b"\x01" * (end - start)

    def pieces(self, source: str, anchors: Iterable[int]) -> list[tuple[int, int]]:
        """The spans of ``source`` that the query continues from ``anchors`` (ends of spans
        of ``source``), continuations of continuations included."""
        if self._min <= 0 or not self._query.strip():
            return []
        found: list[tuple[int, int]] = []
        todo = sorted(set(anchors))  # a sorted list is a heap already
        seen = set()
        while todo:
            anchor = heapq.heappop(todo)
            if anchor in seen:
                continue
            seen.add(anchor)
            piece = self._longest(source, anchor)
            if piece is not None:
                found.append(piece)
                heapq.heappush(todo, piece[1])
        return found

    def whole(self, source: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
        """The ``spans`` of ``source`` (values kept whole, such as ids) that the query holds
        whole, between token boundaries, where no piece or hit took it yet; they are taken.
        (Whether ids count at all is ``min_id_length``'s business, not ``min_length``'s.)"""
        if not self._searched:
            return []
        found = []
        for start, end in spans:
            value = source[start:end]
            at = self._query.find(value) if value else -1
            while at >= 0 and not self._free_token(at, at + len(value)):
                at = self._query.find(value, at + 1)
            if at >= 0:
                self._take(at, at + len(value))
                found.append((start, end))
        return found

    def cut(
        self, source: str, spans: Iterable[tuple[int, int]], before: Iterable[str]
    ) -> list[tuple[int, int]]:
        """The ``spans`` of ``source`` (ids) cut in two between a text of ``before`` (the call
        before) and the query: that text holds the id's head as a token, the query its rest,
        as a token where no piece or hit took it yet; the rest is taken (rule 7)."""
        if not self._searched:
            return []
        before = [text for text in before if len(text) <= MAX_TEXT]
        found = []
        for start, end in spans:
            value = source[start:end]
            for head in sorted({h for text in before for h in _heads(value, text)}, reverse=True):
                rest = value[head:]
                at = self._query.find(rest)
                while at >= 0 and not self._free_token(at, at + len(rest)):
                    at = self._query.find(rest, at + 1)
                if at >= 0:
                    self._take(at, at + len(rest))
                    found.append((start, end))
                    break
        return found

    def joined(
        self, source: str, heads: Iterable[str], min_rest: int
    ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """Where the query runs on from a short end of the call before (``heads``) inside a
        word of ``source`` (rule 8): per join, the head's span and the piece's; the piece is
        taken."""
        query = self._query
        if not self._searched or len(query) > SHORT_TEXT:
            return []
        found = []
        for head in heads:
            for i in range(len(query)):
                if self._used[i] or not query[i].isalnum() or not boundary(query, i):
                    continue
                piece = self._runs_on(source, head, i, min_rest)
                if piece is not None:
                    self._take(i, i + piece[1] - piece[0])
                    found.append(((piece[0] - len(head), piece[0]), piece))
        return found

    def _runs_on(self, source: str, head: str, i: int, min_rest: int) -> tuple[int, int] | None:
        """The span of ``source`` the query holds from ``i`` on, right after ``head`` where
        ``head`` starts a word of ``source`` and the word goes on, if the two agree for at
        least ``min_rest`` letters or digits (on into a hit's piece, or not) and the piece
        stops where a token of the query does. Only the
        first places of ``source`` that hold the head and the piece's first ``min_rest``
        characters are looked at (found in C): the work stays bounded in a long text."""
        if len(self._query) - i < min_rest:
            return None
        key = head + self._query[i : i + min_rest]
        at, places = source.find(key), 0
        while at >= 0 and places < MAX_PLACES:
            places += 1
            cut = at + len(head)
            if boundary(source, at) and not boundary(source, cut):
                agreed = self._clean_length(source, cut, i)
                length = self._free_length(i, agreed)
                # The query agrees with the source for ``min_rest`` letters or digits, past the
                # piece into what a hit took (``O`` / ``yelaran | yerlan | ...``) or not.
                if length and sum(map(str.isalnum, source[cut : cut + agreed])) >= min_rest:
                    return cut, cut + length
            at = source.find(key, at + 1)
        return None

    def _free_token(self, start: int, end: int) -> bool:
        query = self._query
        return boundary(query, start) and boundary(query, end) and not any(self._used[start:end])

    def _longest(self, source: str, anchor: int) -> tuple[int, int] | None:
        """The longest piece from ``anchor`` on, after a space; else after any separator
        (``fastmail.`` / ``example``: the ``.`` went with the piece before, unlinked)."""
        start = anchor
        while start < len(source) and source[start] == " ":
            start += 1
        piece = self._from(source, start)
        if piece is not None:
            return piece
        skipped = start
        while skipped < len(source) and not source[skipped].isalnum():
            skipped += 1
        return self._from(source, skipped) if skipped > start else None

    def _from(self, source: str, start: int) -> tuple[int, int] | None:
        """The longest piece of ``source`` from ``start`` that the query holds where no
        piece or hit took it yet; it is taken."""
        best, at = 0, 0
        for i in self._token_starts(source[start : start + 2]):
            if self._used[i]:
                continue  # one character of the call is one character of the source
            length = self._clean_length(source, start, i)
            if length > best:
                best, at = length, i
        end = start + best
        while end > start and source[end - 1] == " ":
            end -= 1
        if sum(map(str.isalnum, source[start:end])) < self._min:
            return None
        self._take(at, at + best)
        return start, end

    def _free_length(self, i: int, length: int) -> int:
        """``length`` characters of the query from ``i``, up to the first that a piece or a
        hit took, if a token of the query stops there; else 0."""
        taken = self._used.find(1, i, i + length)
        if taken < 0:
            return length
        return taken - i if boundary(self._query, taken) else 0

    def _token_starts(self, key: str) -> Iterator[int]:
        """Where the query holds ``key`` at the start of a token (found in C)."""
        query = self._query
        i = query.find(key) if key and not key[0].isspace() else -1
        while i >= 0:
            if boundary(query, i):
                yield i
            i = query.find(key, i + 1)

    def _clean_length(self, source: str, start: int, i: int) -> int:
        """How far ``source`` from ``start`` and the query from ``i`` agree, if they part
        where the query's token ends (or either text does); else 0."""
        query = self._query
        length = _common_prefix(source, start, query, i)
        ends = i + length == len(query) or start + length == len(source)
        return length if ends or boundary(query, i + length) else 0


def _heads(value: str, text: str) -> Iterator[int]:
    """The lengths of the heads of ``value`` (shorter than it, with at least ``MIN_HEAD``
    letters or digits) that ``text`` holds as tokens."""
    key = value[:MIN_HEAD]
    at = text.find(key) if len(value) > MIN_HEAD else -1
    while at >= 0:
        length = _common_prefix(value, 0, text, at)
        head = value[:length]
        if (
            length < len(value)
            and boundary(text, at)
            and boundary(text, at + length)
            and sum(map(str.isalnum, head)) >= MIN_HEAD
        ):
            yield length
        at = text.find(key, at + 1)


def boundary(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` is not inside a run of letters and digits."""
    return i == 0 or i == len(text) or not (text[i - 1].isalnum() and text[i].isalnum())


def _common_prefix(a: str, i: int, b: str, j: int) -> int:
    """How many characters ``a[i:]`` and ``b[j:]`` share from their start (at most
    ``MAX_PIECE``), by halving slices compared in C."""
    low, high = 0, min(len(a) - i, len(b) - j, MAX_PIECE)
    while low < high:
        mid = (low + high + 1) // 2
        if a[i : i + mid] == b[j : j + mid]:
            low = mid
        else:
            high = mid - 1
    return low
