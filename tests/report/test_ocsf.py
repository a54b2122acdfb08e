"""Findings as OCSF 1.3.0 Detection Findings: the mapping, the schema, ``cyclops export``."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from report_support import OCSF_SCHEMA, attack, attack_verdict, write_log

from cyclops.audit_cli import EXIT_BROKEN
from cyclops.cli import EXIT_OK, EXIT_USAGE, main
from cyclops.core import Action, Patterns, Severity
from cyclops.core.types import Flow
from cyclops.report.decision_record import decision_entry
from cyclops.report.ocsf import (
    CATEGORY_UID,
    CLASS_UID,
    OCSF_VERSION,
    FindingSource,
    FlowFinding,
    decision_findings,
    detection_finding,
    entry_findings,
    verdict_findings,
)
from cyclops.report.session_json import verdict_json

VALIDATOR = jsonschema.Draft202012Validator(OCSF_SCHEMA)


@pytest.fixture
def flow(patterns: Patterns) -> Flow:
    return attack(patterns)[-1].flows[0]


def _event(flow: Flow, session: str = "s1") -> dict[str, Any]:
    return detection_finding(FlowFinding(session, 1_700_000_000_000, flow, FindingSource.PROXY))


def test_the_schema_itself_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(OCSF_SCHEMA)


def test_a_finding_is_a_detection_finding_create_of_the_claimed_schema_version(
    flow: Flow,
) -> None:
    event = _event(flow)
    VALIDATOR.validate(event)
    assert (event["class_uid"], event["category_uid"], event["activity_id"]) == (2004, 2, 1)
    assert event["type_uid"] == CLASS_UID * 100 + event["activity_id"]
    assert event["metadata"]["version"] == OCSF_VERSION == OCSF_SCHEMA["x-ocsf-version"]
    assert event["category_uid"] == CATEGORY_UID
    assert event["time"] == 1_700_000_000_000
    assert set(event["metadata"]["product"]) == {"name", "vendor_name", "version"}


def test_every_field_the_schema_says_is_emitted_is_emitted(flow: Flow) -> None:
    event = _event(flow)
    for name in [*OCSF_SCHEMA["x-ocsf-required"], *OCSF_SCHEMA["x-ocsf-recommended-emitted"]]:
        assert name in event


@pytest.mark.parametrize(
    ("severity", "severity_id"),
    [(Severity.LOW, 2), (Severity.MEDIUM, 3), (Severity.HIGH, 4), (Severity.CRITICAL, 5)],
)
def test_severity_maps_to_the_ocsf_severity_id(
    flow: Flow, severity: Severity, severity_id: int
) -> None:
    event = _event(replace(flow, severity=severity))
    VALIDATOR.validate(event)
    assert event["severity_id"] == severity_id


@pytest.mark.parametrize(
    ("action", "action_id", "disposition_id"),
    [
        (Action.ALLOW, 1, 1),
        (Action.FLAG, 1, 19),
        (Action.REDACT, 1, 99),
        (Action.ASK, 0, 99),
        (Action.DENY, 2, 2),
    ],
)
def test_what_was_done_maps_to_the_security_control_action_and_disposition(
    flow: Flow, action: Action, action_id: int, disposition_id: int
) -> None:
    event = _event(replace(flow, action=action))
    VALIDATOR.validate(event)
    assert (event["action_id"], event["disposition_id"]) == (action_id, disposition_id)
    assert event["unmapped"]["cyclops_action"] == action.value


@pytest.mark.parametrize(
    ("destination", "type_id"),
    [("evil.example", 1), ("attacker-example.net", 1), ("slack/post_message:#general", 99)],
)
def test_a_destination_is_a_hostname_observable_only_when_it_is_one(
    flow: Flow, destination: str, type_id: int
) -> None:
    event = _event(replace(flow, destination=destination))
    VALIDATOR.validate(event)
    observed = {o["name"]: o for o in event["observables"]}
    assert observed["unmapped.destination"]["type_id"] == type_id
    assert observed["resources.uid"]["value"] == "notify/send_message"


def test_cyclops_fields_travel_in_unmapped(flow: Flow) -> None:
    unmapped = _event(flow)["unmapped"]
    assert unmapped["flow_class"] == flow.flow_class.value
    assert unmapped["owasp"] == flow.owasp.code
    assert unmapped["leaked_bytes"] == flow.leaked_bytes
    assert unmapped["choke_point"] == [{"server": "notify", "tool": "send_message"}]
    assert [link["index"] for link in unmapped["chain"]] == [0, 1, 2]


def test_one_flow_has_the_same_uid_from_the_proxy_the_log_and_the_verdict(
    patterns: Patterns,
) -> None:
    toxic = attack(patterns)[-1]
    live = decision_findings("s1", toxic, at=1.0)
    logged = entry_findings(decision_entry("s1", toxic, at=1.0))
    verdict = verdict_findings(verdict_json(attack_verdict(patterns)), 1, "s1.session.json")
    uids = {f.uid for f in [*live, *logged, *verdict]}
    assert uids == {"cyclops:s1:2:exfiltration"}
    sources = {detection_finding(f)["finding_info"]["data_sources"][0] for f in [*live, *verdict]}
    assert sources == {FindingSource.PROXY.value, FindingSource.VERDICT.value}


def _export_lines(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, list[Any]]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines()]


def test_export_reads_decision_logs_and_verdicts_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, out = tmp_path / "d.jsonl", tmp_path / "v"
    argv = ["replay", "--example", "attack", "--mode", "prevent"]
    assert main([*argv, "--decision-log", str(log), "--out", str(out)]) == EXIT_OK
    capsys.readouterr()
    verdicts = sorted(str(p) for p in out.glob("*.json"))
    code, events = _export_lines(capsys, ["export", "--ocsf", str(log), *verdicts])
    assert code == EXIT_OK
    assert len(events) == 6  # two flows and one control finding, from the log and the verdicts
    for event in events:
        VALIDATOR.validate(event)
    from_log = {e["finding_info"]["uid"] for e in events[:3]}
    from_verdicts = {e["finding_info"]["uid"] for e in events[3:]}
    assert from_log == from_verdicts
    assert main(["export", "--ocsf", str(log), "-o", str(tmp_path / "f.jsonl")]) == EXIT_OK
    assert len((tmp_path / "f.jsonl").read_text().splitlines()) == 3


def test_export_reads_standard_input_when_no_file_is_named(
    tmp_path: Path,
    patterns: Patterns,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = write_log(tmp_path / "d.jsonl", patterns, attack(patterns))
    stdin = io.TextIOWrapper(io.BytesIO(log.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, events = _export_lines(capsys, ["export", "--ocsf"])
    assert code == EXIT_OK
    assert [e["finding_info"]["uid"] for e in events] == ["cyclops:s1:2:exfiltration"]


def test_a_broken_log_is_still_exported_but_the_export_fails(
    tmp_path: Path, patterns: Patterns, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write_log(tmp_path / "d.jsonl", patterns, attack(patterns))
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:2], *lines[3:]]))
    code, events = _export_lines(capsys, ["export", "--ocsf", str(log)])
    assert code == EXIT_BROKEN
    assert len(events) == 1


def test_a_file_cyclops_did_not_write_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"session": "s", "flows": [{"class": "nope"}]}')
    (tmp_path / "y.txt").write_text("hello\n")
    assert main(["export", "--ocsf", str(tmp_path / "x.json")]) == EXIT_USAGE
    assert main(["export", "--ocsf", str(tmp_path / "y.txt")]) == EXIT_USAGE
