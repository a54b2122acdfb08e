"""The typed vocabulary of the detection core: labels, flow classes, actions, events, decisions.

Everything the core takes in or hands out is one of these: enums for the closed sets, frozen
dataclasses for the records. Reports (session.json, replay lines) are built from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias

__all__ = [
    "JSON",
    "Action",
    "ArgPath",
    "Capability",
    "ChainLink",
    "Decision",
    "Evidence",
    "EvidenceKind",
    "Flow",
    "FlowClass",
    "Label",
    "Mode",
    "Owasp",
    "Reason",
    "Severity",
    "ToolCall",
    "ToolResult",
]

JSON: TypeAlias = Any
"""A value decoded from JSON: dict, list, str, int, float, bool or None."""

ArgPath: TypeAlias = str
"""Where a value sits inside a call's arguments, e.g. ``body`` or ``recipients[0]``."""


class Label(StrEnum):
    """A taint label. A call may carry several at once (a mailbox is untrusted and sensitive)."""

    UNTRUSTED = "untrusted"
    """Its result carries content a third party controls (a web page, an issue, an e-mail)."""
    SENSITIVE = "sensitive"
    """Its result carries private data (a key file, a mailbox, a secret)."""
    EGRESS = "egress"
    """It sends data somewhere others can read (a post, an HTTP request, an e-mail)."""
    PRIVILEGED = "privileged"
    """It changes the world in a way that is hard to undo (run a command, push, delete)."""


class Mode(StrEnum):
    DETECT = "detect"
    """Flag toxic calls and let them run."""
    PREVENT = "prevent"
    """Deny toxic calls before they run."""


class Action(StrEnum):
    """What happens to a call. ``redact`` and ``ask`` are reserved for the per-call controls."""

    ALLOW = "allow"
    FLAG = "flag"
    DENY = "deny"
    REDACT = "redact"
    ASK = "ask"


class FlowClass(StrEnum):
    EXFILTRATION = "exfiltration"
    """Sensitive data reaches an egress call in a session that untrusted content reached."""
    SECRET_EGRESS = "secret_egress"
    """An egress call carries a recognised secret, wherever the agent got it."""
    EXCESSIVE_AGENCY = "excessive_agency"
    """Untrusted content reaches a privileged call."""
    SELF_CONTAINED_ROUTE = "self_contained_route"
    """One tool is untrusted, sensitive and egress at once: a route no other call is needed for."""

    @property
    def owasp(self) -> Owasp:
        return _OWASP[self]


class Owasp(StrEnum):
    """The OWASP Top 10 for LLM Applications (2025) entries our flow classes map to."""

    LLM02 = "LLM02:2025 Sensitive Information Disclosure"
    LLM06 = "LLM06:2025 Excessive Agency"

    @property
    def code(self) -> str:
        return self.value.split(":", 1)[0]


_OWASP = {
    FlowClass.EXFILTRATION: Owasp.LLM02,
    FlowClass.SECRET_EGRESS: Owasp.LLM02,
    FlowClass.EXCESSIVE_AGENCY: Owasp.LLM06,
    # A tool that reads, holds and sends on its own is excessive functionality: the fix is to
    # narrow the tool (or ask before it sends), not to cut a flow between tools.
    FlowClass.SELF_CONTAINED_ROUTE: Owasp.LLM06,
}


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class EvidenceKind(StrEnum):
    """How untrusted content reached the flow."""

    DATA = "data"
    """Distinctive pieces of untrusted content appear in the arguments of a call on the path."""
    INFLUENCE = "influence"
    """Untrusted content only entered the agent's context earlier in the session."""
    NONE = "none"
    """No untrusted content was involved (possible for secret egress)."""


class Reason(StrEnum):
    """Typed reasons attached to a decision (besides the flows it found)."""

    TOXIC_FLOW = "toxic_flow"
    MODE_DETECT = "mode_detect"
    """The flow's action was deny/redact/ask, but detect mode only flags."""
    INTERNAL_ERROR = "internal_error"


@dataclass(frozen=True, order=True)
class Capability:
    """A (server, tool) pair: the unit a choke point removes."""

    server: str
    tool: str

    def __str__(self) -> str:
        return f"{self.server}/{self.tool}"


@dataclass(frozen=True)
class ToolCall:
    """A call about to run."""

    server: str
    tool: str
    arguments: Mapping[str, JSON] = field(default_factory=dict)
    at: float | None = None
    """Seconds since the epoch, supplied by the caller (the core reads no clock)."""

    @property
    def capability(self) -> Capability:
        return Capability(self.server, self.tool)


@dataclass(frozen=True)
class ToolResult:
    """What a call returned, reduced to what detection reads."""

    texts: tuple[str, ...] = ()
    """Every textual piece of the result, in order (text blocks, resource text, structured
    content strings)."""
    is_error: bool = False


@dataclass(frozen=True)
class ChainLink:
    index: int
    """The call's position in its session, from 0."""
    capability: Capability
    labels: frozenset[Label]
    role: Label
    """Which part this call plays in the flow (untrusted source, sensitive source, sink)."""


@dataclass(frozen=True)
class Evidence:
    untrusted: EvidenceKind
    steered_arguments: tuple[ArgPath, ...] = ()
    """Destination arguments (recipient, URL, channel...) that carry untrusted content."""
    untrusted_arguments: tuple[ArgPath, ...] = ()
    """Arguments of the sink that carry untrusted content (destination or not)."""
    sensitive_arguments: tuple[ArgPath, ...] = ()
    """Arguments of the sink that carry sensitive data."""
    secret_rules: tuple[str, ...] = ()
    """Ids of the secret rules that matched the sink's arguments."""

    @property
    def steered(self) -> bool:
        return bool(self.steered_arguments)


@dataclass(frozen=True)
class Flow:
    flow_class: FlowClass
    severity: Severity
    call_index: int
    chain: tuple[ChainLink, ...]
    evidence: Evidence
    choke_point: tuple[Capability, ...]
    leaked_bytes: int
    """Distinct bytes of sensitive content this call carried to the sink."""
    destination: str | None = None
    """A coarse, secret-free name of where the data went (registrable domain, e-mail domain...)."""
    action: Action = Action.FLAG
    """What was done to the call that completed the flow."""

    @property
    def owasp(self) -> Owasp:
        return self.flow_class.owasp


@dataclass(frozen=True)
class Decision:
    index: int
    """The call's position in its session, from 0."""
    call: ToolCall
    action: Action
    labels: frozenset[Label]
    flows: tuple[Flow, ...] = ()
    reasons: tuple[Reason, ...] = ()
    leaked_bytes: int = 0
    """Distinct bytes of sensitive content in this call's arguments."""

    @property
    def forwards(self) -> bool:
        """Whether the call goes on to its server."""
        return self.action in (Action.ALLOW, Action.FLAG, Action.REDACT)
