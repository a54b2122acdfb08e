from __future__ import annotations

import pytest

from cyclops.core.hits import Hit, HitKind
from cyclops.core.leak import LeakLedger, outermost
from cyclops.core.patterns import LeakSettings
from cyclops.core.text import IntervalSet, countable_chars
from cyclops.core.types import Label

S = frozenset({Label.SENSITIVE})
TEXT = "token=tok_9fq2xlr7zpw4nvb8kd3hs6jt and more"
SOURCES = {1: (TEXT, 1), 2: (TEXT, 1), 3: ("other secret q1w2e3r4t5y6u7i8", 3)}


def hit(seg: int, start: int, end: int) -> Hit:
    return Hit(seg, seg, S, HitKind.FRAGMENT, start, end)


@pytest.mark.parametrize(
    ("spans", "merged"),
    [
        ([(0, 5), (3, 8)], [(0, 8)]),
        ([(0, 5), (5, 8)], [(0, 8)]),
        ([(6, 9), (0, 2)], [(0, 2), (6, 9)]),
        ([(4, 4), (1, 2)], [(1, 2)]),
    ],
)
def test_intervals_merge(spans: list[tuple[int, int]], merged: list[tuple[int, int]]) -> None:
    assert list(IntervalSet(spans)) == merged


@pytest.mark.parametrize(
    ("spans", "query", "outside"),
    [
        ([(0, 5)], (2, 4), []),
        ([(0, 5)], (3, 9), [(5, 9)]),
        ([(2, 4), (6, 8)], (0, 10), [(0, 2), (4, 6), (8, 10)]),
        ([], (1, 3), [(1, 3)]),
        ([(5, 9)], (0, 5), [(0, 5)]),
    ],
)
def test_the_parts_of_a_span_no_interval_holds(
    spans: list[tuple[int, int]], query: tuple[int, int], outside: list[tuple[int, int]]
) -> None:
    assert IntervalSet(spans).outside(*query) == outside
    assert IntervalSet(spans).covers(*query) is (outside == [])


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("tok_9fq2xlr7zpw4nvb8kd3hs6jt", 28),
        ("the password is", 0),
        ("-----BEGIN PRIVATE KEY-----", 0),
        ("sk_live_abc123", 14),
        ("meet   kai", 3),
    ],
)
def test_whitespace_and_common_words_do_not_count(text: str, count: int) -> None:
    assert countable_chars(text) == count


HOSTS = (
    "primary vorzanqu-6289.int.acme.example and isframe(object): integer "
    "ada.oyelaran@proton.example, see example.com"
)


@pytest.mark.parametrize(
    ("piece", "token", "count"),
    [
        (".example", "vorzanqu", 8),  # the end of a host name: counts, common word and all
        ("vorzanqu-6289.int.acme", "vorzanqu", 22),
        ("is", "isframe", 0),  # cut off a word with symbols but no digit: judged alone
        ("in", "integer", 0),  # cut off a plain word: judged alone
        ("integ", "integer", 5),
        ("example", "oyelaran@", 7),  # the domain of an e-mail address: counts
        (".example", "oyelaran@", 8),
        ("ada", "ada.oyelaran", 3),
        ("example", "see", 0),  # cut off a host of words only: judged alone
    ],
)
def test_a_piece_cut_off_a_token_of_letters_and_digits_is_judged_by_the_token(
    piece: str, token: str, count: int
) -> None:
    start = HOSTS.index(piece, HOSTS.index(token))
    assert IntervalSet([(start, start + len(piece))]).count(HOSTS) == count


def test_the_same_bytes_in_two_forms_of_one_result_count_once() -> None:
    ledger = LeakLedger(LeakSettings())
    leak = ledger.measure("evil.example", [hit(1, 6, 34), hit(2, 6, 34)], SOURCES)
    assert leak.call_bytes == 28


def test_small_pieces_to_one_destination_add_up_to_a_leak() -> None:
    ledger = LeakLedger(LeakSettings(min_call_bytes=12, drip_bytes=16))
    first = ledger.measure("evil.example", [hit(1, 6, 15)], SOURCES)
    assert not first.triggered
    ledger.add("evil.example", [hit(1, 6, 15)], SOURCES)
    second = ledger.measure("evil.example", [hit(1, 15, 24)], SOURCES)
    assert second.triggered
    assert second.completed_bytes == 18


