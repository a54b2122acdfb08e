"""Inputs shaped to make regular expressions backtrack, or decoders explode, must not stall the
core: every argument and result is attacker-controlled text."""

from __future__ import annotations

import time

import pytest

from cyclops.core import Action, Session, ToolCall
from cyclops.core.pins import instructing_texts
from cyclops.core.types import LISTING
from cyclops.testing import play, step

N = 20_000
HOSTILE = {
    "separators then mixed case": "-" * N + "1aB",
    "separators and words": "a-" * N + "1aB",
    "one letter": "a" * N + "!",
    "padding": "=" * N,
    "percent layers": "%25" * N,
    "unicode escapes": "\\u" * N,
    "dotted labels": "a." * N + "-",
    "at signs": "a@" * N,
    "a long local part": "x" * N + "@" + "a." * 200,
    "a long handle": "#" + "a" * N,
    "a long url": "http://" + "a" * N,
    "hex pairs": "ab:" * N + "zz",
    "digits": "1" * N,
    "digits and spaces": "123 " * N,
    "base64 of nothing": "QUFB" * N + "!",
    "zero-width": "\u200b" * N + "a",
    "lone surrogates": "\ud800a" * N,
    "fullwidth": "\uff41" * N,
}
# A hang guard, not a benchmark: linear code takes milliseconds; catastrophic backtracking
# takes minutes.
LIMIT_SECONDS = 10


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_argument_is_decided_quickly(prevent: Session, name: str) -> None:
    play(prevent, [step("fetch", "fetch", {"url": "https://a.example/"}, "page")])
    start = time.perf_counter()
    decision = prevent.decide(
        ToolCall("notify", "send_message", {"url": "https://b.example/", "text": HOSTILE[name]})
    )
    assert time.perf_counter() - start < LIMIT_SECONDS
    assert decision.action in (Action.ALLOW, Action.DENY)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_result_is_indexed_quickly(prevent: Session, name: str) -> None:
    start = time.perf_counter()
    play(prevent, [step("gmail", "read_email", {"id": "1"}, HOSTILE[name])])
    play(prevent, [step("fetch", "fetch", {"url": "https://a.example/"}, HOSTILE[name])])
    assert time.perf_counter() - start < LIMIT_SECONDS


POISONING_SHAPES = {
    **HOSTILE,
    "names": "send_" * N,
    "camel names": "sendEmail" * N,
    "the tool": "the send a b tool " * (N // 4),
    "one phrase twice": "Never tell the user. " * (N // 4),
    "argument requests": "in 'seed' ~/.ssh " * (N // 4),
}


@pytest.mark.parametrize("name", list(POISONING_SHAPES))
def test_a_hostile_tool_listing_is_read_quickly(prevent: Session, name: str) -> None:
    listing = "t: " + POISONING_SHAPES[name]
    start = time.perf_counter()
    play(prevent, [step("evil", LISTING, {}, listing)])
    instructing_texts(prevent.patterns, [{"name": "t", "description": listing}], listing)
    assert time.perf_counter() - start < LIMIT_SECONDS
