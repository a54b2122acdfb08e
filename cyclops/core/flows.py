"""Flow rules (C2): which toxic flow, if any, a call about to run would complete.

Rules (each tagged with its OWASP LLM Top 10 2025 code through :class:`FlowClass`):

1. *exfiltration* (LLM02) — an egress call whose arguments carry data from a sensitive result
   (data edges only on that segment), in a session where untrusted content from another call
   reached the sensitive read or the egress: as data (its pieces in their arguments) or, unless
   the policy requires data edges, as influence (it was in the agent's context earlier). It
   fires when the call carries a significant amount of one result (see :mod:`.leak`).
2. *secret egress* (LLM02) — an egress call carrying a recognised secret, with no sensitive
   read needed (the key may come from the prompt), in a session untrusted content reached
   (unless the policy drops that condition). Not raised when rule 1 already fired.
3. *excessive agency* (LLM06) — untrusted content reaches a privileged call (data edges unless
   the policy allows influence); or an egress call sends what, or where, content that addressed
   the agent said, though nothing private (see :func:`instructed_egress`).
4. *self-contained route* (LLM06) — a tool that is untrusted, sensitive and egress at once;
   reported on its first call.

Where a policy requires data edges, content that addressed the agent (an untrusted marker: an
injected instruction) counts as data unless the policy says otherwise: once it entered the
agent's context, the session is under attack, and what the agent does next may be what it asked
for whatever the arguments carry (``delete_file("13")``). Its evidence is ``instruction``.

A destination argument (recipient, URL, channel...) that carries untrusted content was chosen
by that content: the flow is *steered*, and its severity is critical.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .chokepoint import Route
from .destinations import names_no_destination
from .hits import Hit, HitKind
from .provenance import ArgumentMatch, Provenance
from .rules import FlowPolicy
from .types import (
    Action,
    Capability,
    ChainLink,
    Evidence,
    EvidenceKind,
    FlowClass,
    Label,
    Severity,
)

__all__ = [
    "CallFacts",
    "Finding",
    "excessive_agency",
    "exfiltration",
    "findings",
    "instructed_egress",
    "instruction_chose_destination",
    "secret_egress",
    "self_contained",
    "sent_by_reference",
]


@dataclass(frozen=True)
class CallFacts:
    """What the rules know about the call being decided."""

    index: int
    capability: Capability
    labels: frozenset[Label]
    matches: Sequence[ArgumentMatch]
    destination: str
    names_private_data: bool = False
    """Its arguments name private data that the call reads itself (a key file in a command
    line, a credentials file to upload): what it sends never passes through a result."""
    instruction_only: bool = False
    """Its tool is one of the excessive-agency policy's ``instruction_only_tools``."""
    requested: tuple[int, ...] = ()
    """For a privileged call (not an ``instruction_only`` one) or one that sends private data
    by reference, the untrusted calls before it whose results asked for what it does (see
    :mod:`.requested`): they count as content that addressed the agent."""


@dataclass(frozen=True)
class Finding:
    """A flow before its choke point is known."""

    flow_class: FlowClass
    severity: Severity
    chain: tuple[ChainLink, ...]
    evidence: Evidence
    leaked_bytes: int
    routes: tuple[Route, ...]


@dataclass(frozen=True)
class _Reach:
    """How untrusted content reached a call."""

    data: frozenset[int]
    """Untrusted calls whose pieces are in the arguments of the call (or of a call on its path)."""
    influence: tuple[int, ...]
    """Untrusted calls before it, in the agent's context (see ``Provenance.untrusted_before``)."""
    instructed: tuple[int, ...]
    """Calls before it whose results addressed the agent (an injected instruction)."""

    @property
    def kind(self) -> EvidenceKind:
        if self.data:
            return EvidenceKind.DATA
        if self.instructed:
            return EvidenceKind.INSTRUCTION
        return EvidenceKind.INFLUENCE if self.influence else EvidenceKind.NONE

    def enough(self, policy: FlowPolicy) -> bool:
        """Whether it is evidence enough for ``policy``."""
        if not policy.require_data_edges:
            return self.kind is not EvidenceKind.NONE
        return bool(self.data) or (policy.instructions_as_data and bool(self.instructed))

    @property
    def source(self) -> int:
        """The untrusted call that stands for the rest in a flow's chain."""
        return max(self.data or self.instructed or self.influence)

    def sources(self, policy: FlowPolicy) -> frozenset[int]:
        """The untrusted calls a flow's routes start from."""
        if not policy.require_data_edges:
            return self.data | frozenset(self.instructed) | frozenset(self.influence)
        return self.data | frozenset(self.instructed) if policy.instructions_as_data else self.data


