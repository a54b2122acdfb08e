from __future__ import annotations

import pytest

from cyclops.core.checks import bip39_words, iban_valid, luhn_valid


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111 1111 1111 1111", True),
        ("5500-0000-0000-0004", True),
        ("378282246310005", True),
        ("4111 1111 1111 1112", False),
        ("0000 0000 0000 0000", False),
        ("1234", False),
    ],
)
def test_card_numbers_are_luhn_checked(number: str, valid: bool) -> None:
    assert luhn_valid(number) is valid


@pytest.mark.parametrize(
    ("iban", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("de89370400440532013000", True),
        ("FR14 2004 1010 0505 0001 3M02 606", True),
        ("GB82 WEST 1234 5698 7654 33", False),
        ("GB82", False),
        ("12345678901234567", False),
    ],
)
def test_ibans_are_mod_97_checked(iban: str, valid: bool) -> None:
    assert iban_valid(iban) is valid


_TWELVE = "maple shiver august trophy local ribbon casual pencil meadow silent brick oyster"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (_TWELVE, True),
        ("\n".join(f"{i}. {w}" for i, w in enumerate(_TWELVE.split(), 1)), True),
        ("seed: " + _TWELVE.upper(), True),
        (" ".join(_TWELVE.split()[:11]), False),
        # A word off the list in the middle cuts the run in two.
        (" ".join([*_TWELVE.split()[:6], "zebrafish", *_TWELVE.split()[6:]]), False),
        ("the quick brown fox jumps over the lazy dog and then runs far away home", False),
    ],
)
def test_twelve_list_words_in_a_row_are_a_phrase_whatever_the_checksum(
    text: str, found: bool
) -> None:
    assert bip39_words(text) is found
