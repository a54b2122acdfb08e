"""The decision log's lines: canonical form, argument hash, chain, typed round trip."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pytest
from report_support import SECRET, attack, attack_verdict

from cyclops.core import Action, Mode, Patterns, Session
from cyclops.core.types import Decision, ToolCall
from cyclops.report.audit import check_line
from cyclops.report.decision_record import (
    GENESIS,
    ControlEntry,
    DecisionEntry,
    GapEntry,
    OpenEntry,
    arguments_sha256,
    canonical_json,
    chain_line,
    control_entry,
    decision_entry,
    entry_from_json,
    entry_json,
    format_time,
    parse_time,
)
from cyclops.report.flow_codec import RecordError, flow_from_json, flow_json
from cyclops.report.session_json import verdict_json


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 1, "a": 2}, '{"a":2,"b":1}'),
        ({"a": [1, {"d": None, "c": True}]}, '{"a":[1,{"c":true,"d":null}]}'),
        ({"s": "é"}, '{"s":"\\u00e9"}'),
        ({"s": "😀"}, '{"s":"\\ud83d\\ude00"}'),
        ({"s": 'q"\\\n\t'}, '{"s":"q\\"\\\\\\n\\t"}'),
        ({"s": "\x7f\x01"}, '{"s":"\\u007f\\u0001"}'),
    ],
)
def test_the_canonical_form_sorts_keys_drops_whitespace_and_escapes_to_ascii(
    value: dict[str, Any], expected: str
) -> None:
    assert canonical_json(value) == expected


def test_the_canonical_form_refuses_floating_point_oddities() -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        canonical_json({"x": float("nan")})


@pytest.mark.parametrize(
    ("arguments", "canonical_utf8"),
    [
        ({"b": 1, "a": "é"}, '{"a":"é","b":1}'.encode()),
        ({"path": "/srv/.env"}, b'{"path":"/srv/.env"}'),
        ({}, b"{}"),
        ({"n": [1, 2.5, None]}, b'{"n":[1,2.5,null]}'),
        ({"s": "\ud800"}, b'{"s":"\xed\xa0\x80"}'),
    ],
)
def test_the_arguments_hash_is_sha256_of_sorted_compact_utf8_json(
    arguments: dict[str, Any], canonical_utf8: bytes
) -> None:
    assert arguments_sha256(arguments) == hashlib.sha256(canonical_utf8).hexdigest()


def test_the_arguments_hash_does_not_depend_on_key_order() -> None:
    assert arguments_sha256({"a": 1, "b": {"y": 2, "x": 3}}) == arguments_sha256(
        {"b": {"x": 3, "y": 2}, "a": 1}
    )


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (1_700_000_000_250, "2023-11-14T22:13:20.250Z"),
        (1_700_000_000_007, "2023-11-14T22:13:20.007Z"),
    ],
)
def test_times_are_rfc3339_utc_milliseconds_and_read_back(ms: int, text: str) -> None:
    assert format_time(ms) == text
    assert parse_time(text) == ms


@pytest.mark.parametrize("text", ["yesterday", "2023-11-14T22:13:20"])
def test_a_time_without_a_zone_or_not_a_time_is_refused(text: str) -> None:
    with pytest.raises(RecordError):
        parse_time(text)


def test_the_first_line_chains_to_the_genesis_value_and_hashes_its_own_content() -> None:
    line, digest = chain_line({"kind": "gap", "time": format_time(0), "lost": 1}, 1, GENESIS)
    record = json.loads(line)
    assert record["prev"] == GENESIS == "0" * 64
    assert record["seq"] == 1
    assert record["v"] == 1
    body = {k: v for k, v in record.items() if k != "hash"}
    assert record["hash"] == digest == hashlib.sha256(canonical_json(body).encode()).hexdigest()
    assert line == canonical_json(record)
    assert isinstance(check_line(line.encode()), dict)


def test_a_decision_line_reads_back_as_the_same_typed_entry(patterns: Patterns) -> None:
    for decision in attack(patterns):
        entry = decision_entry("s1", decision, at=1_700_000_000.0)
        line, _ = chain_line(entry_json(entry), 2, GENESIS)
        assert entry_from_json(json.loads(line)) == entry


@pytest.mark.parametrize(
    "entry",
    [
        OpenEntry(1_700_000_000_000, "0.1.0", "ab" * 32),
        OpenEntry(1_700_000_000_000, "0.1.0", None, torn_bytes=12, torn_sha256="cd" * 32),
        GapEntry(1_700_000_000_000, lost=3),
    ],
)
def test_open_and_gap_lines_read_back_as_the_same_typed_entry(entry: OpenEntry | GapEntry) -> None:
    assert entry_from_json(json.loads(canonical_json(entry_json(entry)))) == entry


def test_a_decision_line_holds_the_arguments_hash_and_never_their_values(
    patterns: Patterns,
) -> None:
    toxic = attack(patterns)[-1]
    entry = decision_entry("s1", toxic, at=0.0)
    text = canonical_json(entry_json(entry))
    assert entry.args_sha256 == arguments_sha256(toxic.call.arguments)
    assert SECRET not in text
    assert "x.evil.example/" not in text
    assert json.loads(text)["flows"][0]["class"] == "exfiltration"


def test_the_call_time_is_used_and_the_clock_only_when_the_call_has_none() -> None:
    timed = Decision(0, ToolCall("s", "t", {}, at=12.5), Action.ALLOW, frozenset())
    untimed = Decision(0, ToolCall("s", "t", {}), Action.ALLOW, frozenset())
    assert decision_entry("x", timed, at=99.0).time_ms == 12_500
    assert decision_entry("x", untimed, at=99.0).time_ms == 99_000


class _Kind(StrEnum):
    SSRF = "ssrf"


@dataclass(frozen=True)
class _Control:
    kind: _Kind
    rule: str
    action: Action
    argument: str | None = None
    detail: str = ""


def test_a_per_call_control_becomes_a_typed_entry_that_reads_back() -> None:
    control = control_entry(_Control(_Kind.SSRF, "metadata", Action.DENY, "url", "169.254.0.0/16"))
    assert control == ControlEntry("ssrf", "metadata", Action.DENY, "url", "169.254.0.0/16")
    entry = DecisionEntry(
        time_ms=0,
        session="s",
        index=0,
        server="web",
        tool="fetch",
        action=Action.DENY,
        reasons=(),
        labels=frozenset(),
        flows=(),
        controls=(control,),
        leaked_bytes=0,
        args_sha256="0" * 64,
    )
    assert entry_from_json(json.loads(canonical_json(entry_json(entry)))) == entry


def test_a_flow_is_written_exactly_as_session_json_writes_it(patterns: Patterns) -> None:
    verdict = attack_verdict(patterns)
    assert verdict.flows
    assert [flow_json(f) for f in verdict.flows] == verdict_json(verdict)["flows"]
    assert [flow_from_json(f) for f in verdict_json(verdict)["flows"]] == list(verdict.flows)


@pytest.mark.parametrize(
    "change",
    [
        {"class": "exfiltrate"},
        {"severity": 3},
        {"call_index": -1},
        {"call_index": True},
        {"chain": "fetch"},
        {"evidence": None},
    ],
)
def test_a_flow_that_cyclops_did_not_write_is_refused_by_name(
    patterns: Patterns, change: dict[str, Any]
) -> None:
    flow = flow_json(attack(patterns)[-1].flows[0])
    key = next(iter(change))
    with pytest.raises(RecordError, match=key):
        flow_from_json({**flow, **change})


def test_a_call_denied_by_a_control_is_logged_with_the_control_rule_and_argument(
    patterns: Patterns,
) -> None:
    decision = Session(patterns, Mode.PREVENT).decide(
        ToolCall("fetch", "fetch", {"url": "https://webhook.site/abc"})
    )
    entry = decision_entry("s1", decision, at=0.0)
    assert entry.action is Action.DENY
    assert [(c.kind, c.action, c.argument) for c in entry.controls] == [
        (c.kind.value, c.action, c.argument) for c in decision.controls
    ]
    assert entry.controls[0].rule
    assert "webhook.site/abc" not in canonical_json(entry_json(entry))
