"""cyclops scan and cyclops wrap from the command line, on saved snapshots (no server starts)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from scan_hosts import CLAUDE

from cyclops.cli import main
from cyclops.scan.analysis import RuntimeRule, WarningKind
from cyclops.scan.command import EXIT_CLEAN, EXIT_ERROR, EXIT_ROUTES
from cyclops.scan.cut import CutSide, TieBreak
from cyclops.scan.snapshot import ServerTools, Snapshot, ToolSpec, dump_snapshot

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "bench" / "scan" / "snapshots" / "real-servers.json"
REAL_CONFIG = ROOT / "bench" / "scan" / "real-servers.toml"


def snapshot_file(tmp_path: Path, *servers: ServerTools) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(dump_snapshot(Snapshot(servers)))
    return path


def server(name: str, *tools: str) -> ServerTools:
    return ServerTools(name, tuple(ToolSpec(t, {"name": t}) for t in tools))


ATTACK = (
    server("filesystem", "read_text_file"),
    server("fetch", "fetch"),
    server("notify", "send_message"),
)


def scan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["scan", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_leaky_configuration_exits_1_with_routes_a_cut_and_a_clean_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = scan_json(capsys, "--tools", str(snapshot_file(tmp_path, *ATTACK)))
    assert code == EXIT_ROUTES
    assert report["routes"]["count"] == 2  # type: ignore[index]
    cut = report["cut"]
    assert (cut["side"], cut["tie_break"]) == (CutSide.READ.value, TieBreak.UNIQUE.value)  # type: ignore[index]
    assert [g["runtime_rule"] for g in cut["grants"]] == [RuntimeRule.DENY.value]  # type: ignore[index]
    assert report["receipt"] == {
        "revoked": ["filesystem/read_text_file (read)"],
        "routes_before": 2,
        "routes_after": 0,
    }
    assert [w["kind"] for w in report["warnings"]] == [WarningKind.LEAK_ROUTES.value]  # type: ignore[union-attr]
    assert "-. cut .->" in report["mermaid"]  # type: ignore[operator]


def test_a_clean_configuration_exits_0_with_no_cut_and_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = snapshot_file(
        tmp_path, server("filesystem", "read_text_file"), server("notify", "send_message")
    )
    code, report = scan_json(capsys, "--tools", str(tools))
    assert code == EXIT_CLEAN
    assert (report["cut"]["grants"], report["warnings"]) == ([], [])  # type: ignore[index]


def test_the_text_report_ends_with_the_mermaid_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["scan", "--tools", str(snapshot_file(tmp_path, *ATTACK))])
    out = capsys.readouterr().out
    assert out.rstrip().endswith("```")
    assert "```mermaid\nflowchart LR" in out


def test_declared_tasks_move_the_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\nname = "edit"\ntools = ["filesystem/read_text_file"]\n')
    _, report = scan_json(
        capsys, "--tools", str(snapshot_file(tmp_path, *ATTACK)), "--tasks", str(tasks)
    )
    assert report["cut"]["side"] == CutSide.WRITE.value  # type: ignore[index]
    assert report["cut"]["tasks_broken"] == []  # type: ignore[index]


def test_the_graph_is_written_as_mermaid_and_as_svg_only_where_graphviz_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    prefix = tmp_path / "graph"
    with caplog.at_level(logging.WARNING, logger="cyclops.scan"):
        main(["scan", "--tools", str(snapshot_file(tmp_path, *ATTACK)), "--graph", str(prefix)])
    assert prefix.with_suffix(".mmd").read_text().startswith("flowchart LR")
    svg = prefix.with_suffix(".svg")
    if shutil.which("dot") is None:
        assert not svg.exists()
        assert any("dot" in r.getMessage() for r in caplog.records)
    else:
        assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_a_saved_snapshot_scans_the_same_as_the_one_it_was_saved_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "again.json"
    _, first = scan_json(capsys, str(REAL_CONFIG), "--tools", str(REAL), "--save-tools", str(saved))
    _, second = scan_json(capsys, "--tools", str(saved))
    first.pop("source")
    second.pop("source")
    assert first == second


def test_the_real_servers_config_has_the_routes_and_cut_docs_scan_md_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, report = scan_json(capsys, str(REAL_CONFIG), "--tools", str(REAL))
    assert code == EXIT_ROUTES
    assert report["routes"]["count"] == 155  # type: ignore[index]
    assert [g["tool"] for g in report["cut"]["grants"]] == [  # type: ignore[index]
        "everything/gzip-file-as-resource",
        "everything/trigger-sampling-request",
        "everything/trigger-url-elicitation",
        "notify/send_message",
        "web/fetch_page",
    ]
    assert [s["tool"] for s in report["self_contained"]] == ["everything/trigger-url-elicitation"]  # type: ignore[index]
    assert report["receipt"]["routes_after"] == 0  # type: ignore[index]
    docs = (ROOT / "docs" / "scan.md").read_text()
    assert "155 leak routes" in docs
    assert "everything/trigger-url-elicitation" in docs


def test_a_host_config_behind_cyclops_is_scanned_through_its_downstream_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(CLAUDE)
    assert main(["wrap", str(config)]) == EXIT_CLEAN
    capsys.readouterr()
    tools = snapshot_file(
        tmp_path, server("filesystem", "read_text_file"), server("My-GitHub", "get_issue")
    )
    code, report = scan_json(capsys, str(config), "--tools", str(tools))
    assert [s["name"] for s in report["servers"]] == ["filesystem", "My-GitHub"]  # type: ignore[index]
    assert code == EXIT_CLEAN
    assert main(["wrap", "--undo", str(config)]) == EXIT_CLEAN
    assert config.read_text() == CLAUDE


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="nothing to scan"),
        pytest.param(["--tools", "/nonexistent.json"], id="missing snapshot"),
        pytest.param(["--tools", "{tools}", "--tasks", "{tasks}"], id="a task matching nothing"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\nname = "x"\ntools = ["nowhere/*"]\n')
    tools = snapshot_file(tmp_path, *ATTACK)
    argv = [a.format(tools=tools, tasks=tasks) for a in argv]
    assert main(["scan", *argv]) == EXIT_ERROR
    assert capsys.readouterr().out == ""


def test_the_policy_fragment_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "policy.toml"
    main(["scan", "--tools", str(snapshot_file(tmp_path, *ATTACK)), "--emit-policy", str(policy)])
    assert policy.read_text().startswith("# cyclops scan policy")
