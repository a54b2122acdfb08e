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
    "GET_PROMPT",
    "HOSTILE_ROLE",
    "JSON",
    "LISTING",
    "READ_RESOURCE",
    "Action",
    "ArgPath",
    "Capability",
    "ChainLink",
    "Container",
    "ControlFinding",
    "ControlKind",
    "Decision",
    "Evidence",
    "EvidenceKind",
    "Flow",
    "FlowClass",
    "Label",
    "Mode",
    "Owasp",
    "Place",
    "Reason",
    "Severity",
    "ToolCall",
    "ToolResult",
]

JSON: TypeAlias = Any
"""A value decoded from JSON: dict, list, str, int, float, bool or None."""

LISTING = "tools/list"
"""The tool name under which a server's tool listing reaches the core as a call (the proxy
feeds the descriptions that instruct the agent as its result): a listing whose result is
untrusted gives its server the ``HOSTILE_ROLE``."""

READ_RESOURCE = "resources/read"
"""The tool name under which a resource read reaches the core as a call (arguments ``{"uri":
...}``): roles label it like their other reads; its URI reaches a host only with one of the
``[egress] resource_schemes`` (a ``repo://`` or ``test://`` URI names the server's own data)."""

GET_PROMPT = "prompts/get"
"""The tool name under which a prompt reaches the core as a call (arguments ``{"name": ...,
"arguments": {...}}``): its messages enter the agent's context like a tool's result, and a
server's prompt that addresses the agent is untrusted content."""

HOSTILE_ROLE = "hostile"
"""The role of a server whose tool descriptions instruct the agent (tool poisoning)."""

ArgPath: TypeAlias = str
"""Where a value sits inside a call's arguments, e.g. ``body`` or ``recipients[0]``."""

Container: TypeAlias = tuple[tuple[str, str], ...]
"""Where a call reads or writes (a repository, a channel): its arguments under its roles'
``container_keys``, as sorted (key, case-folded value) pairs; empty when it names none."""


@dataclass(frozen=True)
class Place:
    """Where a call reads or writes."""

    container: Container = ()
    checkouts: frozenset[str] = frozenset()
    """Directory names a local copy of its container lives in (``checkout_keys``' values)."""
    directories: frozenset[str] = frozenset()
    """Directory names in the local paths its arguments name (none for a key or a secret file:
    such a file never goes back to a repository)."""
    paths: frozenset[str] = frozenset()
    """The absolute local paths its arguments name, whole (see ``arguments.local_path``; none
    for a key or a secret file, as above): a push of a directory holding one returns what the
    call read there (see :mod:`.staging`)."""


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
    """What happens to a call, from the mildest to the strictest."""

    ALLOW = "allow"
    FLAG = "flag"
    """Forward it, and report it."""
    REDACT = "redact"
    """Forward it with the offending values replaced by ``[REDACTED:<rule>]``."""
    ASK = "ask"
    """Ask the user (MCP elicitation on the host); deny without a yes."""
    DENY = "deny"

    @property
    def strictness(self) -> int:
        return _STRICTNESS[self]


_STRICTNESS = {action: rank for rank, action in enumerate(Action)}


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
    INSTRUCTION = "instruction"
    """Untrusted content that addressed the agent (an untrusted marker: an injected
    instruction) entered its context earlier in the session: the session is under attack."""
    INFLUENCE = "influence"
    """Untrusted content only entered the agent's context earlier in the session."""
    NONE = "none"
    """No untrusted content was involved (possible for secret egress)."""


class Reason(StrEnum):
    """Typed reasons attached to a decision (besides the flows and controls it found)."""

    TOXIC_FLOW = "toxic_flow"
    CONTROL = "control"
    """A per-call control matched (see the decision's controls)."""
    MODE_DETECT = "mode_detect"
    """The action wanted was deny/redact/ask, but detect mode only flags."""
    USER_APPROVED = "user_approved"
    USER_REFUSED = "user_refused"
    NO_ANSWER = "no_answer"
    """Asked, but the host cannot ask its user or no answer came in time: denied."""
    INTERNAL_ERROR = "internal_error"


