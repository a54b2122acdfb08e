"""Validators that turn a pattern match into a finding: checksums that random digits rarely pass."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CHECKS", "Check", "iban_valid", "luhn_valid"]

Check = Callable[[str], bool]


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def luhn_valid(text: str) -> bool:
    """The Luhn checksum of a payment card number (separators ignored)."""
    digits = _digits(text)
    if not 12 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        if i % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_valid(text: str) -> bool:
    """The ISO 13616 mod-97 check of an IBAN (spaces ignored, any case)."""
    iban = "".join(text.split()).upper()
    if not 15 <= len(iban) <= 34 or not iban.isalnum() or not iban[:2].isalpha():
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


CHECKS: dict[str, Check] = {"luhn": luhn_valid, "iban": iban_valid}
