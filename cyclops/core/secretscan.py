"""Secret rules and high-value values, run over (clean, case-preserved) text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .patterns import HighValueRule, SecretRule
from .regex import SafeRegex
from .text import entropy

__all__ = ["HighValue", "KeywordFinder", "SecretFinding", "SecretScanner", "high_values"]

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
    """Which of many keywords a text contains, in one pass of one RE2 alternation.

    RE2 reports non-overlapping matches, longest keyword first at each position. A keyword that
    starts inside a match is either inside the matched keyword (implied by it) or straddles its
    end (looked for directly); so no keyword present is missed.
    """

    def __init__(self, keywords: Iterable[str]) -> None:
        words = sorted(set(keywords), key=lambda k: (-len(k), k))
        self._regex = SafeRegex("|".join(re.escape(w) for w in words)) if words else None
        self._inside = {w: frozenset(o for o in words if o != w and o in w) for w in words}
        self._straddling = _straddling(words)

    def present(self, lowered: str) -> frozenset[str]:
        if self._regex is None:
            return frozenset()
        found: set[str] = set()
        maybe: set[str] = set()
        for word in self._regex.texts(lowered):
            if word not in found:
                found.add(word)
                found |= self._inside[word]
                maybe |= self._straddling[word]
        found |= {word for word in maybe - found if word in lowered}
        return frozenset(found)


def _straddling(words: list[str]) -> dict[str, frozenset[str]]:
    """Per keyword, the keywords that can start inside it and end after it: those that a proper
    suffix of it is a proper prefix of (looked up by prefix, not pair by pair: a session's
    scanner is built at its start)."""
    by_prefix: dict[str, set[str]] = {}
    for other in words:
        for end in range(1, len(other)):
            by_prefix.setdefault(other[:end], set()).add(other)
    return {
        word: frozenset().union(*(by_prefix.get(word[i:], ()) for i in range(1, len(word))))
        for word in words
    }


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