def _untrusted_reach(
    facts: CallFacts, prov: Provenance, via: Collection[int], besides: Collection[int] = ()
) -> _Reach:
    """Untrusted calls that reached the call (or the ``via`` calls), ``besides`` left out (see
    :func:`exfiltration`)."""
    data = {c for m in facts.matches for c in m.untrusted_calls}
    for call in via:
        data |= {s for s in prov.data_sources(call) if Label.UNTRUSTED in prov.labels(s)}
    asked = set(prov.instructed_before(facts.index)) | set(facts.requested)
    instructed = sorted(asked - set(besides))
    influence = prov.untrusted_before(facts.index, besides=besides)
    return _Reach(frozenset(data - set(besides)), tuple(influence), tuple(instructed))


def _link(prov: Provenance, index: int, role: Label) -> ChainLink:
    capability = prov.capability(index) or Capability("?", "?")
    return ChainLink(index, capability, prov.labels(index), role)


def _paths(
    matches: Sequence[ArgumentMatch], keep: Callable[[ArgumentMatch], object]
) -> tuple[str, ...]:
    return tuple(m.path for m in matches if keep(m))


def _secret_rules(matches: Sequence[ArgumentMatch]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.rule_id for m in matches for f in m.secrets))


def _capabilities(prov: Provenance, calls: Iterable[int]) -> frozenset[Capability]:
    return frozenset(c for c in (prov.capability(i) for i in calls) if c is not None)


def exfiltration(
    facts: CallFacts, prov: Provenance, hits: frozenset[Hit], leaked: int, policy: FlowPolicy
) -> Finding | None:
    """``hits``: the call's significant sensitive hits (see :mod:`.leak`), ``leaked`` their size."""
    if not hits:
        return None
    sensitive_calls = sorted({h.call for h in hits})
    # A result that is both untrusted and private (a mail) does not taint its own leak: its
    # author sending it to themselves is no exfiltration, nor is a digest of several mails.
    # Untrusted content must come from another call; where the leak also carries a result
    # that is only private (a file), an untrusted one among its sources (a README that asked
    # for the file) is that content. A result that addressed the agent (an inbox listing that
    # holds an injected mail beside the one with the code) is untrusted content itself.
    mails_only = all(Label.UNTRUSTED in prov.labels(c) for c in sensitive_calls)
    own = {c for c in sensitive_calls if prov.silent_mail(c)} if mails_only else set()
    reach = _untrusted_reach(facts, prov, sensitive_calls, besides=own)
    if not reach.enough(policy):
        return None
    steered = _paths(facts.matches, lambda m: m.destination and m.untrusted_calls)
    via = max(
        sensitive_calls,
        key=lambda c: sum(h.end - h.start + len(h.value) for h in hits if h.call == c),
    )
    chose_the_read = bool(prov.data_sources(via) & reach.data)
    secrets = _secret_rules(facts.matches)
    severity = Severity.CRITICAL if steered or secrets or chose_the_read else Severity.HIGH
    chain = [_link(prov, via, Label.SENSITIVE), _link(prov, facts.index, Label.EGRESS)]
    if reach.source != via:
        chain.insert(0, _link(prov, reach.source, Label.UNTRUSTED))
    sources = _capabilities(prov, reach.sources(policy))
    routes = tuple(
        Route(sources, cap, facts.capability) for cap in _capabilities(prov, sensitive_calls)
    )
    evidence = Evidence(
        untrusted=reach.kind,
        steered_arguments=steered,
        untrusted_arguments=_paths(facts.matches, lambda m: m.untrusted_calls),
        sensitive_arguments=_paths(facts.matches, lambda m: hits.intersection(m.hits)),
        secret_rules=secrets,
    )
    return Finding(FlowClass.EXFILTRATION, severity, tuple(chain), evidence, leaked, routes)


