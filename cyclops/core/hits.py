"""What a lookup in the fingerprint index finds: a hit, and its kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .types import Label

__all__ = ["Hit", "HitKind"]


class HitKind(StrEnum):
    FRAGMENT = "fragment"
    SHINGLE = "shingle"
    LOCATOR = "locator"
    HIGH_VALUE = "high_value"
    CONTINUATION = "continuation"
    """A piece too short to link alone that continues a span a destination received (see
    :mod:`.continuation`)."""
    OPAQUE_ID = "opaque_id"
    """A value under an opaque-id key of a private result (see :attr:`Segment.ids`) that a
    call carrying pieces of that result carries too."""
    RECORD = "record"
    """A short value of a private record, one of several of that record a call carries (see
    :mod:`.records`): linked together, like a high value, however short each is."""
    PRECEDING = "preceding"
    """A piece (or id) that an earlier call to the same destination sent right before what a
    call carries (see :mod:`.continuation`): it counts, it is no anchor for the next call."""

    @property
    def links(self) -> bool:
        """Whether a hit of this kind is evidence on its own; the others only add bytes to a
        leak that linked pieces make."""
        return self not in (HitKind.CONTINUATION, HitKind.OPAQUE_ID, HitKind.PRECEDING)


@dataclass(frozen=True)
class Hit:
    segment: int
    call: int
    labels: frozenset[Label]
    kind: HitKind
    start: int = 0
    end: int = 0
    """The span of the segment's text that the looked-up text carries (sensitive segments)."""
    value: str = ""
    """For high-value and locator hits: the matched value (kept in memory, never reported)."""
    at: int = field(default=-1, compare=False)
    """For fragments: where the copy starts in the text looked up."""
    reach: tuple[int, int] | None = field(default=None, compare=False)
    """For fragments: the whole copy in the segment's text, before it was cut to whole words
    (``sokqusok-809.i``): where pieces sent before and after it join on."""

    @property
    def joins(self) -> tuple[int, int]:
        """Where pieces sent before and after this one join on: its reach, else its span."""
        return self.reach if self.reach is not None else (self.start, self.end)
