"""A writer killed with SIGKILL mid-loop leaves a log whose last line is whole or absent."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import anyio
import pytest

from cyclops.report.audit import AuditStatus, verify
from cyclops.report.decision_log import DecisionLog

pytestmark = pytest.mark.anyio

CHILD = """
import sys
from pathlib import Path

from cyclops.core.types import Action, Decision, Label, ToolCall
from cyclops.report.decision_log import DecisionLog

log = DecisionLog(Path(sys.argv[1]))
n = 0
while True:
    call = ToolCall("files", "read_text_file", {"path": f"/srv/{n}", "pad": "x" * n})
    log.record("killed", Decision(n, call, Action.ALLOW, frozenset({Label.SENSITIVE})))
    n += 1
    sys.stdout.write(f"{n}\\n")
    sys.stdout.flush()
"""
ACKNOWLEDGED = 300
ROUNDS = 3


async def _append_until_killed(path: Path) -> int:
    """Run a writer until it acknowledged ``ACKNOWLEDGED`` appends, SIGKILL it; how many it
    acknowledged (each after its write and fsync returned)."""
    async with await anyio.open_process([sys.executable, "-c", CHILD, str(path)]) as process:
        assert process.stdout is not None
        seen = b""
        while seen.count(b"\n") < ACKNOWLEDGED:
            seen += await process.stdout.receive()
        process.kill()
        await process.wait()
    assert process.returncode == -signal.SIGKILL
    return seen.count(b"\n")


async def test_a_log_survives_its_writer_being_killed_mid_append(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    expected_at_least = 0
    with anyio.fail_after(60):
        for _ in range(ROUNDS):
            acknowledged = await _append_until_killed(path)
            expected_at_least += acknowledged + 1  # each writer starts with an open line
            result = verify(path)
            assert result.status in (AuditStatus.INTACT, AuditStatus.TORN)
            assert result.lines >= expected_at_least
            DecisionLog(path).close()  # the next writer cuts a torn tail, if any
            reopened = verify(path)
            assert reopened.status is AuditStatus.INTACT
            expected_at_least = reopened.lines