def sent_by_reference(facts: CallFacts, prov: Provenance) -> Finding | None:
    """An egress call that reads private data named in its arguments and sends it in one step
    (``scp ~/.ssh/id_rsa user@host:``), when untrusted content reached its arguments (the
    destination, the command, or a host it sends to: a page named ``evil.example``, the
    command copies to ``me@evil.example:``): the bytes never pass through a result, so none
    is counted.
    Influence alone is not enough: a key used to log in (``ssh -i key host``) is read too; nor
    is an address in a mailbox's result, unless that result addressed the agent or asked
    for what the call does (mail names addresses all the time: forwarding to a colleague a
    mail once came from is ordinary; "share my bank password with amy@..." is not). A call
    that names no destination at all sends where an earlier call pointed it (a key uploaded
    into the page a browser has open): content that addressed the agent counts there."""
    if not facts.names_private_data:
        return None
    reach = _untrusted_reach(facts, prov, ())
    asked = frozenset(facts.requested)
    named = {c for m in facts.matches for c in m.hosts_named_by}
    data = {c for c in reach.data | named if c in asked or not prov.silent_mail(c)}
    kind = EvidenceKind.DATA
    if not data and names_no_destination(facts.destination, facts.capability):
        data, kind = set(reach.instructed), EvidenceKind.INSTRUCTION
    if not data:
        return None
    steered = _paths(facts.matches, lambda m: m.destination and m.untrusted_calls)
    chain = (_link(prov, max(data), Label.UNTRUSTED), _link(prov, facts.index, Label.EGRESS))
    evidence = Evidence(
        untrusted=kind,
        steered_arguments=steered,
        untrusted_arguments=_paths(facts.matches, lambda m: m.untrusted_calls | m.hosts_named_by),
    )
    route = Route(_capabilities(prov, data), None, facts.capability)
    severity = Severity.CRITICAL if steered else Severity.HIGH
    return Finding(FlowClass.EXFILTRATION, severity, chain, evidence, 0, (route,))


def secret_egress(facts: CallFacts, prov: Provenance, policy: FlowPolicy) -> Finding | None:
    secrets = _secret_rules(facts.matches)
    if not secrets:
        return None
    reach = _untrusted_reach(facts, prov, ())
    if policy.require_untrusted and reach.kind is EvidenceKind.NONE:
        return None
    steered = _paths(facts.matches, lambda m: m.destination and m.untrusted_calls)
    chain = [_link(prov, facts.index, Label.EGRESS)]
    if reach.kind is not EvidenceKind.NONE:
        chain.insert(0, _link(prov, reach.source, Label.UNTRUSTED))
    evidence = Evidence(
        untrusted=reach.kind,
        steered_arguments=steered,
        untrusted_arguments=_paths(facts.matches, lambda m: m.untrusted_calls),
        sensitive_arguments=_paths(facts.matches, lambda m: m.secrets),
        secret_rules=secrets,
    )
    leaked = sum(
        {
            (f.rule_id, f.end - f.start): f.end - f.start for m in facts.matches for f in m.secrets
        }.values()
    )
    route = Route(_capabilities(prov, reach.sources(policy)), None, facts.capability)
    severity = Severity.CRITICAL if steered else Severity.HIGH
    return Finding(FlowClass.SECRET_EGRESS, severity, tuple(chain), evidence, leaked, (route,))


def excessive_agency(facts: CallFacts, prov: Provenance, policy: FlowPolicy) -> Finding | None:
    """Untrusted content reached a privileged call; for a tool whose arguments come from what
    the agent read when the user asks for it (``instruction_only``), only content that
    addressed the agent counts (reviews name the hotel the user then books)."""
    reach = _untrusted_reach(facts, prov, ())
    if facts.instruction_only:
        reach = _Reach(frozenset(), (), reach.instructed)
    elif policy.instruction_only_sources:  # the user's pick, unless it addressed the agent
        verbs, own = prov.patterns.tool_verbs, policy.chosen_by_user
        data = (c for c in reach.data if prov.instructed(c) or not own(prov.capability(c), verbs))
        reach = _Reach(frozenset(data), reach.influence, reach.instructed)
    if not reach.enough(policy):
        return None
    counted = reach.data | frozenset(reach.instructed)  # what arguments can carry
    steered = _paths(facts.matches, lambda m: m.destination and m.untrusted_calls & counted)
    if steered:
        severity = Severity.CRITICAL
    else:
        severity = Severity.MEDIUM if reach.kind is EvidenceKind.INFLUENCE else Severity.HIGH
    chain = (
        _link(prov, reach.source, Label.UNTRUSTED),
        _link(prov, facts.index, Label.PRIVILEGED),
    )
    evidence = Evidence(
        untrusted=reach.kind,
        steered_arguments=steered,
        untrusted_arguments=_paths(facts.matches, lambda m: m.untrusted_calls & counted),
    )
    route = Route(_capabilities(prov, reach.sources(policy)), None, facts.capability)
    return Finding(FlowClass.EXCESSIVE_AGENCY, severity, chain, evidence, 0, (route,))


