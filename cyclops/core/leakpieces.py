"""Hits that add bytes to a leak without linking anything: the pieces of a call that continue
what its destination received or the word the call before cut, the pieces earlier calls to it
sent right before what a call carries, and the ids kept with a private text that such calls
carry whole or cut in two (the text rules are in :mod:`.continuation`). They add no edge to
the graph: they add to a leak, they never make a result leak.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .callends import preceding, short_ends, trailing
from .continuation import MIN_TAIL, Continuer
from .hits import Hit, HitKind
from .leak import LeakLedger
from .provenance import ArgumentMatch, Provenance
from .text import IntervalSet

__all__ = ["continued", "preceded"]

_PRECEDING = HitKind.PRECEDING
_CONTINUES = HitKind.CONTINUATION


def continued(
    prov: Provenance,
    matches: Iterable[ArgumentMatch],
    hits: Iterable[Hit],
    ledger: LeakLedger,
    destination: str,
) -> list[Hit]:
    """Hits for the pieces of the payloads of a call that continue private text that the
    latest call to ``destination`` delivered (``ledger.latest``) or that ``hits`` carry, or
    the token that call's payloads ended with cut, however short its end (and for that end
    too; see :mod:`.continuation`), and for the ids kept with such a text that they carry
    whole or the rest of; each is added to its argument's hits. They add no edge to the
    graph: they add to a leak, they never make a result leak. Returns the call's hits: these,
    after ``hits`` without the fragments the continuations hold (see
    :func:`_outside_continuations`)."""
    hits = list(hits)
    received = ledger.latest(destination)
    anchors = {seg: {end for _, end in spans} for seg, spans in received.items()}
    # Every segment a hit found is looked at for the tail of the call before and for ids, with
    # anchors or not: a record's values link as record hits, which anchor nothing.
    for hit in hits:
        ends = anchors.setdefault(hit.segment, set())
        if hit.kind in (HitKind.FRAGMENT, HitKind.SHINGLE, HitKind.CONTINUATION):
            ends.add(hit.joins[1])
    segments = [s for s in map(prov.index.segment, anchors) if s is not None]
    min_length = prov.patterns.leak.min_continuation
    earlier = ledger.earlier(destination) if segments else ()
    tails = {seg.id: trailing(seg.text, earlier[0], MIN_TAIL) for seg in segments if earlier}
    heads = short_ends(earlier[0]) if earlier else []
    min_rest = prov.patterns.provenance.min_fragment
    found: list[Hit] = []
    confirmed: set[Hit] = set()  # tails a payload continues: each counts once
    for match in matches if segments else ():
        for payload in match.payloads:
            continuer = Continuer(payload, min_length)
            for hit in match.sensitive_hits:  # one hit per copy of its piece in the call
                continuer.claim(prov.piece(hit))
            for seg in segments:
                pieces = continuer.pieces(seg.text, anchors[seg.id])
                for tail in tails.get(seg.id, ()):
                    after = continuer.pieces(seg.text, (tail[1],))
                    if after:  # the piece the call before ended with is confirmed: it counts
                        confirmed.add(Hit(seg.id, seg.call, seg.labels, _PRECEDING, *tail))
                    pieces += after
                joins = continuer.joined(seg.text, heads, min_rest) if heads else []
                for head, piece in joins:
                    confirmed.add(Hit(seg.id, seg.call, seg.labels, _PRECEDING, *head))
                    pieces.append(piece)
                # A record's id comes first: the call that ended with a head may carry it.
                for span in _ids_sent(seg.text, seg.ids, earlier, 1) if joins else ():
                    confirmed.add(Hit(seg.id, seg.call, seg.labels, _PRECEDING, *span))
                carried = [Hit(seg.id, seg.call, seg.labels, _CONTINUES, *p) for p in pieces]
                ids = continuer.whole(seg.text, seg.ids)
                if earlier and seg.ids:
                    ids += continuer.cut(seg.text, seg.ids, earlier[0])
                carried += [Hit(seg.id, seg.call, seg.labels, HitKind.OPAQUE_ID, *s) for s in ids]
                match.sensitive_hits += carried
                found += carried
    # What the destination received of a tail was counted then (the call before linked some).
    had = ledger.received(destination)
    for hit in sorted(confirmed, key=lambda hit: (hit.segment, hit.start)):
        known = had.get(hit.segment)
        parts = known.outside(hit.start, hit.end) if known else [(hit.start, hit.end)]
        found += [Hit(hit.segment, hit.call, hit.labels, _PRECEDING, *p) for p in parts]
    return _outside_continuations(prov, hits, found) + found


def _outside_continuations(prov: Provenance, hits: list[Hit], found: list[Hit]) -> list[Hit]:
    """``hits`` without the fragments of one private text that a continuation of another holds
    whole (``@proton.exa`` of a mail, inside ``epanik@proton.exa`` that continues a record's
    address): the call's characters count once, for the text the piece continues."""
    pieces = [(h.segment, prov.piece(h)) for h in found if h.kind is _CONTINUES]
    kept = []
    for hit in hits:
        piece = prov.piece(hit) if pieces and hit.kind is HitKind.FRAGMENT else ""
        held = piece and any(
            seg != hit.segment and len(piece) < len(other) and piece in other
            for seg, other in pieces
        )
        if not held:
            kept.append(hit)
    return kept


