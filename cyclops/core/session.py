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
5. The action is the strictest that a flow or a per-call control asks for; in detect mode every
   action other than allow becomes flag.
6. An ``ask`` decision waits for :meth:`Session.answer` (the user's yes or no, or none): the call
   is accounted for only then. Nothing else is decided in the session meanwhile.
7. If deciding fails, :meth:`Session.fail_closed` gives the decision: deny in prevent mode,
   flag in detect mode (the caller catches the error, in one outermost place).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

from .arguments import leaves
from .chokepoint import Route, choke_point
from .containers import Containers
from .controls import CallView, Controller
from .destinations import destination_name
from .flows import CallFacts, Finding, findings, instruction_chose_destination
from .hits import Hit
from .leak import NO_LEAK, Leak, LeakLedger, Source, secret_bytes, significant_hits
from .leakpieces import continued, preceded
from .logins import Logins
from .provenance import Provenance
from .redact import changed_paths, redaction
from .results import to_tool_result
from .rules import Patterns
from .staging import Staging
from .taint import Labeller
from .types import (
    JSON,
    Action,
    Capability,
    ControlFinding,
    ControlKind,
    Decision,
    Flow,
    FlowClass,
    Label,
    Mode,
    Reason,
    ToolCall,
    ToolResult,
)
from .verdict import ControlEvent, Eviction, Metrics, Verdict

__all__ = ["MAX_CONTROL_EVENTS", "Session"]

MAX_CONTROL_EVENTS = 1000
_STRICTNESS = attrgetter("strictness")
_CONTENT = frozenset({Label.UNTRUSTED, Label.SENSITIVE})
"""The labels a result's content decides (see ``Labeller.read_result``)."""


@dataclass(frozen=True)
class _Draft:
    """A call decided up to its action (kept while the user is asked)."""

    index: int
    view: CallView
    findings: tuple[Finding, ...]
    controls: tuple[ControlFinding, ...]
    hits: tuple[Hit, ...]
    sources: Mapping[int, Source]
    leak: Leak
    wanted: Action
    """The strictest action the findings ask for, before the mode softens it."""


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
        self._controller = Controller(patterns.controls, self._labeller)
        self._prov = Provenance(patterns)
        self._ledger = LeakLedger(patterns.leak)
        self._staging = Staging(patterns.limits.max_result_chars, self._labeller, self._prov)
        self._containers = Containers(self._labeller)
        self._logins = Logins(patterns.provenance)
        self._routes: dict[Route, None] = {}
        self._cut: tuple[Capability, ...] = ()
        """The choke point of ``_routes``."""
        self._flows: list[Flow] = []
        self._self_contained_seen: set[Capability] = set()
        self._pending: dict[int, frozenset[Label]] = {}
        self._next = 0
        self._deciding: int | None = None
        self._asking: dict[int, _Draft] = {}
        self._asked = 0
        self._actions: Counter[Action] = Counter()
        self._errors = 0
        self._counts: Counter[Label | FlowClass | ControlKind] = Counter()
        self._control_events: deque[ControlEvent] = deque(maxlen=MAX_CONTROL_EVENTS)
        self._blocked = 0

    @property
    def labeller(self) -> Labeller:
        return self._labeller

    @property
    def provenance(self) -> Provenance:
        return self._prov

    @property
    def controller(self) -> Controller:
        """Quarantine of changed tools and the breaker's reset go through here."""
        return self._controller

    # -- the two events -------------------------------------------------------------------------

    def declare_tools(self, server: str, tools: Iterable[str]) -> None:
        """The tools a server offers (from its tool list): their names may reveal its role."""
        self._labeller.learn_tools(server, tools)

    def declare_roles(self, server: str, roles: Iterable[str]) -> None:
        self._labeller.declare_roles(server, roles)

    def roles_of(self, server: str) -> tuple[str, ...]:
        """The names of the roles ``server`` has now (declared, matched or learned)."""
        return tuple(role.name for role in self._labeller.roles_of(server))

    def decide(self, call: ToolCall) -> Decision:
        index = self._next
        self._next += 1
        self._deciding = index
        self._labeller.learn_tools(call.server, (call.tool,))
        args = leaves(call.arguments)
        arg_labels = self._labeller.argument_labels(call.capability, args)
        page = self._logins.address(call.server)
        labels = self._labeller.call_labels(call.capability, arg_labels, page)
        place = self._labeller.place(call.capability, args, arg_labels)
        labels, place = self._containers.settle(call.capability, labels, arg_labels.labels, place)
        self._prov.add_call(index, call.capability, labels, place, args)
        self._prov.add_influence(index)
        # A browser sent only to allowed hosts (the local dev server) has that page open too.
        hosts = arg_labels.egress_hosts or arg_labels.named_hosts
        self._logins.sent(index, hosts, (leaf.value for leaf in args))
        egress = Label.EGRESS in labels
        shape = self._labeller.call_shape(call.capability, args, labels, arg_labels)
        shape = self._containers.addressed(call.capability, place, shape)
        # Only a sink's arguments, or a private read's (did a page choose what to read?), can
        # make a flow; other calls are not worth the lookups.
        consequential = labels & {Label.EGRESS, Label.PRIVILEGED, Label.SENSITIVE}
        matches = self._staging.match(index, call.capability, args, shape) if consequential else []
        destination = destination_name(call.capability, args, arg_labels, matches)
        pushed = self._staging.pushes_private(call.capability, args)
        private_reference = Label.SENSITIVE in arg_labels.labels or pushed
        chosen = self._labeller.instruction_only(call.capability) or arg_labels.instruction_only
        asked = self._labeller.requests_counted(call.capability, labels, private_reference)
        naming = None if Label.PRIVILEGED in labels else shape.recipients  # a send: named there
        facts = CallFacts(
            index, call.capability, labels, matches, destination, private_reference, chosen,
            tuple(self._prov.requested_before(index, asked, naming=naming)),
        )  # fmt: skip
        hits = self._prov.private_hits_of(index, matches, shape.recipients) if egress else []
        hits = self._logins.typed_elsewhere(call.capability, destination, hits, self._prov.index)
        if egress:
            hits = continued(self._prov, matches, hits, self._ledger, destination)
            hits += preceded(self._prov, hits, self._ledger, destination)
        sources = self._prov.sources(hits)
        steered = bool(hits) and instruction_chose_destination(self._prov, matches)
        leak = self._ledger.measure(destination, hits, sources, steered) if hits else NO_LEAK
        significant = significant_hits(hits, leak, sources)
        findings = self._findings(facts, significant, leak.completed_bytes)
        view = CallView(call, args, labels, matches, destination)
        controls = tuple(self._controller.check(view))
        wanted = max(
            [*(self.patterns.flows[f.flow_class].action for f in findings)]
            + [c.action for c in controls],
            key=_STRICTNESS,
            default=Action.ALLOW,
        )
        draft = _Draft(index, view, tuple(findings), controls, tuple(hits), sources, leak, wanted)
        self._deciding = None
        if wanted is Action.ASK and self.mode is Mode.PREVENT:
            self._asking[index] = draft
            self._asked += 1
            flows = self._flows_of(draft, Action.ASK, record=False)
            reasons = _reasons(findings, controls)
            return Decision(index, call, Action.ASK, labels, flows, reasons, 0, controls)
        action = wanted if self.mode is Mode.PREVENT else min(wanted, Action.FLAG, key=_STRICTNESS)
        reasons = _reasons(findings, controls)
        if action is not wanted:
            reasons += (Reason.MODE_DETECT,)
        return self._finish(draft, action, reasons)

    def answer(self, index: int, approved: bool, *, answered: bool = True) -> Decision:
        """The user's answer to an ``ask`` decision: the call's final decision.

        ``answered=False``: the host could not ask, or no answer came in time (denied).
        """
        draft = self._asking.pop(index)
        reasons = _reasons(draft.findings, draft.controls)
        if approved:
            # The yes covers what asked; a redaction another rule wants still happens.
            rest = [c.action for c in draft.controls if c.action is not Action.ASK] + [
                self.patterns.flows[f.flow_class].action
                for f in draft.findings
                if self.patterns.flows[f.flow_class].action is not Action.ASK
            ]
            action = max([Action.FLAG, *rest], key=_STRICTNESS)
            return self._finish(draft, action, (*reasons, Reason.USER_APPROVED))
        reason = Reason.USER_REFUSED if answered else Reason.NO_ANSWER
        return self._finish(draft, Action.DENY, (*reasons, reason))

    def _finish(self, draft: _Draft, action: Action, reasons: tuple[Reason, ...]) -> Decision:
        view = draft.view
        redacted = None
        if action is Action.REDACT:
            redacted = self._redacted(draft)
            if redacted is None:  # nothing could be taken out: what was to go must not
                action = Action.DENY
        flows = self._flows_of(draft, action, record=True)
        leaked = draft.leak.completed_bytes if action is not Action.REDACT else 0
        decision = Decision(
            draft.index, view.call, action, view.labels, flows, reasons, leaked, draft.controls,
            redacted,
        )  # fmt: skip
        self._account(decision, draft)
        self._controller.settle(view, draft.wanted, forwarded=decision.forwards)
        return decision

    def observe(self, index: int, result: ToolResult) -> None:
        """Take in the result of call ``index`` (ignored for calls that were not forwarded)."""
        call_labels = self._pending.pop(index, None)
        if call_labels is None:
            return
        capability, place = self._prov.capability(index), self._prov.place(index)
        if capability is not None and self._containers.learn(capability, place, result):
            call_labels -= {Label.SENSITIVE}  # it shows public repositories only
        facts = self._labeller.read_result(call_labels, result, capability)
        self._counts.update(facts.labels - call_labels)
        labels = (call_labels - _CONTENT) | facts.labels  # the result's say on what it holds
        self._prov.set_labels(index, labels, instructed=facts.instructed, requests=facts.requests)
        if capability is not None:
            self._labeller.learn_from_result(capability, facts)
            self._logins.ran(index, capability.server, result, facts.labels)
            if Label.SENSITIVE in facts.labels:
                self._prov.set_audience(index, self._labeller.audience(capability.server, result))
        self._prov.add_result(index, facts.labels, result, facts.secrets, facts.secrets_only)

    def observe_json(self, index: int, result: JSON) -> None:
        """:meth:`observe` for a result as MCP JSON (or a plain string)."""
        labeller = self._labeller
        self.observe(index, to_tool_result(result, labeller.is_opaque_key, labeller.is_private_key))

    def fail_closed(self, call: ToolCall, index: int | None = None) -> Decision:
        """The decision for a call whose deciding (or answering: give its ``index``) raised:
        deny (prevent) or flag (detect)."""
        if index is None:
            index = self._deciding if self._deciding is not None else self._next
        self._next = max(self._next, index + 1)
        self._deciding = None
        self._pending.pop(index, None)
        self._asking.pop(index, None)
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
        return findings(
            facts,
            self._prov,
            hits=hits,
            leaked=leaked,
            policies=self.patterns.flows,
            tool_labels=self._labeller.static_labels(facts.capability),
            routes_seen=self._self_contained_seen,
        )

    def _flows_of(self, draft: _Draft, action: Action, *, record: bool) -> tuple[Flow, ...]:
        if not draft.findings:
            return ()
        routes = dict(self._routes)
        for finding in draft.findings:
            routes.update(dict.fromkeys(finding.routes))
        # A repeated flow adds no route: the cut is the session's (a max-flow costs ~1 ms).
        cut = self._cut if routes.keys() == self._routes.keys() else choke_point(routes)
        flows = tuple(
            Flow(
                f.flow_class,
                f.severity,
                draft.index,
                f.chain,
                f.evidence,
                cut,
                f.leaked_bytes,
                draft.view.destination,
                action,
            )
            for f in draft.findings
        )
        if record:
            self._routes = routes
            self._cut = cut
            self._flows.extend(flows)
            self._counts.update(f.flow_class for f in flows)
        return flows

    def _redacted(self, draft: _Draft) -> Mapping[str, JSON] | None:
        """The call's arguments with what is to be redacted taken out (None: nothing found)."""
        view = draft.view
        return redaction(
            view.call.arguments,
            view.args,
            matches=view.matches,
            findings=[(f.flow_class, f.evidence) for f in draft.findings],
            controls=draft.controls,
            policies=self.patterns.flows,
        )

    def _account(self, decision: Decision, draft: _Draft) -> None:
        self._actions[decision.action] += 1
        self._counts.update(decision.labels)
        for finding in decision.controls:
            self._counts[finding.kind] += 1
            self._control_events.append(
                ControlEvent(decision.index, decision.call.capability, finding, decision.action)
            )
        destination, leak = draft.view.destination, draft.leak
        secret = secret_bytes(decision.flows)
        if any(f.flow_class is FlowClass.EXFILTRATION for f in decision.flows):
            self._ledger.flowed(destination, leak)
        if decision.forwards:
            self._pending[decision.index] = decision.labels
            self._staging.forwarded(decision.index, draft.view)
            hits = list(draft.hits)
            if decision.action is Action.REDACT:
                gone = changed_paths(decision.call.arguments, decision.arguments)
                kept = [m for m in draft.view.matches if m.path not in gone]
                hits = self._prov.private_hits_of(decision.index, kept)
            if hits:
                self._ledger.add(destination, hits, draft.sources)
            if Label.EGRESS in decision.labels:
                self._ledger.sent(destination, (p for m in draft.view.matches for p in m.payloads))
            if decision.action is Action.REDACT:
                self._blocked += secret
            else:
                self._ledger.secret_sent(destination, secret)
        else:
            self._blocked += leak.call_bytes + secret

    # -- the verdict ----------------------------------------------------------------------------

    def verdict(self) -> Verdict:
        prov, files = self._prov, self._staging.evicted_files
        leaked = self._ledger.leaked_by_destination()
        metrics = Metrics.counted(
            self._next, self._actions, self._counts, asked=self._asked, errors=self._errors
        )
        return Verdict(
            session=self.id,
            mode=self.mode,
            flows=tuple(self._flows),
            leaked_bytes=sum(leaked.values()),
            blocked_bytes=self._blocked,
            leaked_by_destination=leaked,
            choke_point=self._cut,
            metrics=metrics,
            evicted=Eviction(prov.evicted_calls, prov.index.evicted_segments, files),
            patterns_sha256=self.patterns.sha256,
            controls=tuple(self._control_events),
            quarantined=tuple(sorted(self._controller.quarantined)),
            breaker_tripped=self._controller.breaker_tripped,
        )


def _reasons(findings: Sequence[Finding], controls: Sequence[ControlFinding]) -> tuple[Reason, ...]:
    return ((Reason.TOXIC_FLOW,) if findings else ()) + ((Reason.CONTROL,) if controls else ())
