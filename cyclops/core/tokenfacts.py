"""What the fingerprint index needs to know of each token of a private text, worked out once
per distinct token.

A token's facts depend on the token alone: whether it is distinctive, its secret-like parts,
and the k-grams it is fingerprinted with. Tokens recur — an identifier throughout a source file,
a key in every row of a JSON result, a host in every line of a config — so the facts are kept
by token, and a text costs its tokenising plus the work for the tokens not seen before. The
memo changes no result: the facts of a token are the same whether worked out now or earlier.
What secret rules matched in a text is a fact of the text, added after the tokens' (see
:meth:`TokenFacts.of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add, not_

from .distinctive import are_distinctive, secret_like
from .rules import ProvenanceSettings
from .text import IntervalSet, tokens

__all__ = ["TextFacts", "TokenFacts"]

_NOT_DISTINCTIVE = None


@dataclass(frozen=True, slots=True)
class _Facts:
    """One distinctive token's facts, at offsets from its start."""

    secret_parts: tuple[tuple[int, int], ...]
    gram_offsets: tuple[int, ...]
    gram_keys: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TextFacts:
    """A text's distinctive tokens, their secret-like parts and k-grams, at offsets in the text."""

    spans: list[tuple[int, int]]
    secret_parts: list[tuple[int, int]]
    gram_offsets: list[int]
    gram_keys: list[int]


class TokenFacts:
    """The facts of the tokens of canonical texts, memoised per token (about ``max_tokens``:
    past that the memo starts afresh, with the tokens of the text at hand)."""

    def __init__(self, settings: ProvenanceSettings, max_tokens: int = 65536) -> None:
        self._s = settings
        self._max = max_tokens
        self._known: dict[str, _Facts | None] = {}

    def of(self, text: str, secrets: Iterable[str] = ()) -> TextFacts:
        """``secrets``: values secret rules matched, secret-like wherever they are in ``text``
        whatever their characters (``glpat-`` and twenty letters): every k-gram of theirs."""
        facts = self._of_tokens(text)
        found = _spans_of(text, secrets, self._s.kgram)
        if not found:
            return facts
        every = [p for start, end in found for p in range(start, end - self._s.kgram + 1)]
        return TextFacts(
            facts.spans,
            list(IntervalSet(facts.secret_parts + found)),
            facts.gram_offsets + every,
            facts.gram_keys + [hash(text[p : p + self._s.kgram]) for p in every],
        )

    def _of_tokens(self, text: str) -> TextFacts:
        spans = tokens(text, self._s.min_token_length)
        words = [text[a:b] for a, b in spans]
        known = self._known
        new = [w for w in dict.fromkeys(words) if w not in known]
        if len(known) + len(new) > self._max:
            known.clear()  # and this text's tokens are all worked out again
            new = list(dict.fromkeys(words))
        if new:
            known.update(zip(new, self._work_out(new), strict=True))
        found = list(map(known.__getitem__, words))  # facts are truthy, _NOT_DISTINCTIVE not
        facts = TextFacts(list(compress(spans, found)), [], [], [])
        for (start, _), token in zip(facts.spans, filter(None, found), strict=True):
            if token.secret_parts:
                facts.secret_parts.extend((start + a, start + b) for a, b in token.secret_parts)
            facts.gram_offsets.extend(map(add, token.gram_offsets, repeat(start)))
            facts.gram_keys.extend(token.gram_keys)
        return facts

    def _work_out(self, words: list[str]) -> list[_Facts | None]:
        judged = are_distinctive(words, self._s)
        return [
            self._facts(word) if distinctive else _NOT_DISTINCTIVE
            for word, distinctive in zip(words, judged, strict=True)
        ]

    def _facts(self, word: str) -> _Facts:
        k = self._s.kgram
        parts = secret_like(word, self._s.secret_entropy)
        positions = range(len(word) - k + 1)
        grams = [word[p : p + k] for p in positions]
        if (0, len(word)) in parts:  # random-looking throughout: every k-gram
            return _Facts(tuple(parts), tuple(positions), tuple(map(hash, grams)))
        # Inside an identifier (``object.__getitem__``) a k-gram of letters only is a piece of an
        # ordinary word; a copy of the identifier is found by the k-grams across its symbols.
        # Inside a secret-like part (the value of ``TOKEN=...``) every k-gram is kept: letters
        # there are as random as the rest, and a piece of the secret may hold no other kind.
        keep = list(map(not_, map(str.isalpha, grams)))
        for a, b in parts:
            keep[a : b - k + 1] = repeat(True, max(0, b - k + 1 - a))
        return _Facts(
            tuple(parts),
            tuple(compress(positions, keep)),
            tuple(map(hash, compress(grams, keep))),
        )


def _spans_of(text: str, values: Iterable[str], shortest: int) -> list[tuple[int, int]]:
    """Where each of ``values`` (at least ``shortest`` long) lies in ``text``, every time."""
    spans = []
    for value in dict.fromkeys(v for v in values if len(v) >= shortest):
        at = text.find(value)
        while at >= 0:
            spans.append((at, at + len(value)))
            at = text.find(value, at + 1)
    return spans
