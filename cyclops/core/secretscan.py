"""Secret rules and high-value values, run over (clean, case-preserved) text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .patterns import HighValueRule, SecretRule
from .text import entropy

__all__ = ["HighValue", "SecretFinding", "SecretScanner", "high_values"]

# RE2 is linear, but a 50 MB argument is still 50 MB: rules look at a bounded prefix.
MAX_SCAN_CHARS = 4 * 1024 * 1024


@dataclass(frozen=True)
class SecretFinding:
    rule_id: str
    start: int
    end: int


@dataclass(frozen=True)
class HighValue:
    rule_id: str
    value: str
    """Normalised: separators removed, case folded."""


class SecretScanner:
    def __init__(self, rules: Sequence[SecretRule]) -> None:
        self._rules = tuple(rules)

    def scan(self, text: str) -> list[SecretFinding]:
        """Every secret-rule finding in ``text``, in rule order."""
        text = text[:MAX_SCAN_CHARS]
        lowered = text.lower()
        findings: list[SecretFinding] = []
        for rule in self._rules:
            if rule.keywords and not any(k in lowered for k in rule.keywords):
                continue
            findings.extend(self._matches(rule, text))
        return findings

    def _matches(self, rule: SecretRule, text: str) -> Iterator[SecretFinding]:
        for start, end in rule.regex.spans(text):
            secret = text[start:end]
            if rule.min_entropy and entropy(secret) < rule.min_entropy:
                continue
            if rule.check is not None and not rule.check(secret):
                continue
            yield SecretFinding(rule.id, start, end)

    def rule_ids(self, text: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.rule_id for f in self.scan(text)))


_THREE_DIGITS = re.compile(r"[0-9]{3}")


def high_values(rules: Sequence[HighValueRule], text: str) -> list[HighValue]:
    """Short values worth linking (codes, IBANs, card numbers) found in ``text``.

    Every value worth linking holds three digits in a row; text without any is skipped whole.
    """
    found: list[HighValue] = []
    text = text[:MAX_SCAN_CHARS]
    if not _THREE_DIGITS.search(text):
        return found
    for rule in rules:
        for start, end in rule.regex.spans(text):
            raw = text[start:end]
            if rule.check is not None and not rule.check(raw):
                continue
            found.append(HighValue(rule.id, "".join(c for c in raw if c.isalnum()).casefold()))
    return found
