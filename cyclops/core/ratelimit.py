"""Rate limits, egress byte budgets and the circuit breaker of one session.

Time is passed in (``ToolCall.at``); nothing here reads a clock. Rules:

1. A rate limit allows ``calls`` calls per ``seconds`` seconds (sliding window) for each
   (server, tool) that matches its globs, and one limit may cover the whole session.
2. An egress budget allows ``bytes`` bytes of arguments to each destination over the session.
3. The breaker trips after ``denials`` denied calls in the session: from then on every egress
   call is denied, until the session ends or :meth:`Limiter.reset_breaker` is called.
4. Only calls that were let through count against limits and budgets.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from .regex import GlobSet
from .types import Capability

__all__ = ["Breach", "Budget", "Limiter", "RateRule"]


@dataclass(frozen=True)
class RateRule:
    id: str
    servers: GlobSet
    tools: GlobSet
    calls: int
    seconds: float
    per_session: bool = False
    """One window for every matching call of the session, not one per (server, tool)."""


@dataclass(frozen=True)
class Budget:
    bytes: int
    """Bytes of arguments one destination may receive in a session (0: no budget)."""


@dataclass(frozen=True)
class Breach:
    rule: str
    """The rate rule id, ``egress-budget`` or ``breaker``."""


class Limiter:
    def __init__(self, rules: tuple[RateRule, ...], budget: Budget, breaker_denials: int) -> None:
        self._rules = rules
        self._budget = budget
        self._breaker_denials = breaker_denials
        self._windows: dict[tuple[str, Capability | None], deque[float]] = defaultdict(deque)
        self._sent: dict[str, int] = defaultdict(int)
        self._denials = 0
        self.tripped = False

    def check(
        self, capability: Capability, at: float | None, egress: bool, destination: str, size: int
    ) -> list[Breach]:
        """What this call would breach if it ran now."""
        breaches = []
        if egress and self.tripped:
            breaches.append(Breach("breaker"))
        if at is not None:
            for rule, window in self._matching(capability):
                while window and window[0] <= at - rule.seconds:
                    window.popleft()
                if len(window) >= rule.calls:
                    breaches.append(Breach(rule.id))
        if egress and self._budget.bytes and self._sent[destination] + size > self._budget.bytes:
            breaches.append(Breach("egress-budget"))
        return breaches

    def record(
        self, capability: Capability, at: float | None, egress: bool, destination: str, size: int
    ) -> None:
        """The call ran: count it."""
        if at is not None:
            for _, window in self._matching(capability):
                window.append(at)
        if egress:
            self._sent[destination] += size

    def denied(self) -> None:
        """A call was denied (for any reason): the breaker counts it."""
        self._denials += 1
        if self._breaker_denials and self._denials >= self._breaker_denials:
            self.tripped = True

    def reset_breaker(self) -> None:
        self._denials = 0
        self.tripped = False

    def _matching(self, capability: Capability) -> list[tuple[RateRule, deque[float]]]:
        matched = []
        for rule in self._rules:
            if rule.servers.matches(capability.server) and rule.tools.matches_name(capability.tool):
                key = (rule.id, None if rule.per_session else capability)
                matched.append((rule, self._windows[key]))
        return matched
