"""Secret rules and high-value values, run over (clean, case-preserved) text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .canon import squeezed
from .regex import LiteralSet
from .rules import HighValueRule, SecretRule
from .text import entropy

__all__ = [
    "HighValue",
    "KeywordFinder",
    "SecretFinding",
    "SecretScanner",
    "digit_runs",
    "high_value_pieces",
    "high_values",
]

# RE2 is linear, but a 50 MB argument is still 50 MB: rules look at a bounded prefix.
MAX_SCAN_CHARS = 4 * 1024 * 1024


@dataclass(frozen=True)
class SecretFinding:
    rule_id: str
    start: int
    end: int
    secret: str = field(default="", repr=False, compare=False)
    """The matched text, kept only to redact it; never reported, never in a repr."""


@dataclass(frozen=True)
class HighValue:
    rule_id: str
    value: str
    """Normalised: separators removed, case folded."""


class SecretScanner:
    def __init__(self, rules: Sequence[SecretRule]) -> None:
        self._rules = tuple(rules)
        self._keywords = KeywordFinder(k for rule in self._rules for k in rule.keywords)
        self._always = frozenset(i for i, rule in enumerate(self._rules) if not rule.keywords)
        self._by_keyword: dict[str, list[int]] = {}
        for i, rule in enumerate(self._rules):
            for keyword in rule.keywords:
                self._by_keyword.setdefault(keyword, []).append(i)

    def scan(self, text: str) -> list[SecretFinding]:
        """Every secret-rule finding in ``text``, in rule order."""
        text = text[:MAX_SCAN_CHARS]
        present = self._keywords.present(text.lower())
        # The rules to run: those without keywords, and those with a keyword present.
        chosen = set(self._always).union(*(self._by_keyword[k] for k in present))
        findings: list[SecretFinding] = []
        for i in sorted(chosen):
            findings.extend(self._matches(self._rules[i], text))
        return findings

    def _matches(self, rule: SecretRule, text: str) -> Iterator[SecretFinding]:
        for start, end in rule.regex.spans(text):
            secret = text[start:end]
            if rule.min_entropy and entropy(secret) < rule.min_entropy:
                continue
            if rule.check is not None and not rule.check(secret):
                continue
            yield SecretFinding(rule.id, start, end, secret)

    def rule_ids(self, text: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.rule_id for f in self.scan(text)))


class KeywordFinder:
    """Which of many keywords a (lower-cased) text contains, in one pass."""

    def __init__(self, keywords: Iterable[str]) -> None:
        self._set = LiteralSet(keywords)

    def present(self, lowered: str) -> frozenset[str]:
        return frozenset(self._set.present(lowered))


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
            found.append(HighValue(rule.id, squeezed(raw)))
    return found


def high_value_pieces(min_pieces: Mapping[str, int], values: Sequence[HighValue]) -> list[str]:
    """Every run of consecutive digits of ``values`` as long as their rule's ``min_piece``
    (``min_pieces``: rule id → it) or longer, short of the whole value: what a value sent in
    pieces is looked up by."""
    pieces: list[str] = []
    for found in values:
        size = min_pieces.get(found.rule_id, 0)
        digits = found.value
        if not size or not digits.isdigit():
            continue
        for length in range(size, len(digits)):
            pieces.extend(digits[i : i + length] for i in range(len(digits) - length + 1))
    return pieces


_DIGIT_RUN = re.compile(r"[0-9](?:[ -]?[0-9])+")


def digit_runs(text: str, shortest: int) -> list[str]:
    """The runs of digits in ``text`` (spaces and hyphens between them dropped) of at least
    ``shortest`` digits: the pieces of a high value an egress call may carry."""
    runs = (squeezed(run) for run in _DIGIT_RUN.findall(text[:MAX_SCAN_CHARS]))
    return [run for run in runs if len(run) >= shortest]
