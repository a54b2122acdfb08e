"""The emitted policy fragment loads with the strict patterns loader and carries the scan's labels
to run time."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from cyclops.core.patterns import parse_patterns
from cyclops.core.session import Session
from cyclops.core.types import Action, ControlKind, Label, Mode, ToolCall
from cyclops.scan.analysis import RuntimeRule, runtime_rule, scan
from cyclops.scan.policy import ROLE_PREFIX, policy_fragment
from cyclops.scan.snapshot import ServerTools, Snapshot, ToolSpec, parse_snapshot

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "bench" / "scan" / "snapshots" / "real-servers.json"


def bundled() -> str:
    return resources.files("cyclops").joinpath("patterns.toml").read_text(encoding="utf-8")


def odd_names() -> Snapshot:
    closed = {"openWorldHint": False, "readOnlyHint": True}
    return Snapshot(
        (
            ServerTools(
                "acme.crm",
                (
                    ToolSpec(
                        "get*customer?[x]", {"name": "get*customer?[x]", "annotations": closed}
                    ),
                ),
            ),
            ServerTools("web", (ToolSpec("fetch", {"name": "fetch"}),)),
            ServerTools("hook", (ToolSpec("post_update", {"name": "post_update"}),)),
        )
    )


@pytest.mark.parametrize(
    "snapshot",
    [
        pytest.param(lambda: parse_snapshot(REAL.read_text(), str(REAL)), id="the real servers"),
        pytest.param(odd_names, id="names with glob characters"),
    ],
)
def test_the_fragment_appended_to_the_bundled_patterns_loads_strictly_and_pins_the_scan(
    snapshot: object,
) -> None:
    snap = snapshot()  # type: ignore[operator]
    patterns = parse_patterns(bundled(), "bundled")
    before = scan(snap, patterns)
    fragment = policy_fragment(before)
    merged = parse_patterns(bundled() + "\n" + fragment, "bundled + fragment")
    assert any(r.name.startswith(ROLE_PREFIX) for r in merged.roles)
    after = scan(snap, merged)
    # Every tool the scan had to guess is now covered by a rule, with the same labels.
    assert not [t for t in after.labelling.tools if t.inferred]
    assert {t.capability: t.labels for t in after.labelling.tools} == {
        t.capability: t.labels for t in before.labelling.tools
    }
    assert (after.routes.count, after.cut.grants) == (before.routes.count, before.cut.grants)


def test_a_clean_scan_emits_a_fragment_that_changes_nothing() -> None:
    snap = Snapshot((ServerTools("filesystem", (ToolSpec("read_file", {"name": "read_file"}),)),))
    patterns = parse_patterns(bundled(), "bundled")
    fragment = policy_fragment(scan(snap, patterns))
    merged = parse_patterns(bundled() + "\n" + fragment, "merged")
    assert [r.name for r in merged.roles] == [r.name for r in patterns.roles]


def test_the_pinned_role_matches_only_its_own_server_and_tool() -> None:
    patterns = parse_patterns(bundled(), "bundled")
    merged = parse_patterns(bundled() + policy_fragment(scan(odd_names(), patterns)), "merged")
    role = merged.role(ROLE_PREFIX + "acme.crm")
    assert role is not None
    assert role.servers.matches("acme.crm")
    assert not role.servers.matches("acme-crm")
    ((glob, labels),) = role.tools
    assert glob.matches("get*customer?[x]")
    assert not glob.matches("getXcustomerY[x]")
    assert labels == {Label.SENSITIVE}


def test_the_fragment_enforces_the_cut_on_every_call_at_run_time() -> None:
    snap = parse_snapshot(REAL.read_text(), str(REAL))
    patterns = parse_patterns(bundled(), "bundled")
    result = scan(snap, patterns)
    assert result.cut.grants
    merged = parse_patterns(bundled() + "\n" + policy_fragment(result), "merged")
    for grant in result.cut.grants:
        session = Session(merged, Mode.PREVENT)
        decision = session.decide(ToolCall(grant.capability.server, grant.capability.tool, {}))
        tool_rules = [c for c in decision.controls if c.kind is ControlKind.TOOL]
        assert [c.action for c in tool_rules] == [
            Action.DENY if runtime_rule(grant) is RuntimeRule.DENY else Action.ASK
        ]
        assert decision.action in (Action.DENY, Action.ASK)
