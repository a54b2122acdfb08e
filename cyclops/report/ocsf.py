"""Findings as OCSF 1.3.0 *Detection Finding* events (class 2004), for SIEMs.

One toxic flow is one finding, and so is one per-call control that did more than allow a call
(``ocsf_controls.py``). The same finding gives the same ``finding_info.uid``
(``cyclops:<session>:<call index>:<flow class>``, or ``...:control:<kind>:<rule>``) whether it
comes from the live proxy, a decision log or a session.json, so a SIEM fed from more than one
source can deduplicate.
The mapping is tabled in ``docs/audit.md``; ``docs/ocsf-detection-finding.schema.json`` holds the
OCSF fields claimed (with the OCSF sources they come from) and tests validate real output
against it. Like session.json, an event names servers, tools, argument paths, rule ids and
coarse destinations — never an argument value or a result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .. import __version__
from ..core.types import Action, Capability, Decision, Flow, FlowClass, Severity
from .decision_record import DecisionEntry
from .flow_codec import Fields, capability_json, flow_from_fields, link_json

__all__ = [
    "CATEGORY_UID",
    "CLASS_UID",
    "OCSF_VERSION",
    "OUTCOME_VERB",
    "FindingSource",
    "FlowFinding",
    "decision_findings",
    "detection_finding",
    "entry_findings",
    "finding_header",
    "tool_observable",
    "tool_resource",
    "verdict_findings",
]

OCSF_VERSION = "1.3.0"
CLASS_UID = 2004
CATEGORY_UID = 2
ACTIVITY_CREATE = 1
STATUS_NEW = 1
PRODUCT = {"name": "cyclops", "vendor_name": "cyclops", "version": __version__}

_SEVERITY = {
    Severity.LOW: (2, "Low"),
    Severity.MEDIUM: (3, "Medium"),
    Severity.HIGH: (4, "High"),
    Severity.CRITICAL: (5, "Critical"),
}
# (action_id, action, disposition_id, disposition, verb): the security_control profile's enums
_OUTCOME = {
    Action.ALLOW: (1, "Allowed", 1, "Allowed", "allowed"),
    Action.FLAG: (1, "Allowed", 19, "Alert", "flagged"),
    Action.REDACT: (1, "Allowed", 99, "Redacted", "redacted"),
    Action.ASK: (0, "Unknown", 99, "Held for the user's approval", "held for approval"),
    Action.DENY: (2, "Denied", 2, "Blocked", "blocked"),
}
OUTCOME_VERB = {action: outcome[4] for action, outcome in _OUTCOME.items()}
"""What cyclops did, as a verb for messages and titles."""
_TITLE = {
    FlowClass.EXFILTRATION: "Exfiltration of private data",
    FlowClass.SECRET_EGRESS: "A secret sent out",
    FlowClass.EXCESSIVE_AGENCY: "Untrusted content steering a privileged call",
    FlowClass.SELF_CONTAINED_ROUTE: "A tool that is untrusted, sensitive and egress at once",
}
# OCSF's hostname_t (dictionary.json "types"); observable type 1 "Hostname", else 99 "Other".
_HOSTNAME = re.compile(
    r"(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9])\.)*"
    r"([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9])"
)


class FindingSource(StrEnum):
    """Where a finding was read from (``finding_info.data_sources``)."""

    PROXY = "cyclops proxy"
    DECISION_LOG = "cyclops decision log"
    VERDICT = "cyclops session.json"


@dataclass(frozen=True)
class FlowFinding:
    """One toxic flow to report, and where and when it was seen."""

    session: str
    time_ms: int
    flow: Flow
    source: FindingSource

    @property
    def sink(self) -> Capability | None:
        """The call that completed the flow."""
        link = next((k for k in self.flow.chain if k.index == self.flow.call_index), None)
        return link.capability if link is not None else None

    @property
    def uid(self) -> str:
        return f"cyclops:{self.session}:{self.flow.call_index}:{self.flow.flow_class.value}"

    @property
    def severity(self) -> Severity:
        return self.flow.severity


def decision_findings(session: str, decision: Decision, at: float) -> list[FlowFinding]:
    """The live proxy's findings for one decision (``at``: when the call has no time)."""
    seconds = decision.call.at if decision.call.at is not None else at
    time_ms = round(seconds * 1000)
    return [FlowFinding(session, time_ms, f, FindingSource.PROXY) for f in decision.flows]


def entry_findings(entry: DecisionEntry) -> list[FlowFinding]:
    return [
        FlowFinding(entry.session, entry.time_ms, flow, FindingSource.DECISION_LOG)
        for flow in entry.flows
    ]


def verdict_findings(verdict: Mapping[str, Any], time_ms: int, where: str) -> list[FlowFinding]:
    """The findings of a session.json (read strictly); ``time_ms``: when it was written (a
    verdict holds no clock)."""
    fields = Fields(verdict, where)
    session = fields.string("session")
    flows = fields.objects("flows", flow_from_fields)
    return [FlowFinding(session, time_ms, flow, FindingSource.VERDICT) for flow in flows]