def test_pieces_of_different_results_never_add_up() -> None:
    ledger = LeakLedger(LeakSettings(min_call_bytes=12, drip_bytes=16))
    ledger.add("evil.example", [hit(1, 6, 15)], SOURCES)
    assert not ledger.measure("evil.example", [hit(3, 13, 22)], SOURCES).triggered


def test_only_results_that_made_a_flow_count_as_leaked() -> None:
    ledger = LeakLedger(LeakSettings())
    leak = ledger.measure("a.example", [hit(1, 6, 34)], SOURCES)
    ledger.add("a.example", [hit(1, 6, 34)], SOURCES)
    assert ledger.leaked_by_destination() == {}
    ledger.flowed("a.example", leak)
    assert ledger.leaked_by_destination() == {"a.example": 28}


def test_secrets_sent_add_to_what_a_destination_leaked() -> None:
    ledger = LeakLedger(LeakSettings())
    leak = ledger.measure("a.example", [hit(1, 6, 34)], SOURCES)
    ledger.add("a.example", [hit(1, 6, 34)], SOURCES)
    ledger.flowed("a.example", leak)
    ledger.secret_sent("a.example", 40)
    ledger.secret_sent("b.example", 0)
    assert ledger.leaked_by_destination() == {"a.example": 68}


def test_a_high_value_value_inside_a_counted_span_is_not_counted_again() -> None:
    value = Hit(1, 1, S, HitKind.HIGH_VALUE, value="tok9fq2")
    ledger = LeakLedger(LeakSettings())
    assert ledger.measure("a.example", [hit(1, 6, 34), value], SOURCES).call_bytes == 28


def continued(seg: int, start: int, end: int) -> Hit:
    return Hit(seg, seg, S, HitKind.CONTINUATION, start, end)


def test_continuations_add_to_a_leak_but_never_make_one() -> None:
    ledger = LeakLedger(LeakSettings(min_call_bytes=12, drip_bytes=16))
    alone = ledger.measure("evil.example", [continued(1, 6, 34)], SOURCES)
    assert not alone.triggered
    with_link = ledger.measure("evil.example", [hit(1, 6, 24), continued(1, 24, 34)], SOURCES)
    assert with_link.triggered
    assert with_link.call_bytes == 28


def test_a_continuation_of_a_result_that_leaked_to_the_destination_counts_on_its_own() -> None:
    ledger = LeakLedger(LeakSettings(min_call_bytes=12, drip_bytes=16))
    first = ledger.measure("evil.example", [hit(1, 6, 20)], SOURCES)
    ledger.add("evil.example", [hit(1, 6, 20)], SOURCES)
    ledger.flowed("evil.example", first)
    assert ledger.measure("evil.example", [continued(1, 20, 34)], SOURCES).call_bytes == 14


def test_a_high_value_value_makes_a_leak_though_a_continuation_covers_it() -> None:
    value = Hit(1, 1, S, HitKind.HIGH_VALUE, value="9fq2")
    ledger = LeakLedger(LeakSettings(min_call_bytes=12, drip_bytes=16))
    leak = ledger.measure("evil.example", [value, continued(1, 6, 16)], SOURCES)
    assert leak.triggered
    assert leak.call_bytes == 10  # the continuation's bytes, the value inside them once


def fragment(segment: int, at: int, length: int) -> Hit:
    return Hit(segment, 0, frozenset(), HitKind.FRAGMENT, 100, 100 + length, at=at)


@pytest.mark.parametrize(
    ("hits", "kept"),
    [
        # a domain of a mail (family 2) inside a host name of a record (family 0): one source
        ([fragment(0, 10, 34), fragment(2, 30, 14)], [0]),
        # inside a copy of its own family: kept (the family counts its bytes once)
        ([fragment(0, 10, 34), fragment(0, 30, 14)], [0, 1]),
        # overlapping but not inside: both count
        ([fragment(0, 10, 20), fragment(2, 25, 14)], [0, 1]),
        # apart: both count
        ([fragment(0, 0, 10), fragment(2, 40, 10)], [0, 1]),
        # the same start: the longer one wins, whichever came first
        ([fragment(2, 10, 8), fragment(0, 10, 30)], [1]),
        # the same copy in two families: both stay (how many texts share it decides)
        ([fragment(0, 10, 12), fragment(2, 10, 12)], [0, 1]),
    ],
)
def test_bytes_of_a_text_count_for_the_longest_copy_that_holds_them(
    hits: list[Hit], kept: list[int]
) -> None:
    family = {0: 0, 2: 2}
    found = outermost(hits, lambda h: family[h.segment])
    assert sorted(found, key=hits.index) == [hits[i] for i in kept]
