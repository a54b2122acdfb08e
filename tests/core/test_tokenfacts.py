"""The per-token memo of the fingerprint index changes no fact, however full it gets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cyclops.core.patterns import ProvenanceSettings
from cyclops.core.tokenfacts import TokenFacts

TOKENS = ["alpha_1234", "beta_5678", "gamma_9999", "delta_0000", "tok_9fQ2xLr7ZpW4", "plainword"]


def test_a_value_a_secret_rule_matched_is_secret_like_whatever_its_characters() -> None:
    settings = ProvenanceSettings()
    text = "gitlab_token=glpat-gsivnloygyhxnzyqdgpq\n"
    value = "glpat-gsivnloygyhxnzyqdgpq"
    start = text.index(value)
    plain = TokenFacts(settings).of(text)
    ruled = TokenFacts(settings).of(text, [value])
    assert (start, start + len(value)) not in plain.secret_parts  # letters only: no digit
    assert (start, start + len(value)) in ruled.secret_parts
    # every k-gram of the value, letters-only ones too, is fingerprinted
    wanted = set(range(start, start + len(value) - settings.kgram + 1))
    assert wanted <= set(ruled.gram_offsets)
    assert not wanted <= set(plain.gram_offsets)


@pytest.mark.parametrize("max_tokens", [1, 2, 3, 5, 65536])
def test_a_text_has_the_same_facts_whatever_the_memo_held_before(max_tokens: int) -> None:
    texts = [
        "alpha_1234 beta_5678",
        "alpha_1234 gamma_9999 delta_0000",  # known and new tokens together, past the cap
        "tok_9fQ2xLr7ZpW4 beta_5678 plainword alpha_1234",
        "alpha_1234 alpha_1234",
    ]
    memo = TokenFacts(ProvenanceSettings(), max_tokens=max_tokens)
    for text in texts:
        assert memo.of(text) == TokenFacts(ProvenanceSettings()).of(text)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.lists(st.sampled_from(TOKENS), max_size=6).map(" ".join), max_size=8),
    max_tokens=st.integers(min_value=1, max_value=8),
)
def test_a_small_memo_gives_the_facts_a_fresh_one_does(texts: list[str], max_tokens: int) -> None:
    memo = TokenFacts(ProvenanceSettings(), max_tokens=max_tokens)
    for text in texts:
        assert memo.of(text) == TokenFacts(ProvenanceSettings()).of(text)
