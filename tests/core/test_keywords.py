"""The secret rules' keyword prefilter: one pass, and never a keyword missed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cyclops.core.secretscan import KeywordFinder

_small = st.text(alphabet="ab-_", min_size=1, max_size=5)


@settings(max_examples=500, deadline=None)
@given(
    keywords=st.lists(_small, min_size=1, max_size=8), text=st.text(alphabet="ab-_c", max_size=40)
)
def test_the_finder_reports_exactly_the_keywords_the_text_contains(
    keywords: list[str], text: str
) -> None:
    assert KeywordFinder(keywords).present(text) == {k for k in keywords if k in text}


def test_keywords_that_overlap_or_nest_are_all_found() -> None:
    finder = KeywordFinder(["ab", "bcd", "abc", "c", "xoxb-", "xox"])
    assert finder.present("abcd") == {"ab", "bcd", "abc", "c"}
    assert finder.present("token xoxb-123") == {"xoxb-", "xox"}


def test_no_keywords_means_nothing_is_present() -> None:
    assert KeywordFinder([]).present("anything") == frozenset()


def test_thousands_of_keywords_are_all_found_in_a_long_text() -> None:
    keywords = [f"kw{i:05d}x" for i in range(5000)]
    text = " filler ".join(keywords[::7]) * 20
    assert KeywordFinder(keywords).present(text) == set(keywords[::7])


def test_keywords_are_found_in_text_that_is_not_ascii() -> None:
    assert KeywordFinder(["clé", "token"]).present("la clé — token\ud800") == {"clé", "token"}
