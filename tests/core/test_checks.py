from __future__ import annotations

import pytest

from cyclops.core.checks import iban_valid, luhn_valid


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
