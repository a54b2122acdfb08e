"""The values under private-value keys of a session's private results (a card number, a
passport number, a street address) and those their prose names by a label ("Passport
YA4417382"), and finding them in a call's arguments.

A high-value rule finds a value by its shape (an IBAN, a code); these values have none to find
them by, so the text an argument carries is searched for each of them, squeezed to letters and
digits (see :func:`~cyclops.core.canon.squeezed`), in one pass of one automaton. The latest
``capacity`` values are kept: the automaton is rebuilt when they changed, at the next search.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from .canon import clean, squeezed
from .regex import LiteralSet
from .rules import ProvenanceSettings

__all__ = ["PrivateValues", "value_forms"]


def value_forms(
    settings: ProvenanceSettings, values: Iterable[str], prose: str | None = None
) -> list[str]:
    """``values`` (under private-value keys), and those ``prose`` names by their label
    (``Passport YA4417382``, see ``labelled_values``), in the form high values are compared
    in, without those a coincidence could make: too short, or one word without a digit
    (``elevated``; a distinctive word is fingerprinted like any other)."""
    if prose is not None and settings.labelled_values:
        labelled = (value for regex in settings.labelled_values for value in regex.marked(prose))
        values = (*values, *labelled)
    found = []
    for value in map(clean, values):
        form = squeezed(value)
        if len(form) >= settings.min_private_value and (
            not form.isalpha() or len(value.split()) > 1
        ):
            found.append(form)
    return found


class PrivateValues:
    def __init__(self, capacity: int = 1024) -> None:
        self._capacity = capacity
        self._values: OrderedDict[str, None] = OrderedDict()
        self._set: LiteralSet | None = None

    def add(self, values: Iterable[str]) -> None:
        """Values already squeezed."""
        for value in values:
            if value in self._values:
                self._values.move_to_end(value)
                continue
            self._values[value] = None
            self._set = None
            if len(self._values) > self._capacity:
                self._values.popitem(last=False)

    def found_in(self, cleaned: str) -> list[str]:
        """The values already ``clean`` text carries, whatever separates their parts."""
        if not self._values:
            return []
        if self._set is None:
            self._set = LiteralSet(self._values)
        return self._set.present(squeezed(cleaned))
