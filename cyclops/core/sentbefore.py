"""Values the agent sent before a result came back: that result did not give them to it.

Rules:

1. Every identifier and address in a call's arguments is noted with the first call that sent
   it, whether a value is it whole (``PR-633``) or holds it (the domain of a mail search's
   ``from:school.example``; a search operator's key is no part of the address).
2. An untrusted result gave the agent a value only if no call sent it before the result came
   back: a pull request read by its number does not choose that number for the merge.
3. Values longer than 128 characters are not read, and the first 4,096 values are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .arguments import ArgLeaf
from .canon import clean, matchable
from .distinctive import identifier, identifiers, locators

__all__ = ["SentBefore"]

_OPERATOR = re.compile(r"(?<![\w/])[a-z_]+:(?!//)")
_MAX_SENT = 4096
_MAX_SENT_VALUE = 128


class SentBefore:
    """The call that first sent each identifier and address in its arguments."""

    def __init__(self) -> None:
        self._first: dict[str, int] = {}

    def note(self, call: int, args: Iterable[ArgLeaf]) -> None:
        for leaf in args:
            if len(leaf.value) > _MAX_SENT_VALUE or len(self._first) >= _MAX_SENT:
                continue
            text = matchable(clean(leaf.value))
            tokens = identifiers(text) | locators(text)
            if ":" in text:
                tokens |= locators(_OPERATOR.sub(" ", text))
            if (whole := identifier(text)) is not None:
                tokens.add(whole)
            for token in tokens:
                self._first.setdefault(token, call)

    def given(self, value: str, result_call: int) -> bool:
        """Whether the result of ``result_call`` can have given the agent ``value``: no call
        up to it sent the value."""
        first = self._first.get(value)
        return first is None or first > result_call
