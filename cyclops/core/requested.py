"""Requests in untrusted content: which actions a text asks its reader for.

A third party's text can ask for an action with no marker words in it ("Please unlock my front
door", "TODO: Delete the file with ID 13"). Asking is ordinary (a colleague asks for a report),
so a request counts only for a privileged call that does what it asks (not a booking or a
purchase: reviews say "please book ahead"; see ``Labeller.requests_counted``): a tool whose
verb (the first word of its name in ``[tools] verbs``: ``unlock`` in
``AugustSmartLockUnlockDoor``) is the verb asked for, or shares one of ``[tools.verb_groups]``
with it (``erase`` asks for ``GitHubDeleteRepository``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .regex import SafeRegex, alternation, spellings
from .rules import Patterns

__all__ = ["Requests"]


class Requests:
    def __init__(self, patterns: Patterns) -> None:
        self._markers = patterns.request_markers
        self._any = _prefilter(self._markers)
        self._verbs = patterns.tool_verbs
        self._groups = patterns.verb_groups
        self.answered_by = lru_cache(maxsize=4096)(self._answered_by)

    def asked(self, texts: Sequence[str]) -> frozenset[str]:
        """The verbs (lower case) the texts ask their reader to act on."""
        return frozenset(
            verb.lower()
            for text in texts
            if self._any is None or self._any.search(text)
            for m in self._markers
            for verb in m.marked(text)
        )

    def _answered_by(self, tool: str) -> frozenset[str]:
        """The verbs a request asks for when it asks for what ``tool`` does (none for a tool
        whose name has no verb)."""
        words = spellings(tool)[-1].lower().split("_")
        verb = next((word for word in words if word in self._verbs), None)
        if verb is None:
            return frozenset()
        return frozenset({verb}).union(*(group for group in self._groups if verb in group))


def _prefilter(markers: tuple[SafeRegex, ...]) -> SafeRegex | None:
    """The markers as one alternation without their groups: most texts ask for nothing, and
    one pass tells (then each marker runs, to read its verb)."""
    if len(markers) < 2:
        return None
    return alternation([m.pattern.replace("(?P<verb>", "(?:") for m in markers])
