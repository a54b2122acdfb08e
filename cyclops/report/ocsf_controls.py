"""Per-call control findings as OCSF 1.3.0 *Detection Finding* events (class 2004).

A control that matched a call and did more than allow it (a secret rule set to flag, a denied
destination, an SSRF address, a path outside the roots, a rate limit, a quarantined tool, ...)
is a finding of its own, next to the toxic flows of ``ocsf.py``: a SIEM sees a blocked call even
when no flow was involved. ``finding_info.uid`` is
``cyclops:<session>:<call index>:control:<kind>:<rule>`` from every source. Like every report,
it names the rule, the argument path and a coarse detail (a registrable domain, a root, a
limit), never the value that matched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.types import Action, Capability, Decision, Severity
from .decision_record import ControlEntry, DecisionEntry, control_entry
from .flow_codec import Fields
from .ocsf import (
    OUTCOME_VERB,
    FindingSource,
    FlowFinding,
    detection_finding,
    finding_header,
    tool_observable,
    tool_resource,
)

__all__ = [
    "ControlReport",
    "Finding",
    "control_finding",
    "decision_control_reports",
    "entry_control_reports",
    "ocsf_event",
    "verdict_control_reports",
]

# The severity of a control finding follows what its rule asked for (not what detect mode did).
_SEVERITY = {
    Action.FLAG: Severity.LOW,
    Action.REDACT: Severity.MEDIUM,
    Action.ASK: Severity.MEDIUM,
    Action.DENY: Severity.HIGH,
}


@dataclass(frozen=True)
class ControlReport:
    """One per-call control finding to report, and where and when it was seen."""

    session: str
    time_ms: int
    call_index: int
    tool: Capability
    control: ControlEntry
    call_action: Action
    """What happened to the call (the strictest over its flows and controls, after the mode)."""
    source: FindingSource

    @property
    def uid(self) -> str:
        control = self.control
        return f"cyclops:{self.session}:{self.call_index}:control:{control.kind}:{control.rule}"

    @property
    def severity(self) -> Severity:
        return _SEVERITY[self.control.action]


Finding = FlowFinding | ControlReport
"""Anything cyclops reports to a SIEM."""


def ocsf_event(finding: Finding) -> dict[str, Any]:
    """The OCSF Detection Finding for a flow or a control finding."""
    if isinstance(finding, ControlReport):
        return control_finding(finding)
    return detection_finding(finding)


def _reported(controls: tuple[ControlEntry, ...]) -> list[ControlEntry]:
    """The controls worth a finding: those whose rule asked for more than allowing the call."""
    return [control for control in controls if control.action is not Action.ALLOW]


def decision_control_reports(session: str, decision: Decision, at: float) -> list[ControlReport]:
    """The live proxy's control findings for one decision (``at``: when the call has no time)."""
    seconds = decision.call.at if decision.call.at is not None else at
    controls = tuple(control_entry(c) for c in decision.controls)
    return [
        ControlReport(
            session,
            round(seconds * 1000),
            decision.index,
            decision.call.capability,
            control,
            decision.action,
            FindingSource.PROXY,
        )
        for control in _reported(controls)
    ]


def entry_control_reports(entry: DecisionEntry) -> list[ControlReport]:
    tool = Capability(entry.server, entry.tool)
    return [
        ControlReport(
            entry.session,
            entry.time_ms,
            entry.index,
            tool,
            control,
            entry.action,
            FindingSource.DECISION_LOG,
        )
        for control in _reported(entry.controls)
    ]


def verdict_control_reports(
    verdict: Mapping[str, Any], time_ms: int, where: str
) -> list[ControlReport]:
    """The control findings of a session.json (read strictly)."""
    fields = Fields(verdict, where)
    session = fields.string("session")
    reports = fields.objects("controls", lambda f: _from_verdict(f, session, time_ms))
    return [r for r in reports if r.control.action is not Action.ALLOW]


def _from_verdict(f: Fields, session: str, time_ms: int) -> ControlReport:
    control = ControlEntry(
        kind=f.string("kind"),
        rule=f.string("rule"),
        action=f.enum("rule_action", Action),
        argument=f.optional_string("argument"),
        detail=f.string("detail"),
    )
    tool = Capability(f.string("server"), f.string("tool"))
    action = f.enum("action", Action)
    return ControlReport(
        session, time_ms, f.count("call_index"), tool, control, action, FindingSource.VERDICT
    )


def control_finding(report: ControlReport) -> dict[str, Any]:
    """The OCSF Detection Finding (class 2004, activity Create) for one control finding."""
    control = report.control
    verb = OUTCOME_VERB[report.call_action]
    where = f" on argument {control.argument}" if control.argument else ""
    detail = f" ({control.detail})" if control.detail else ""
    event = finding_header(
        time_ms=report.time_ms,
        severity=report.severity,
        action=report.call_action,
        session=report.session,
        message=(
            f"cyclops {verb} a call to {report.tool} in session {report.session} at call "
            f"{report.call_index}: {control.kind} control {control.rule}{where}{detail}"
        ),
    )
    return event | {
        "finding_info": {
            "uid": report.uid,
            "title": f"Per-call control {control.kind}: {verb} at {report.tool}",
            "desc": f"Rule {control.rule} ({control.kind}) matched{where}{detail}; "
            f"it asks to {control.action.value}.",
            "types": [f"control:{control.kind}"],
            "analytic": {
                "uid": f"cyclops.control.{control.kind}.{control.rule}",
                "name": control.rule,
                "type_id": 1,
                "type": "Rule",
                "category": "per-call control",
            },
            "data_sources": [report.source.value],
        },
        "observables": [tool_observable(report.tool)],
        "unmapped": {
            "session": report.session,
            "call_index": report.call_index,
            "control_kind": control.kind,
            "rule": control.rule,
            "rule_action": control.action.value,
            "cyclops_action": report.call_action.value,
            "argument": control.argument,
            "detail": control.detail,
        },
        "resources": [tool_resource(report.tool)],
    }
