"""Whose records a read looks up: a customer's invoices, fetched by the address she wrote from,
are hers, and sending them back to her alone is no leak.

Rules:

1. A read (a call labelled neither egress nor privileged) whose arguments name exactly one
   e-mail address, in a value with no disjunction, union, negation or pattern (``OR``, ``||``,
   ``UNION``, ``NOT``, ``<>``, ``LIKE``), looks up that address's records
   (``list_customers(email=...)``, ``... WHERE c.email = '...'``): the address owns its result.
2. A read whose arguments name no address, and whose every identifier (a customer id, an order
   number) is found in the result of a read one address owns, looks up records of that
   address too (a customer's id from the customer lookup, then her invoices). The lookup's
   result counts labelled or not: a bare user id found by an address is neither.
3. A result that names another e-mail address than its owner's is not one owner's records (a
   listing of several customers): it has no owner; nor has a result of more than 1 MB.
4. The owners of the latest ``MAX_OWNED`` calls, and the first 16 KB of the texts of the latest
   ``MAX_TEXTS`` owned results, are kept; a read by more than 16 identifiers inherits none.

What a result's owner is sent, at their address only, is no leak of it (see
``Provenance.private_hits_of``).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from itertools import chain

from .arguments import ArgLeaf, emails_in
from .canon import clean, matchable
from .distinctive import identifiers
from .types import Label, ToolResult

__all__ = ["Owners"]

MAX_OWNED = 1024
MAX_TEXTS = 32
_MAX_TEXT = 16384  # an owned result's text kept (a customer's record is near its start)
_MAX_RECORDS = 1 << 20  # a bigger result is no one person's records
_MAX_IDS = 16  # a read by more identifiers looks up more than one owner's records
_MIN_ID = 6  # characters of an identifier that ties a read to an owned result
# What makes a lookup by one address return others' records too: a disjunction, a union, a
# negation, a pattern (``WHERE email <> 'a@x'``, ``... UNION SELECT``, ``LIKE '%@x'``).
_NOT_ONE_ADDRESS = re.compile(r"(?i)\b(?:or|union|not|like|ilike)\b|\|\||!=|<>")
_NOT_A_READ = frozenset({Label.EGRESS, Label.PRIVILEGED})


class Owners:
    """The owner, if any, of each recent call's result."""

    def __init__(self) -> None:
        self._owner: OrderedDict[int, str] = OrderedDict()
        self._texts: OrderedDict[int, str] = OrderedDict()

    def owner(self, call: int) -> str | None:
        return self._owner.get(call)

    def note_call(self, call: int, labels: frozenset[Label], args: Sequence[ArgLeaf]) -> None:
        """Rules 1 and 2, for a call about to run."""
        if labels & _NOT_A_READ:
            return
        owner = _looked_up(args) or self._inherited(args)
        if owner is not None:
            self._owner[call] = owner
            while len(self._owner) > MAX_OWNED:
                self._owner.popitem(last=False)

    def note_result(self, call: int, result: ToolResult) -> None:
        """Rule 3, and keep an owned result's text (with its ids) for rule 2."""
        owner = self._owner.get(call)
        if owner is None:
            return
        text = "\n".join(chain(result.texts, *result.ids))
        if len(text) > _MAX_RECORDS or emails_in(text) - {owner}:
            del self._owner[call]
            return
        self._texts[call] = matchable(clean(text[:_MAX_TEXT]))
        while len(self._texts) > MAX_TEXTS:
            self._texts.popitem(last=False)

    def _inherited(self, args: Sequence[ArgLeaf]) -> str | None:
        if not self._texts:
            return None
        tokens = {
            token
            for leaf in args
            for token in identifiers(matchable(clean(leaf.value)))
            if len(token) >= _MIN_ID
        }
        if not tokens or len(tokens) > _MAX_IDS:
            return None
        found = set()
        for token in tokens:
            owners = {self._owner.get(c) for c, text in self._texts.items() if token in text}
            owners.discard(None)
            if len(owners) != 1:
                return None
            found |= owners
        return found.pop() if len(found) == 1 else None


def _looked_up(args: Sequence[ArgLeaf]) -> str | None:
    """The one address a read's arguments name, and nothing that reaches past it (rule 1)."""
    named: set[str] = set()
    for leaf in args:
        found = emails_in(leaf.value)
        if found and _NOT_ONE_ADDRESS.search(leaf.value):
            return None
        named |= found
    return named.pop() if len(named) == 1 else None
