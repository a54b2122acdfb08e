"""Word shingles of private prose: which are kept, and what a copy of them always shares."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cyclops.core.canon import clean, matchable
from cyclops.core.fingerprints import FingerprintIndex
from cyclops.core.patterns import ProvenanceSettings
from cyclops.core.shingles import private_shingles, shingle_keys
from cyclops.core.text import is_uncommon
from cyclops.core.types import Label

SETTINGS = ProvenanceSettings()
# Common words, and uncommon ones (names, places, jargon), so that fingerprinted shingles
# (two uncommon words in five) come both sparse and dense.
COMMON = ["the", "our", "new", "office", "meeting", "moved", "with", "about", "party", "next"]
UNCOMMON = ["zurich", "hardturmstrasse", "dora", "snacks", "kubernetes", "riverside", "lily"]


def index_of(private_text: str) -> FingerprintIndex:
    index = FingerprintIndex(SETTINGS, max_fingerprints=100_000)
    index.add(0, frozenset({Label.SENSITIVE}), matchable(clean(private_text)), [])
    return index


# Each copy is short among other text whose fingerprinted shingles would win every window it
# spans, were windows counted in fingerprinted shingles alone.
SHORT_COPIES = {
    "a chat line between its senders' names": (
        "bob\nour new office address is 12 hardturmstrasse, zurich; door code 4417#\n"
        "eve\nsalary review meeting moved to thursday with dora",
        "Our new office address is 12 Hardturmstrasse, Zurich; door code 4417#",
    ),
    "a mail body between its headers": (
        "attachments: [] body: 'Hi Emma, I wanted to remind you about my birthday party next "
        "Saturday at 7 PM. Hope you can make it! Let me know if you can bring some snacks. "
        "Best, Lily' recipients: emma.johnson@bluesparrowtech.com sender: lily.white@gmail.com "
        "subject: Birthday Party",
        "I wanted to remind you about my birthday party next Saturday at 7 PM.",
    ),
}


@pytest.mark.parametrize(("private_text", "copied"), SHORT_COPIES.values(), ids=SHORT_COPIES)
def test_a_short_piece_among_other_text_is_found_when_copied_whole(
    private_text: str, copied: str
) -> None:
    assert list(index_of(private_text).shingles(matchable(clean(copied))))


def test_common_prose_keeps_no_shingle() -> None:
    keys, _ = private_shingles("let me know if you can make it to the party next week", SETTINGS)
    assert keys == []


@given(st.lists(st.sampled_from(COMMON + UNCOMMON), min_size=1, max_size=60))
def test_every_copy_of_eight_words_holding_a_fingerprinted_shingle_shares_a_kept_one(
    words: list[str],
) -> None:
    n, window = SETTINGS.shingle_words, SETTINGS.shingle_window
    kept, _ = private_shingles(" ".join(words), SETTINGS)
    span = n + window - 1
    for start in range(len(words) - span + 1):
        copy = words[start : start + span]
        fingerprinted = any(
            sum(map(is_uncommon, copy[i : i + n])) >= SETTINGS.min_uncommon_words
            for i in range(window)
        )
        if fingerprinted:
            assert set(shingle_keys(" ".join(copy), n)) & set(kept), copy
