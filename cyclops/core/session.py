"""One agent session's detection state: calls in, decisions out.

Rules of the session:

1. Calls are numbered from 0 in the order they are decided.
2. :meth:`Session.decide` is called before a call runs and returns its decision; it never
   waits, reads a clock or does I/O. :meth:`Session.observe` is called with the call's result
   after it ran; a denied call never runs and has no result.
3. A call's arguments are matched against earlier results when it is decided (when it is a
   sink or a private read: nothing else can make a flow); its own result joins the index only
   once observed, so a call never links to itself.
4. Bytes count as leaked only for calls that were forwarded; a denied call's bytes are blocked.
5. In detect mode every action other than allow becomes flag.
6. If deciding fails, :meth:`Session.fail_closed` gives the decision: deny in prevent mode,
   flag in detect mode (the caller catches the error, in one outermost place).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from .arguments import ArgLeaf, leaves, registrable_domain
from .chokepoint import Route, choke_point
from .fingerprints import Hit, HitKind
from .flows import CallFacts, Finding, excessive_agency, exfiltration, secret_egress, self_contained
from .leak import NO_LEAK, Leak, LeakLedger, Source
from .patterns import Patterns
from .provenance import ArgumentMatch, CallShape, Provenance
from .results import to_tool_result
from .taint import ArgumentLabels, Labeller
from .types import (
    JSON,
    Action,
    Capability,
    Decision,
    Flow,
    FlowClass,
    Label,
    Mode,
    Reason,
    ToolCall,
    ToolResult,
)
from .verdict import Eviction, Metrics, Verdict

__all__ = ["Session"]

_ACTION_ORDER = [Action.ALLOW, Action.FLAG, Action.REDACT, Action.ASK, Action.DENY]


class Session:
    def __init__(
        self,
        patterns: Patterns,
        mode: Mode = Mode.DETECT,
        session_id: str = "default",
        declared_roles: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self.patterns = patterns
        self.mode = mode
        self.id = session_id
        self._labeller = Labeller(patterns, declared_roles)
        self._prov = Provenance(patterns)
        self._ledger = LeakLedger(patterns.leak)
        self._routes: dict[Route, None] = {}
        self._flows: list[Flow] = []
        self._self_contained_seen: set[Capability] = set()
        self._pending: dict[int, frozenset[Label]] = {}
        self._next = 0
        self._deciding: int | None = None
        self._actions: Counter[Action] = Counter()
        self._errors = 0
        self._by_label: Counter[Label] = Counter()
        self._by_class: Counter[FlowClass] = Counter()
        self._secrets_leaked: Counter[str] = Counter()
        self._blocked = 0

    @property
    def labeller(self) -> Labeller:
        return self._labeller

    @property
    def provenance(self) -> Provenance:
        return self._prov

    # -- the two events -------------------------------------------------------------------------

    def declare_tools(self, server: str, tools: Iterable[str]) -> None:
        """The tools a server offers (from its tool list): their names may reveal its role."""
        self._labeller.learn_tools(server, tools)

    def decide(self, call: ToolCall) -> Decision:
        index = self._next
        self._next += 1
        self._deciding = index
        self._labeller.learn_tools(call.server, (call.tool,))
        args = leaves(call.arguments)
        arg_labels = self._labeller.argument_labels(call.tool, args)
        labels = self._labeller.static_labels(call.capability) | arg_labels.labels
        self._prov.add_call(index, call.capability, labels)
        self._prov.add_influence(index)
        egress = Label.EGRESS in labels
        shape = CallShape(
            destinations=frozenset(a.path for a in args if self._labeller.is_destination(a)),
            opaque=frozenset(a.path for a in args if self._labeller.is_opaque_key(a.key)),
            egress=egress,
            privileged=Label.PRIVILEGED in labels,
            scan=self._labeller.secrets if egress else None,
        )
        # Only a sink's arguments, or a private read's (did a page choose what to read?), can
        # make a flow; other calls are not worth the lookups.
        consequential = labels & {Label.EGRESS, Label.PRIVILEGED, Label.SENSITIVE}
        matches = self._prov.match_arguments(index, args, shape) if consequential else []
        destination = _destination(call.capability, args, arg_labels, matches)
        facts = CallFacts(index, call.capability, labels, matches, destination)
        hits = (
            self._prov.private_hits(h for m in matches for h in m.sensitive_hits)
            if Label.EGRESS in labels
            else []
        )
        sources = self._sources(hits)
        leak = self._ledger.measure(destination, hits, sources) if hits else NO_LEAK
        findings = self._findings(facts, _significant(hits, leak, sources), leak.completed_bytes)
        action, reasons = self._action(findings)
        flows = self._record_flows(findings, action, index, destination)
        decision = Decision(index, call, action, labels, flows, reasons, leak.completed_bytes)
        self._account(decision, destination, hits, sources, leak)
        self._deciding = None
        return decision

    def observe(self, index: int, result: ToolResult) -> None:
        """Take in the result of call ``index`` (ignored for calls that were not forwarded)."""
        call_labels = self._pending.pop(index, None)
        if call_labels is None:
            return
        result_labels = self._labeller.result_labels(call_labels, result.texts)
        for label in result_labels - call_labels:
            self._by_label[label] += 1
        self._prov.set_labels(index, call_labels | result_labels)
        self._prov.add_result(index, result_labels, result.texts)

    def observe_json(self, index: int, result: JSON) -> None:
        """:meth:`observe` for a result as MCP JSON (or a plain string)."""
        self.observe(index, to_tool_result(result, self._labeller.is_opaque_key))

    def fail_closed(self, call: ToolCall) -> Decision:
        """The decision for a call whose deciding raised: deny (prevent) or flag (detect)."""
        index = self._deciding if self._deciding is not None else self._next
        self._next = max(self._next, index + 1)
        self._deciding = None
        self._pending.pop(index, None)
        action = Action.DENY if self.mode is Mode.PREVENT else Action.FLAG
        decision = Decision(index, call, action, frozenset(), (), (Reason.INTERNAL_ERROR,))
        self._actions[action] += 1
        self._errors += 1
        if action is not Action.DENY:
            self._pending[index] = frozenset()
        return decision

    def note_error(self) -> None:
        """Count an internal error the caller caught outside :meth:`decide`."""
        self._errors += 1

    # -- deciding -------------------------------------------------------------------------------

    def _findings(self, facts: CallFacts, hits: frozenset[Hit], leaked: int) -> list[Finding]:
        policies = self.patterns.flows
        found: list[Finding | None] = []
        if Label.EGRESS in facts.labels:
            exfil = exfiltration(facts, self._prov, hits, leaked, policies[FlowClass.EXFILTRATION])
            secret = policies[FlowClass.SECRET_EGRESS]
            found.append(exfil if exfil else secret_egress(facts, self._prov, secret))
        if Label.PRIVILEGED in facts.labels:
            found.append(excessive_agency(facts, self._prov, policies[FlowClass.EXCESSIVE_AGENCY]))
        if facts.capability not in self._self_contained_seen:
            route = self_contained(facts, self._prov)
            if route is not None:
                self._self_contained_seen.add(facts.capability)
                found.append(route)
        return [f for f in found if f and policies[f.flow_class].action is not Action.ALLOW]

    def _action(self, findings: Sequence[Finding]) -> tuple[Action, tuple[Reason, ...]]:
        if not findings:
            return Action.ALLOW, ()
        wanted = max(
            (self.patterns.flows[f.flow_class].action for f in findings), key=_ACTION_ORDER.index
        )
        if self.mode is Mode.DETECT and wanted is not Action.FLAG:
            return Action.FLAG, (Reason.TOXIC_FLOW, Reason.MODE_DETECT)
        return wanted, (Reason.TOXIC_FLOW,)

    def _record_flows(
        self, findings: Sequence[Finding], action: Action, index: int, destination: str
    ) -> tuple[Flow, ...]:
        if not findings:
            return ()
        for finding in findings:
            self._routes.update(dict.fromkeys(finding.routes))
        cut = choke_point(self._routes)
        flows = tuple(
            Flow(
                f.flow_class,
                f.severity,
                index,
                f.chain,
                f.evidence,
                cut,
                f.leaked_bytes,
                destination,
                action,
            )
            for f in findings
        )
        self._flows.extend(flows)
        self._by_class.update(f.flow_class for f in flows)
        return flows

    def _account(
        self,
        decision: Decision,
        destination: str,
        hits: list[Hit],
        sources: Mapping[int, Source],
        leak: Leak,
    ) -> None:
        self._actions[decision.action] += 1
        self._by_label.update(decision.labels)
        classes = {f.flow_class for f in decision.flows}
        if FlowClass.EXFILTRATION in classes:
            self._ledger.flowed(destination, leak)
        if decision.forwards:
            self._pending[decision.index] = decision.labels
            if hits:
                self._ledger.add(destination, hits, sources)
            for flow in decision.flows:
                if flow.flow_class is FlowClass.SECRET_EGRESS:
                    self._secrets_leaked[destination] += flow.leaked_bytes
        else:
            secret = sum(
                f.leaked_bytes for f in decision.flows if f.flow_class is FlowClass.SECRET_EGRESS
            )
            self._blocked += leak.call_bytes + secret

    def _sources(self, hits: Iterable[Hit]) -> dict[int, Source]:
        sources = {}
        for hit in hits:
            segment = self._prov.index.segment(hit.segment)
            if segment is not None:
                sources[hit.segment] = (segment.text, segment.family)
        return sources

    # -- the verdict ----------------------------------------------------------------------------

    def verdict(self) -> Verdict:
        leaked = Counter(self._ledger.leaked_by_destination()) + self._secrets_leaked
        metrics = Metrics(
            calls=self._next,
            allowed=self._actions[Action.ALLOW],
            flagged=self._actions[Action.FLAG],
            denied=self._actions[Action.DENY],
            redacted=self._actions[Action.REDACT],
            asked=self._actions[Action.ASK],
            errors=self._errors,
            by_label={label: self._by_label[label] for label in Label},
            by_class={cls: self._by_class[cls] for cls in FlowClass},
        )
        return Verdict(
            session=self.id,
            mode=self.mode,
            flows=tuple(self._flows),
            leaked_bytes=sum(leaked.values()),
            blocked_bytes=self._blocked,
            leaked_by_destination=leaked,
            choke_point=choke_point(self._routes),
            metrics=metrics,
            evicted=Eviction(self._prov.evicted_calls, self._prov.index.evicted_segments),
            patterns_sha256=self.patterns.sha256,
        )


def _significant(hits: Sequence[Hit], leak: Leak, sources: Mapping[int, Source]) -> frozenset[Hit]:
    """The hits of the families (and values) that count in ``leak``; the rest is noise."""
    if not leak.triggered:
        return frozenset()
    return frozenset(
        h
        for h in hits
        if (h.kind is HitKind.HIGH_VALUE and h.value in leak.values)
        or (h.segment in sources and sources[h.segment][1] in leak.significant)
    )


def _destination(
    capability: Capability,
    args: Sequence[ArgLeaf],
    arg_labels: ArgumentLabels,
    matches: Sequence[ArgumentMatch],
) -> str:
    """A coarse name for where a call sends data, never carrying the data itself."""
    if arg_labels.egress_hosts:
        return registrable_domain(arg_labels.egress_hosts[0])
    named: list[str] = []
    for leaf, match in zip(args, matches, strict=False):
        if not match.destination or match.sensitive_hits or match.secrets:
            continue
        value = leaf.value.strip().casefold()
        if "@" in value and "." in value.rsplit("@", 1)[-1]:
            return registrable_domain(value.rsplit("@", 1)[-1])
        if 0 < len(value) <= 64:
            named.append(value)
    return f"{capability}:{'/'.join(named[:3])}" if named else str(capability)
