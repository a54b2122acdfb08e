"""What the latest calls to a destination sent around a piece: the pieces sent right before
it (rule 5 of :mod:`.continuation`) and the end a call stopped on, which the next call may go
on from (rules 6 and 8)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .continuation import MAX_PIECE, MAX_PLACES, MAX_TEXT, MIN_TAIL, SHORT_TEXT, boundary

__all__ = ["preceding", "short_ends", "trailing"]


def preceding(
    source: str, anchor: int, earlier: Iterable[Iterable[str]], min_length: int
) -> list[tuple[int, int]]:
    """The spans of ``source`` before ``anchor`` that the texts of ``earlier`` calls (latest
    first) hold, one per call, each right before the next (rule 5)."""
    found = []
    for texts in earlier if min_length > 0 else ():
        spans = [s for s in (_ending(source, anchor, t, min_length) for t in texts) if s]
        if not spans:
            break
        start, end = min(spans)  # the one that reaches furthest back
        found.append((start, end))
        anchor = start
    return found


def trailing(source: str, texts: Iterable[str], min_length: int) -> list[tuple[int, int]]:
    """The spans of ``source`` that hold the piece each of ``texts`` (of at most
    ``SHORT_TEXT`` characters) ends with, before any separators it ends with, where it
    stops inside a token of ``source`` (rule 6; see :func:`_tail_places`)."""
    found: list[tuple[int, int]] = []
    for text in texts if min_length > 0 else ():
        if len(text) <= SHORT_TEXT:
            found += _tail_places(source, text[: _before_separators(text, len(text))], min_length)
    return found


def short_ends(texts: Iterable[str]) -> list[str]:
    """The last run of letters and digits of each of ``texts`` (of at most ``SHORT_TEXT``
    characters, before any separators it ends with), where it is shorter than ``MIN_TAIL``:
    the head of a value cut right after its first letters (rule 8)."""
    ends = []
    for text in texts:
        if len(text) > SHORT_TEXT:
            continue
        end = _before_separators(text, len(text))
        start = end
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        if 0 < end - start < MIN_TAIL:
            ends.append(text[start:end])
    return list(dict.fromkeys(ends))


def _tail_places(source: str, text: str, min_length: int) -> list[tuple[int, int]]:
    """Where ``source`` holds the longest end of ``text`` that starts a token of ``text``, has
    ``min_length`` letters or digits, and stops inside a token of ``source`` (a value cut in
    two, inside a word or before a joiner such as ``-`` or ``.``: an end that stops where a
    word of the source stops before a space or a colon is a word, not a cut). A source that
    holds an end holds its shorter ends: the search grows the end until it lacks one."""
    best: list[tuple[int, int]] = []
    alnum = 0
    for start in range(len(text) - 1, -1, -1):
        alnum += text[start].isalnum()
        if alnum < min_length or not (text[start].isalnum() and boundary(text, start)):
            continue
        piece = text[start:]
        at = source.find(piece)
        if at < 0:
            break
        best = []
        while at >= 0 and len(best) < MAX_PLACES:
            if _cut_at(source, at + len(piece)):
                best.append((at, at + len(piece)))
            at = source.find(piece, at + 1)
    return best


def _ending(source: str, anchor: int, query: str, min_length: int) -> tuple[int, int] | None:
    """The longest piece of ``source`` right before ``anchor`` (before a space, or else before
    any separator) that ``query`` holds between two of its token boundaries."""
    if len(query) > MAX_TEXT:
        return None
    end = anchor
    while end > 0 and source[end - 1] == " ":
        end -= 1
    for stop in (end, _before_separators(source, end)):
        best = max(
            (_suffix_at(source, stop, query, i) for i in _token_ends(query, source, stop)),
            default=0,
        )
        start = stop - best
        while start < stop and source[start] == " ":
            start += 1
        if best and sum(map(str.isalnum, source[start:stop])) >= min_length:
            return start, stop
    return None


def _token_ends(query: str, source: str, stop: int) -> Iterator[int]:
    """Where in ``query`` a token ends with the two characters of ``source`` before ``stop``."""
    key = source[max(0, stop - 2) : stop]
    i = query.find(key) if key and not key[-1].isspace() else -1
    while i >= 0:
        if boundary(query, i + len(key)):
            yield i + len(key)
        i = query.find(key, i + 1)


def _suffix_at(source: str, stop: int, query: str, end: int) -> int:
    """How far ``source`` before ``stop`` and ``query`` before ``end`` agree, if they part
    where a token of the query starts (or either text does); else 0."""
    length = _common_suffix(source, stop, query, end)
    starts = length in (end, stop)
    return length if starts or boundary(query, end - length) else 0


def _before_separators(source: str, end: int) -> int:
    while end > 0 and not source[end - 1].isalnum():
        end -= 1
    return end


def _common_suffix(a: str, i: int, b: str, j: int) -> int:
    """How many characters ``a[:i]`` and ``b[:j]`` share at their ends (at most
    ``MAX_PIECE``), by halving slices compared in C."""
    low, high = 0, min(i, j, MAX_PIECE)
    while low < high:
        mid = (low + high + 1) // 2
        if a[i - mid : i] == b[j - mid : j]:
            low = mid
        else:
            high = mid - 1
    return low


_JOINERS = frozenset("-_.@+/=")


def _cut_at(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` is inside a token: after a letter or digit, before
    another or a joiner (``kelzant|ryn``, ``vordrezan|-5076``)."""
    return (
        0 < i < len(text) and text[i - 1].isalnum() and (text[i].isalnum() or text[i] in _JOINERS)
    )
