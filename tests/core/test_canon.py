"""Canonical text: disguises that do not change how a string reads are undone."""

from __future__ import annotations

import string
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cyclops.core.canon import canonical, clean

FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})

CLEANED = [
    pytest.param("ＳｅｃｒｅｔＫｅｙ１２３", "SecretKey123", id="fullwidth"),
    pytest.param("ﬁle ℌello 𝐁old ²", "file Hello Bold 2", id="compatibility forms"),
    pytest.param("pass\u200bw\u200cor\u200dd\u2060\ufeff", "password", id="zero-width"),
    pytest.param("\u202eevil\u202c \u2066txt\u2069 \u200fx", "evil txt x", id="bidi controls"),
    pytest.param("to\u00adken\u034f", "token", id="soft hyphen and grapheme joiner"),
    pytest.param("a\ufe0fb\U000e0100c", "abc", id="variation selectors"),
    pytest.param("tag\U000e0041\U000e0042\U000e007f", "tag", id="tag characters"),
    pytest.param("a\x00b\x07c\x1bd\x7fe\x85f", "abcdef", id="control characters"),
    pytest.param("keep\ttabs\nand\r\nnewlines", "keep\ttabs\nand\r\nnewlines", id="tab newline"),
    pytest.param("раураl", "paypal", id="Cyrillic lower look-alikes"),
    pytest.param("АВЕКМНОРСТХ", "ABEKMHOPCTX", id="Cyrillic upper look-alikes"),
    pytest.param("іјѕԁԛԝ", "ijsdqw", id="more Cyrillic look-alikes"),
    pytest.param("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", id="Greek upper look-alikes"),
    pytest.param("ονι", "ovi", id="Greek lower look-alikes"),
    pytest.param("ㅤh\u3164i\uffa0!", "hi!", id="Hangul fillers"),
    pytest.param("cafe\u200b\u0301", "café", id="mark composes across a stripped character"),
]


@pytest.mark.parametrize(("disguised", "plain"), CLEANED)
def test_clean_undoes_the_disguise(disguised: str, plain: str) -> None:
    assert clean(disguised) == plain


@pytest.mark.parametrize("text", ["MiXeD CaSe", "ÉCOLE", "ＡＢＣ"])
def test_clean_keeps_case(text: str) -> None:
    assert clean(text) == unicodedata.normalize("NFKC", text)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("MiXeD CaSe", "mixed case"),
        ("ＳＥＣＲＥＴ", "secret"),
        ("Straße", "strasse"),
        ("РАУ", "pay"),
    ],
)
def test_canonical_folds_case_as_well(text: str, folded: str) -> None:
    assert canonical(text) == folded


def test_plain_ascii_comes_back_as_the_same_object() -> None:
    text = "Nothing to see here, just ASCII.\n"
    assert clean(text) is text


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_the_ascii_fast_path_agrees_with_the_slow_path(text: str) -> None:
    # A zero-width space makes the text non-ASCII, which forces the general path.
    assert clean(text) == clean(text + "\u200b") == clean("\u200b" + text)


@given(st.text())
def test_clean_is_idempotent(text: str) -> None:
    assert clean(clean(text)) == clean(text)


@given(st.text(alphabet=string.printable))
def test_printable_ascii_loses_nothing_but_control_characters(text: str) -> None:
    assert clean(text) == "".join(c for c in text if c.isprintable() or c in "\t\n\r")


def test_every_format_and_control_character_is_removed() -> None:
    removable = [
        chr(cp)
        for cp in range(0x110000)
        if unicodedata.category(chr(cp)) in {"Cf", "Cc"} and chr(cp) not in "\t\n\r"
    ]
    assert clean("x".join(removable)) == "x" * (len(removable) - 1)


def test_no_visible_character_normalises_to_an_invisible_one() -> None:
    # clean() strips invisible characters once, before NFKC; this is what makes that enough.
    for cp in range(0x110000):
        char = chr(cp)
        normalized = unicodedata.normalize("NFKC", char)
        if normalized != char and clean(char) != "":
            assert len(clean(normalized)) == len(normalized), hex(cp)
