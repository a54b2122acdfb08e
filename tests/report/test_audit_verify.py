"""``cyclops audit verify`` and the writer: tampering is caught by line, a crash is told apart."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from report_support import ROOT, attack, write_log

from cyclops.audit_cli import EXIT_BROKEN, EXIT_TORN
from cyclops.cli import EXIT_OK, EXIT_USAGE, main
from cyclops.core import Patterns
from cyclops.report.audit import AuditStatus, Break, verify
from cyclops.report.decision_log import DecisionLog, DecisionLogError
from cyclops.report.decision_record import GENESIS, canonical_json, line_hash, parse_time

Lines = list[bytes]


@pytest.fixture
def log_path(tmp_path: Path, patterns: Patterns) -> Path:
    """An intact log of seven lines: two writers, each an open line then its decisions."""
    path = write_log(tmp_path / "decisions.jsonl", patterns, attack(patterns))
    log = DecisionLog(path)
    for decision in attack(patterns, session="s2")[:2]:
        log.record("s2", decision)
    log.close()
    return path


def _edit_value(lines: Lines) -> Lines:
    record = json.loads(lines[2])
    record["decision"] = "allow" if record["decision"] != "allow" else "deny"
    return [*lines[:2], canonical_json(record).encode() + b"\n", *lines[3:]]


def _edit_and_rehash(lines: Lines) -> Lines:
    record = json.loads(lines[2])
    record["session"] = "someone-else"
    del record["hash"]
    record["hash"] = line_hash(record)
    return [*lines[:2], canonical_json(record).encode() + b"\n", *lines[3:]]


def _respace(lines: Lines) -> Lines:
    return [*lines[:2], json.dumps(json.loads(lines[2])).encode() + b"\n", *lines[3:]]


def _cut_middle(lines: Lines) -> Lines:
    joined = lines[2] + lines[3]
    return [*lines[:2], joined[:40] + joined[-60:], *lines[4:]]


TAMPERING: list[tuple[str, Callable[[Lines], Lines], int, Break]] = [
    ("edit a value", _edit_value, 3, Break.BAD_HASH),
    ("edit and recompute the line's hash", _edit_and_rehash, 4, Break.BAD_PREV),
    ("reformat a line", _respace, 3, Break.NOT_CANONICAL),
    ("delete a line", lambda ls: [*ls[:2], *ls[3:]], 3, Break.BAD_SEQ),
    ("delete the first line", lambda ls: ls[1:], 1, Break.BAD_SEQ),
    ("insert a copy", lambda ls: [*ls[:3], ls[2], *ls[3:]], 4, Break.BAD_SEQ),
    ("swap two lines", lambda ls: [*ls[:2], ls[3], ls[2], *ls[4:]], 3, Break.BAD_SEQ),
    ("cut bytes out of the middle", _cut_middle, 3, Break.NOT_JSON),
    ("write over a line", lambda ls: [*ls[:4], b"garbage\n", *ls[5:]], 5, Break.NOT_JSON),
    (
        "change the version",
        lambda ls: [ls[0], ls[1].replace(b'"v":1', b'"v":2')],
        2,
        Break.BAD_FIELDS,
    ),
]


@pytest.mark.parametrize(
    ("tamper", "line", "problem"),
    [t[1:] for t in TAMPERING],
    ids=[t[0] for t in TAMPERING],
)
def test_tampering_is_named_at_the_first_line_it_breaks(
    log_path: Path, tamper: Callable[[Lines], Lines], line: int, problem: Break
) -> None:
    lines = log_path.read_bytes().splitlines(keepends=True)
    log_path.write_bytes(b"".join(tamper(lines)))
    result = verify(log_path)
    assert result.status is AuditStatus.BROKEN
    assert (result.broken_line, result.problem) == (line, problem)
    assert result.lines == line - 1
    assert main(["audit", "verify", str(log_path)]) == EXIT_BROKEN


def test_an_intact_log_verifies_with_its_line_count_and_head(
    log_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = verify(log_path)
    last = json.loads(log_path.read_bytes().splitlines()[-1])
    assert (result.status, result.lines, result.head) == (AuditStatus.INTACT, 7, last["hash"])
    assert main(["audit", "verify", str(log_path)]) == EXIT_OK
    assert last["hash"] in capsys.readouterr().out


def test_an_empty_log_is_intact_with_the_genesis_head(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    result = verify(tmp_path / "empty.jsonl")
    assert (result.status, result.lines, result.head) == (AuditStatus.INTACT, 0, GENESIS)


def test_a_torn_last_line_is_reported_apart_from_tampering(log_path: Path) -> None:
    with log_path.open("ab") as handle:
        handle.write(b'{"args_sha256":"4f07')
    result = verify(log_path)
    assert (result.status, result.lines, result.torn_bytes) == (AuditStatus.TORN, 7, 20)
    assert main(["audit", "verify", str(log_path)]) == EXIT_TORN


def test_truncation_inside_the_last_line_is_a_torn_line(log_path: Path) -> None:
    data = log_path.read_bytes()
    log_path.write_bytes(data[:-30])
    assert verify(log_path).status is AuditStatus.TORN


def test_a_missing_log_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["audit", "verify", str(tmp_path / "nope.jsonl")]) == EXIT_USAGE


def test_a_reopened_log_continues_the_chain_and_records_its_writer(log_path: Path) -> None:
    lines = [json.loads(x) for x in log_path.read_bytes().splitlines()]
    assert [x["kind"] for x in lines] == ["open", *["decision"] * 3, "open", *["decision"] * 2]
    assert [x["seq"] for x in lines] == list(range(1, 8))
    assert lines[4]["prev"] == lines[3]["hash"]
    assert lines[4]["torn_bytes"] == 0


def test_opening_a_log_with_a_torn_tail_cuts_it_and_records_its_length_and_hash(
    log_path: Path,
) -> None:
    torn = b'{"args_sha256":"4f07'
    before = log_path.read_bytes()
    with log_path.open("ab") as handle:
        handle.write(torn)
    DecisionLog(log_path).close()
    assert log_path.read_bytes().startswith(before + b'{"cyclops_version"')
    result = verify(log_path)
    assert (result.status, result.lines) == (AuditStatus.INTACT, 8)
    opened = json.loads(log_path.read_bytes().splitlines()[-1])
    assert opened["kind"] == "open"
    assert opened["torn_bytes"] == len(torn)
    assert opened["torn_sha256"] == hashlib.sha256(torn).hexdigest()


def test_a_second_writer_is_refused_while_the_first_holds_the_log(tmp_path: Path) -> None:
    first = DecisionLog(tmp_path / "d.jsonl")
    try:
        with pytest.raises(DecisionLogError, match="another process"):
            DecisionLog(tmp_path / "d.jsonl")
    finally:
        first.close()
    DecisionLog(tmp_path / "d.jsonl").close()


def test_a_log_whose_last_line_is_not_a_decision_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"some": "other file"}\n')
    with pytest.raises(DecisionLogError, match="audit verify"):
        DecisionLog(path)
    assert path.read_text() == '{"some": "other file"}\n'


def test_the_log_is_created_private(tmp_path: Path) -> None:
    DecisionLog(tmp_path / "new" / "d.jsonl").close()
    assert (tmp_path / "new" / "d.jsonl").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("truncate_fails_too", [False, True])
def test_a_failed_write_appends_nothing_and_a_gap_line_records_the_loss(
    tmp_path: Path, patterns: Patterns, monkeypatch: pytest.MonkeyPatch, truncate_fails_too: bool
) -> None:
    decisions = attack(patterns)
    log = DecisionLog(tmp_path / "d.jsonl")
    real_write, real_truncate = os.write, os.ftruncate

    def full_disk(fd: int, data: bytes) -> int:
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def broken_truncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "write", full_disk)
    if truncate_fails_too:
        monkeypatch.setattr(os, "ftruncate", broken_truncate)
    with pytest.raises(OSError, match="space"):
        log.record("s1", decisions[0])
    assert (log.lines, log.lost) == (1, 1)
    expected = AuditStatus.TORN if truncate_fails_too else AuditStatus.INTACT
    assert verify(tmp_path / "d.jsonl").status is expected
    monkeypatch.setattr(os, "write", real_write)
    monkeypatch.setattr(os, "ftruncate", real_truncate)
    log.record("s1", decisions[1])
    log.close()
    lines = (tmp_path / "d.jsonl").read_bytes().splitlines()
    assert [json.loads(x)["kind"] for x in lines] == ["open", "gap", "decision"]
    assert json.loads(lines[1])["lost"] == 1
    assert verify(tmp_path / "d.jsonl").status is AuditStatus.INTACT


def test_replay_appends_one_line_per_call_to_a_log_that_verifies(tmp_path: Path) -> None:
    log = tmp_path / "d.jsonl"
    assert main(["replay", "--example", "attack", "--decision-log", str(log)]) == EXIT_OK
    records = [json.loads(x) for x in log.read_bytes().splitlines()]
    decisions = [r for r in records if r["kind"] == "decision"]
    assert len(decisions) == len(
        [x for x in (ROOT / "cyclops/examples/attack.jsonl").read_text().splitlines() if x]
    )
    assert records[0]["patterns_sha256"] is not None
    assert all(parse_time(r["time"]) > 0 for r in records)
    assert main(["audit", "verify", str(log)]) == EXIT_OK


def _auditor_script() -> str:
    doc = (ROOT / "docs" / "audit.md").read_text()
    scripts: list[str] = re.findall(r"```python\n(.*?)```", doc, re.S)
    return scripts[0]


def test_the_documented_twenty_line_script_verifies_what_cyclops_verifies(
    log_path: Path, tmp_path: Path
) -> None:
    script = tmp_path / "auditor.py"
    script.write_text(_auditor_script())
    assert len(_auditor_script().splitlines()) <= 20
    good = subprocess.run(
        [sys.executable, str(script), str(log_path)], capture_output=True, text=True, check=False
    )
    assert good.returncode == 0
    assert verify(log_path).head in good.stdout
    lines = log_path.read_bytes().splitlines(keepends=True)
    for tamper in (_edit_value, _edit_and_rehash, _respace, lambda ls: [*ls[:2], *ls[3:]]):
        log_path.write_bytes(b"".join(tamper(lines)))
        bad = subprocess.run(
            [sys.executable, str(script), str(log_path)], capture_output=True, check=False
        )
        assert bad.returncode != 0
