"""A private record's values, found together in what a call sends.

A model rewrites the record it sends ("AAPL 150 shares, TSLA 40 shares" for ``{"ticker": "AAPL",
"quantity": 150}, ...``): no piece of the text is long or distinctive enough to link, and each
value alone could be a coincidence. Several values of one private record in one call whose
destination untrusted content gave are not: that is the record, sent where the content said.
Nor are they in a call made after untrusted content addressed the agent (an injected
instruction), wherever it goes: the content told the agent to send something. A record is what
a private result's JSON holds, or the ``key: value`` lines and table cells of its text (see
:mod:`.tables`); a URL's path and query are a payload like any other argument's. Values are
kept in the index under their own keys (``RECORD_KEY`` + letters and digits, case folded),
apart from high values, and looked up only for such a call (see
``Provenance.match_arguments``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import islice

from .canon import clean, squeezed
from .fingerprints import FingerprintIndex
from .hits import Hit, HitKind
from .matches import ArgumentMatch
from .types import Label

__all__ = [
    "RECORD_KEY",
    "add_record_hits",
    "record_keys",
    "record_lookups",
    "records_sent",
    "value_spans",
]

RECORD_KEY = "\x1frecord:"
_MAX_WORDS = 6  # a value of more words is long enough to link by itself
_MIN_VALUES = 2  # distinct values of one record in the call
_MIN_CHARS = 6  # their letters and digits together
_WORD = re.compile(r"[^\W_]+")


def add_record_hits(index: FingerprintIndex, matches: Sequence[ArgumentMatch]) -> None:
    """Add to the payloads of a call that sends where untrusted content said (see the module's
    docstring), a URL's path and query among them, the private records they carry enough
    values of, of results the call carries nothing else of (what it
    carries of them counts as it is) and that did not give its destination themselves (a
    reminder of a meeting to the people its event lists)."""
    linked = {h.call for m in matches for h in m.sensitive_hits}
    linked |= {c for m in matches if m.destination for c in m.untrusted_calls}

    def place_of(segment_id: int) -> Place | None:
        segment = index.segment(segment_id)
        if segment is None:
            return None
        return segment.text, min((start for start, _ in segment.ids), default=len(segment.text))

    for match in matches:
        if not match.payloads:
            continue
        keys = set().union(*map(record_lookups, match.payloads))
        found = index.exact(keys, HitKind.HIGH_VALUE)
        private = (h for h in found if Label.SENSITIVE in h.labels and h.call not in linked)
        match.sensitive_hits.extend(records_sent(private, place_of))


def record_keys(values: Iterable[str]) -> list[str]:
    """The index keys of a private record's values (those of 2 to ``_MAX_WORDS`` words' worth
    of letters and digits)."""
    keys = []
    for value in map(clean, values):
        form = squeezed(value)
        if len(form) >= 2 and len(_WORD.findall(value)) <= _MAX_WORDS:
            keys.append(RECORD_KEY + form)
    return list(dict.fromkeys(keys))


def record_lookups(text: str) -> set[str]:
    """The keys to look up for a ``matchable`` text: every run of up to ``_MAX_WORDS``
    consecutive words."""
    words = _WORD.findall(text)
    return {
        RECORD_KEY + "".join(words[i:j])
        for i in range(len(words))
        for j in range(i + 1, min(i + _MAX_WORDS, len(words)) + 1)
    }


Place = tuple[str, int]
"""A segment's text, and where the values its JSON held under opaque-id keys start in it
(kept after the text, see ``Segment.ids``)."""


def records_sent(hits: Iterable[Hit], place_of: Callable[[int], Place | None]) -> list[Hit]:
    """The ``hits`` (of record keys) of the records a call carries enough values of, as
    :attr:`HitKind.RECORD` hits: each value's span in its segment's text (``place_of`` a
    segment id), so that a leak counts its bytes once however many calls carry it."""
    by_call: dict[int, dict[str, Hit]] = defaultdict(dict)
    for hit in hits:
        value = hit.value.removeprefix(RECORD_KEY)
        by_call[hit.call].setdefault(value, hit)
    found = []
    for values in by_call.values():
        if len(values) < _MIN_VALUES or sum(map(len, values)) < _MIN_CHARS:
            continue
        for value, (start, end) in _placed(values, place_of).items():
            record = replace(values[value], kind=HitKind.RECORD, value=value, start=start, end=end)
            found.append(record)
    return found


def _placed(
    values: dict[str, Hit], place_of: Callable[[int], Place | None]
) -> dict[str, tuple[int, int]]:
    """Where each value is in its text: a value found in several places (a surname that is
    also the entry's name, and part of an e-mail address) is taken at the place nearest the
    text's value found in fewest places, so that the record's values count where they sit
    together."""
    places: dict[str, list[tuple[int, int]]] = {}
    anchors: list[tuple[int, int]] = []
    for value, hit in values.items():
        place = place_of(hit.segment)
        if place is None or not (spans := value_spans(place[0], value)):
            continue
        places[value] = spans
        if in_text := [span for span in spans if span[0] < place[1]]:
            anchors.append((len(in_text), in_text[0][0]))
    if not anchors:
        return {value: spans[0] for value, spans in places.items()}
    anchor = min(anchors)[1]
    return {
        value: min(spans, key=lambda span: abs(span[0] - anchor)) for value, spans in places.items()
    }


_MAX_PLACES = 8


def value_spans(text: str, value: str) -> list[tuple[int, int]]:
    """Where ``text`` holds ``value`` (letters and digits, case folded) as whole words,
    whatever separates them (the first ``_MAX_PLACES`` places)."""
    return [m.span() for m in islice(_value_pattern(value).finditer(text), _MAX_PLACES)]


@lru_cache(maxsize=1024)
def _value_pattern(value: str) -> re.Pattern[str]:
    # One literal character after each optional run of separators: no backtracking to speak of.
    body = r"[\W_]*".join(map(re.escape, value))
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE)