def preceded(
    prov: Provenance, hits: Iterable[Hit], ledger: LeakLedger, destination: str
) -> list[Hit]:
    """Hits for the pieces of private text that the earlier calls to ``destination`` (their
    payloads, latest first: ``ledger.earlier``) sent right before the earliest piece ``hits``
    carry of it (see :func:`.callends.preceding`), up to one the destination received
    already (it was counted then), and for the ids kept with the text that those calls, or
    the one before them, carry whole."""
    earlier, received = ledger.earlier(destination), ledger.received(destination)
    first: dict[int, int] = {}
    for hit in hits:
        if hit.kind in (HitKind.FRAGMENT, HitKind.SHINGLE, HitKind.CONTINUATION):
            start = hit.joins[0]
            first[hit.segment] = min(start, first.get(hit.segment, start))
    found = []
    for seg in filter(None, map(prov.index.segment, first)):
        pieces = preceding(seg.text, first[seg.id], earlier, prov.patterns.leak.min_continuation)
        known = IntervalSet(received.get(seg.id, ()))
        calls = 0
        for start, end in pieces:  # up to one the destination had: it was counted then
            parts = known.outside(start, end)
            if not parts:
                break
            calls += 1
            found += [Hit(seg.id, seg.call, seg.labels, _PRECEDING, *p) for p in parts]
        # A record's id comes first: the call before the earliest piece may carry it alone,
        # or cut in two with the call before it (rule 7), when that piece was sent right
        # after others, or is where the record starts.
        joins = calls or not seg.text[: first[seg.id]].strip()
        for start, end in _ids_sent(seg.text, seg.ids, earlier, calls + 1 if joins else 0):
            if not known.covers(start, end):
                found.append(Hit(seg.id, seg.call, seg.labels, _PRECEDING, start, end))
    return found


def _ids_sent(
    source: str, ids: tuple[tuple[int, int], ...], earlier: Sequence[tuple[str, ...]], calls: int
) -> list[tuple[int, int]]:
    """The ``ids`` of ``source`` that the texts of the latest ``calls`` of ``earlier`` (latest
    first) carry whole, or the rest of, cut after a head the call before each carries."""
    found = []
    for i in range(min(calls, len(earlier))) if ids else ():
        before = earlier[i + 1] if i + 1 < len(earlier) else ()
        for text in earlier[i]:
            continuer = Continuer(text, 0)
            found += continuer.whole(source, ids) + continuer.cut(source, ids, before)
    return found
