"""A session's verdict: everything session.json reports, as typed records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .types import Action, Capability, ControlFinding, ControlKind, Flow, FlowClass, Label, Mode

__all__ = ["ControlEvent", "Eviction", "Metrics", "Verdict"]


@dataclass(frozen=True)
class ControlEvent:
    """A per-call control that matched a call of the session, and what was done to the call."""

    call_index: int
    capability: Capability
    finding: ControlFinding
    action: Action
    """The call's final action (the strictest over its flows and controls, after the mode)."""


@dataclass(frozen=True)
class Metrics:
    calls: int = 0
    allowed: int = 0
    flagged: int = 0
    denied: int = 0
    redacted: int = 0
    asked: int = 0
    errors: int = 0
    """Calls decided by the fail-closed path after an internal error."""
    by_label: Mapping[Label, int] = field(default_factory=dict)
    by_class: Mapping[FlowClass, int] = field(default_factory=dict)
    by_control: Mapping[ControlKind, int] = field(default_factory=dict)

    @classmethod
    def counted(
        cls,
        calls: int,
        actions: Mapping[Action, int],
        counts: Mapping[Label | FlowClass | ControlKind, int],
        *,
        asked: int,
        errors: int,
    ) -> Metrics:
        """From a session's counters: calls per action, and per label, flow class and control
        kind (``counts``: every one of them listed, 0 if none)."""
        return cls(
            calls=calls,
            allowed=actions.get(Action.ALLOW, 0),
            flagged=actions.get(Action.FLAG, 0),
            denied=actions.get(Action.DENY, 0),
            redacted=actions.get(Action.REDACT, 0),
            asked=asked,
            errors=errors,
            by_label={label: counts.get(label, 0) for label in Label},
            by_class={flow_class: counts.get(flow_class, 0) for flow_class in FlowClass},
            by_control={kind: counts.get(kind, 0) for kind in ControlKind},
        )


@dataclass(frozen=True)
class Eviction:
    """State dropped to stay within the memory limits; detection may miss flows through it."""

    calls: int = 0
    segments: int = 0
    files: int = 0
    """Written files forgotten (see :mod:`.staging`): a later call that sends one sends
    nothing cyclops knows of."""

    @property
    def any(self) -> bool:
        return bool(self.calls or self.segments or self.files)


@dataclass(frozen=True)
class Verdict:
    session: str
    mode: Mode
    flows: tuple[Flow, ...]
    leaked_bytes: int
    """Sensitive bytes that reached a sink (calls that were forwarded)."""
    blocked_bytes: int
    """Sensitive bytes carried by calls that were denied."""
    leaked_by_destination: Mapping[str, int]
    choke_point: tuple[Capability, ...]
    """The fewest capabilities whose removal breaks every toxic route seen in the session."""
    metrics: Metrics
    evicted: Eviction
    patterns_sha256: str
    controls: tuple[ControlEvent, ...] = ()
    """The latest control events (at most ``MAX_CONTROL_EVENTS``; metrics count them all)."""
    quarantined: tuple[Capability, ...] = ()
    """Tools held back now because they changed since they were pinned."""
    breaker_tripped: bool = False

    @property
    def toxic(self) -> bool:
        return bool(self.flows)
