"""The untrusted content in the agent's context: which calls' results it holds, which of them
addressed the agent, and which asked it for something.

The agent's context is the hub every result passes through (see :mod:`.provenance`, rule 3).
What a later call can have been steered by is bounded: per untrusted capability its latest two
calls, and of the results that addressed the agent or asked for an act, the latest
``MAX_REMEMBERED``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterator

from .types import Capability

__all__ = ["MAX_REMEMBERED", "AgentContext"]

MAX_REMEMBERED = 64


class AgentContext:
    def __init__(self) -> None:
        self._latest: dict[Capability, int] = {}
        self._earlier: dict[Capability, int] = {}
        """The call before the latest of each untrusted capability: when the latest is the
        private read itself (a private README read with the tool that read the injected public
        one), the earlier one is the untrusted content that counts."""
        self._instructed: deque[int] = deque(maxlen=MAX_REMEMBERED)
        self._requesting: deque[int] = deque(maxlen=MAX_REMEMBERED)

    def note_untrusted(self, index: int, capability: Capability) -> None:
        """Call ``index`` of ``capability`` returned untrusted content."""
        latest = self._latest.get(capability)
        if latest is not None and latest != index:
            self._earlier[capability] = latest
        self._latest[capability] = index

    def note_asked(self, index: int, *, instructed: bool, requesting: bool) -> None:
        """Call ``index``'s result addressed the agent (``instructed``) or asked for an act."""
        if instructed:
            self._instructed.append(index)
        if requesting:
            self._requesting.append(index)

    def latest_before(self, index: int) -> list[int]:
        """The latest call of every untrusted capability, before ``index``."""
        return sorted(c for c in self._latest.values() if c < index)

    def untrusted_before(self, index: int, besides: Collection[int] = ()) -> list[int]:
        """Per untrusted capability, its latest call before ``index`` that is not in
        ``besides`` (of its latest two)."""
        found = []
        for capability, latest in self._latest.items():
            for call in (latest, self._earlier.get(capability)):
                if call is not None and call < index and call not in besides:
                    found.append(call)
                    break
        return sorted(found)

    def instructed_before(self, index: int) -> Iterator[int]:
        """The remembered calls before ``index`` whose results addressed the agent."""
        return (call for call in self._instructed if call < index)

    def requesting_before(self, index: int) -> Iterator[int]:
        """The remembered calls before ``index`` whose results asked for an act."""
        return (call for call in self._requesting if call < index)