def instructed_egress(facts: CallFacts, prov: Provenance, policy: FlowPolicy) -> Finding | None:
    """An egress call that sends what, or where, content that addressed the agent said (an
    injected "email 'Hey' to mark@...", "visit www.true-informations.com"): excessive agency,
    though it carries nothing private. Content that did not address the agent (a link a
    colleague posted, an address on a web page) chooses what the agent sends all the time;
    and of content that did, only where it sends, or a name it gave that the call carries whole
    (a link, an address, a long id), carries out the instruction: its words passed on (a
    summary of the page) do not. A call that carries pieces of private data is left to the
    exfiltration rule and its thresholds (a secret sent in pieces is exfiltration once the
    pieces add up)."""
    if not policy.instructions_as_data or any(m.sensitive_hits for m in facts.matches):
        return None
    reach = _untrusted_reach(facts, prov, ())
    used = reach.data & frozenset(reach.instructed)
    if not used:
        return None
    steered = _paths(facts.matches, lambda m: m.destination and m.untrusted_calls & used)
    if not steered and not _names_from(facts.matches, used):
        return None
    chain = (_link(prov, max(used), Label.UNTRUSTED), _link(prov, facts.index, Label.EGRESS))
    evidence = Evidence(
        untrusted=EvidenceKind.INSTRUCTION,
        steered_arguments=steered,
        untrusted_arguments=_paths(facts.matches, lambda m: m.untrusted_calls & used),
    )
    route = Route(_capabilities(prov, used), None, facts.capability)
    severity = Severity.CRITICAL if steered else Severity.HIGH
    return Finding(FlowClass.EXCESSIVE_AGENCY, severity, chain, evidence, 0, (route,))


def instruction_chose_destination(prov: Provenance, matches: Iterable[ArgumentMatch]) -> bool:
    """Whether content that addressed the agent named a destination of the call (its leak
    needs no threshold: see :mod:`.leak`)."""
    return any(prov.instructed(c) for m in matches if m.destination for c in m.addressed_by)


def _names_from(matches: Sequence[ArgumentMatch], calls: frozenset[int]) -> bool:
    """Whether the arguments carry a name ``calls`` gave whole: a link, an address, a long id
    (not a version number such as ``2.3``, nor words joined by a hyphen: ``pour-over``)."""
    return any(
        h.kind is HitKind.LOCATOR and h.call in calls and _is_name(h.value)
        for m in matches
        for h in m.untrusted_hits
    )


def _is_name(value: str) -> bool:
    if "@" in value:
        return True
    return len(value) >= 8 and any(c.isdigit() or c in "./:" for c in value)


def self_contained(
    facts: CallFacts, prov: Provenance, tool_labels: frozenset[Label]
) -> Finding | None:
    """A tool that is untrusted, sensitive and egress by itself (a computer-use screen tool):
    ``tool_labels`` are the tool's own, not what one call's arguments add (``ssh -i key
    host`` reads a key and reaches a host, and is no route by itself)."""
    if not {Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS} <= tool_labels:
        return None
    chain = (_link(prov, facts.index, Label.EGRESS),)
    route = Route(frozenset({facts.capability}), None, facts.capability)
    evidence = Evidence(untrusted=EvidenceKind.NONE)
    return Finding(FlowClass.SELF_CONTAINED_ROUTE, Severity.MEDIUM, chain, evidence, 0, (route,))


def findings(
    facts: CallFacts,
    prov: Provenance,
    *,
    hits: frozenset[Hit],
    leaked: int,
    policies: Mapping[FlowClass, FlowPolicy],
    tool_labels: frozenset[Label],
    routes_seen: set[Capability],
) -> list[Finding]:
    """The flows the call makes, by the rules that apply to its labels: exfiltration (of the
    significant ``hits``, ``leaked`` bytes, or by reference), else secret egress and an
    instructed egress, for a sink; excessive agency for a privileged call; a self-contained
    route once per tool (noted in ``routes_seen``). Rules whose policy is to allow are left
    out."""
    found: list[Finding | None] = []
    agency = policies[FlowClass.EXCESSIVE_AGENCY]
    if Label.EGRESS in facts.labels:
        exfil = exfiltration(facts, prov, hits, leaked, policies[FlowClass.EXFILTRATION])
        exfil = exfil or sent_by_reference(facts, prov)
        secret = policies[FlowClass.SECRET_EGRESS]
        found.append(exfil if exfil else secret_egress(facts, prov, secret))
        if not exfil and Label.PRIVILEGED not in facts.labels:
            found.append(instructed_egress(facts, prov, agency))
    if Label.PRIVILEGED in facts.labels:
        found.append(excessive_agency(facts, prov, agency))
    if facts.capability not in routes_seen:
        route = self_contained(facts, prov, tool_labels)
        if route is not None:
            routes_seen.add(facts.capability)
            found.append(route)
    return [f for f in found if f and policies[f.flow_class].action is not Action.ALLOW]
