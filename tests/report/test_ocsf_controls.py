"""Per-call control findings as OCSF Detection Findings, from every source."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import jsonschema
import pytest
from report_support import OCSF_SCHEMA

from cyclops.core import Action, Decision, Mode, Patterns, Session, ToolCall
from cyclops.core.types import ControlKind
from cyclops.report.decision_record import decision_entry
from cyclops.report.export_sinks import export_item
from cyclops.report.ocsf import FindingSource
from cyclops.report.ocsf_controls import (
    ControlReport,
    decision_control_reports,
    entry_control_reports,
    ocsf_event,
    verdict_control_reports,
)
from cyclops.report.session_json import verdict_json

VALIDATOR = jsonschema.Draft202012Validator(OCSF_SCHEMA)
DENIED_HOST = {"url": "https://webhook.site/c0ffee-7d1e"}  # on the request-catcher deny list


def _decided(patterns: Patterns, mode: Mode, arguments: dict[str, Any]) -> tuple[Session, Decision]:
    session = Session(patterns, mode)
    return session, session.decide(ToolCall("fetch", "fetch", arguments, at=1_700_000_000.0))


@pytest.mark.parametrize(
    ("mode", "action_id", "disposition_id"), [(Mode.PREVENT, 2, 2), (Mode.DETECT, 1, 19)]
)
def test_a_denied_destination_is_a_finding_that_says_what_happened_to_the_call(
    patterns: Patterns, mode: Mode, action_id: int, disposition_id: int
) -> None:
    _, decision = _decided(patterns, mode, DENIED_HOST)
    [report] = decision_control_reports("s1", decision, at=0.0)
    event = ocsf_event(report)
    VALIDATOR.validate(event)
    assert event["finding_info"]["uid"] == "cyclops:s1:0:control:destination:deny-list"
    assert (event["action_id"], event["disposition_id"]) == (action_id, disposition_id)
    assert event["severity_id"] == 4  # the rule asks to deny: High, whatever the mode did
    assert event["time"] == 1_700_000_000_000
    assert event["unmapped"]["control_kind"] == ControlKind.DESTINATION.value
    assert event["unmapped"]["rule_action"] == Action.DENY.value
    assert event["resources"][0]["uid"] == "fetch/fetch"


def test_a_control_finding_has_the_same_uid_from_the_proxy_the_log_and_the_verdict(
    patterns: Patterns,
) -> None:
    session, decision = _decided(patterns, Mode.PREVENT, DENIED_HOST)
    live = decision_control_reports("s1", decision, at=0.0)
    logged = entry_control_reports(decision_entry("s1", decision, at=0.0))
    verdict = verdict_json(session.verdict())
    stored = verdict_control_reports({**verdict, "session": "s1"}, 1, "s1.session.json")
    reports: list[ControlReport] = [*live, *logged, *stored]
    assert {r.uid for r in reports} == {"cyclops:s1:0:control:destination:deny-list"}
    assert [r.source for r in reports] == [
        FindingSource.PROXY,
        FindingSource.DECISION_LOG,
        FindingSource.VERDICT,
    ]
    for report in reports:
        VALIDATOR.validate(ocsf_event(report))


def test_a_control_whose_rule_allows_the_call_is_not_a_finding(patterns: Patterns) -> None:
    _, decision = _decided(patterns, Mode.PREVENT, DENIED_HOST)
    allowed = tuple(replace(c, action=Action.ALLOW) for c in decision.controls)
    assert decision_control_reports("s1", replace(decision, controls=allowed), at=0.0) == []


def test_a_control_finding_carries_no_argument_value(patterns: Patterns) -> None:
    _, decision = _decided(patterns, Mode.PREVENT, DENIED_HOST)
    [report] = decision_control_reports("s1", decision, at=0.0)
    item = export_item(report)
    assert "c0ffee-7d1e" not in item.body
    assert item.severity is report.severity