class ControlKind(StrEnum):
    """The per-call controls: each checks one call on its own, before it reaches a server."""

    SECRET = "secret"
    """A secret rule matched an egress call's arguments (``rule``: the rule id)."""
    DESTINATION = "destination"
    """An egress host or e-mail domain is denied or not allowed (``rule``: ``deny-list``,
    ``not-allowed`` or ``look-alike``)."""
    SSRF = "ssrf"
    """A URL points inside: loopback, private, link-local, metadata (``rule``: which)."""
    PATH = "path"
    """A path argument is outside the server's roots or sensitive (``rule``: ``outside-roots``
    or ``sensitive-path``)."""
    RATE = "rate"
    """A rate limit is exceeded (``rule``: the limit's id)."""
    BUDGET = "budget"
    """The egress byte budget of a destination is spent (``rule``: ``egress-budget``)."""
    BREAKER = "breaker"
    """The session's breaker tripped after repeated denials (``rule``: ``breaker``)."""
    PIN = "pin"
    """The tool changed since it was pinned and is quarantined (``rule``: ``tool-changed``)."""
    TOOL = "tool"
    """A per-tool rule names the tool (``rule``: the rule's id), e.g. a cut ``cyclops scan``
    found."""


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
    ids: tuple[tuple[str, ...], ...] = ()
    """Per text (same order; empty when none has any), the values under opaque-id keys that
    JSON held: they link nothing, but count as leaked when a leak of their text carries them."""
    fields: tuple[tuple[str, str], ...] = ()
    """The top-level keys of the JSON object the result is (its structured content, or a text
    that is one) whose values are strings or shallow lists and objects of them, each with its
    value as JSON: where a mail's ``from`` and ``to`` are read."""
    private: tuple[tuple[str, ...], ...] = ()
    """Per text (same order; empty when none has any), the values under private-value keys
    (``card_number``, ``passport_number``...) its JSON held: they are in the text too, and link
    whole, however short or plain (``123 Main St, Anytown, 12345``)."""
    values: tuple[tuple[str, ...], ...] = ()
    """Per text (same order; empty when none has any), the short values its JSON held (ids
    included: ``AAPL``, ``150``, ``Mark Lee``), or its ``key: value`` lines and table cells
    held if it is no JSON: a call that goes where untrusted content said
    and carries several of one private record's values, however rewritten around them, carries
    that record (see :mod:`cyclops.core.records`)."""
    documents: tuple[JSON, ...] = field(default=(), compare=False)
    """The JSON objects and arrays the result is made of (text blocks that are JSON,
    structured content), as parsed: where a listing says what it lists (see
    :mod:`cyclops.core.containers`). Shared: never changed by their readers."""
    json_only: bool = False
    """Every text is a walk of one of :attr:`documents`: nothing in it is loose prose."""


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
class ControlFinding:
    kind: ControlKind
    rule: str
    """The rule id or condition that matched (never the value that matched it)."""
    action: Action
    argument: ArgPath | None = None
    """Where in the arguments it matched, when it is about one argument."""
    detail: str = ""
    """A coarse, secret-free detail: the registrable domain, the root or glob, the limit."""


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
    controls: tuple[ControlFinding, ...] = ()
    redacted_arguments: Mapping[str, JSON] | None = None
    """For ``redact``: the arguments to forward instead of the call's own."""

    @property
    def forwards(self) -> bool:
        """Whether the call goes on to its server (``ask`` waits for the answer)."""
        return self.action in (Action.ALLOW, Action.FLAG, Action.REDACT)

    @property
    def arguments(self) -> Mapping[str, JSON]:
        """The arguments that go on to the server."""
        if self.redacted_arguments is not None:
            return self.redacted_arguments
        return self.call.arguments