def detection_finding(finding: FlowFinding) -> dict[str, Any]:
    """The OCSF Detection Finding (class 2004, activity Create) for one flow."""
    flow = finding.flow
    verb = OUTCOME_VERB[flow.action]
    sink = finding.sink
    where = str(sink) if sink is not None else f"call {flow.call_index}"
    chain = " -> ".join(f"{k.capability}#{k.index} ({k.role.value})" for k in flow.chain)
    event = finding_header(
        time_ms=finding.time_ms,
        severity=flow.severity,
        action=flow.action,
        session=finding.session,
        message=(
            f"cyclops {verb} {flow.flow_class.value} ({flow.owasp.code}, {flow.severity.value}) "
            f"in session {finding.session} at call {flow.call_index}: {chain}"
        ),
    )
    event |= {
        "finding_info": {
            "uid": finding.uid,
            "title": f"{_TITLE[flow.flow_class]}: {verb} at {where}",
            "desc": _desc(flow, chain),
            "types": [flow.flow_class.value, flow.owasp.value],
            "analytic": {
                "uid": f"cyclops.flow.{flow.flow_class.value}",
                "name": flow.flow_class.value,
                "type_id": 1,
                "type": "Rule",
                "category": "toxic flow",
            },
            "data_sources": [finding.source.value],
        },
        "observables": _observables(sink, flow.destination),
        "unmapped": _unmapped(finding),
    }
    if sink is not None:
        event["resources"] = [tool_resource(sink)]
    return event


def finding_header(
    *, time_ms: int, severity: Severity, action: Action, session: str, message: str
) -> dict[str, Any]:
    """The fields every cyclops Detection Finding has, up to its ``finding_info``."""
    severity_id, severity_name = _SEVERITY[severity]
    action_id, action_name, disposition_id, disposition, _ = _OUTCOME[action]
    return {
        "class_uid": CLASS_UID,
        "class_name": "Detection Finding",
        "category_uid": CATEGORY_UID,
        "category_name": "Findings",
        "activity_id": ACTIVITY_CREATE,
        "activity_name": "Create",
        "type_uid": CLASS_UID * 100 + ACTIVITY_CREATE,
        "type_name": "Detection Finding: Create",
        "time": time_ms,
        "timezone_offset": 0,
        "severity_id": severity_id,
        "severity": severity_name,
        "status_id": STATUS_NEW,
        "status": "New",
        "action_id": action_id,
        "action": action_name,
        "disposition_id": disposition_id,
        "disposition": disposition,
        "message": message,
        "metadata": {
            "version": OCSF_VERSION,
            "product": dict(PRODUCT),
            "profiles": ["security_control"],
            "correlation_uid": session,
        },
    }


def tool_resource(tool: Capability) -> dict[str, str]:
    """A tool as an OCSF resource."""
    return {"uid": str(tool), "name": tool.tool, "namespace": tool.server, "type": "MCP tool"}


def tool_observable(tool: Capability) -> dict[str, Any]:
    """The observable pointing at a finding's tool (``resources.uid``)."""
    return {"name": "resources.uid", "type_id": 10, "type": "Resource UID", "value": str(tool)}


def _desc(flow: Flow, chain: str) -> str:
    parts = [f"{flow.owasp.value}. Chain: {chain}."]
    if flow.leaked_bytes:
        parts.append(f"{flow.leaked_bytes} bytes of private data to {flow.destination}.")
    if flow.evidence.steered_arguments:
        steered = ", ".join(flow.evidence.steered_arguments)
        parts.append(f"Destination chosen by untrusted content ({steered}).")
    if flow.evidence.secret_rules:
        parts.append(f"Secret rules: {', '.join(flow.evidence.secret_rules)}.")
    if flow.choke_point:
        parts.append(f"Choke point: remove {', '.join(map(str, flow.choke_point))}.")
    return " ".join(parts)


def _observables(sink: Capability | None, destination: str | None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if sink is not None:
        found.append(tool_observable(sink))
    if destination:
        hostname = _HOSTNAME.fullmatch(destination) is not None
        found.append(
            {
                "name": "unmapped.destination",
                "type_id": 1 if hostname else 99,
                "type": "Hostname" if hostname else "Destination",
                "value": destination,
            }
        )
    return found


def _unmapped(finding: FlowFinding) -> dict[str, Any]:
    flow = finding.flow
    return {
        "session": finding.session,
        "call_index": flow.call_index,
        "flow_class": flow.flow_class.value,
        "owasp": flow.owasp.code,
        "owasp_name": flow.owasp.value,
        "cyclops_action": flow.action.value,
        "chain": [link_json(link) for link in flow.chain],
        "choke_point": [capability_json(c) for c in flow.choke_point],
        "leaked_bytes": flow.leaked_bytes,
        "destination": flow.destination,
        "evidence": {
            "untrusted": flow.evidence.untrusted.value,
            "steered_arguments": list(flow.evidence.steered_arguments),
            "untrusted_arguments": list(flow.evidence.untrusted_arguments),
            "sensitive_arguments": list(flow.evidence.sensitive_arguments),
            "secret_rules": list(flow.evidence.secret_rules),
        },
    }
