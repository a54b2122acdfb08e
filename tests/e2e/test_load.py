"""bench/load.py, briefly: 50 concurrent HTTP sessions for 5 s through one ``cyclops serve
--http`` in front of three real stdio servers, with benign, browsing and attacking sessions.
No call may fail, no benign or browsing session may be tainted by another session's data, and
every attacking session must be caught. (The figures for docs/benchmarks.md come from the
default run: ``python bench/load.py``, 30 s.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from e2e_support import PYTHON, ROOT

pytestmark = pytest.mark.anyio

SESSIONS = 50
SECONDS = 5


async def test_fifty_http_sessions_under_load_have_no_error_and_no_cross_session_taint(
    tmp_path: Path,
) -> None:
    report_path = tmp_path / "load.json"
    command = [PYTHON, str(ROOT / "bench" / "load.py"), "--sessions", str(SESSIONS)]
    command += ["--duration", str(SECONDS), "--json", str(report_path)]
    with anyio.fail_after(180):
        done = await anyio.run_process(command, check=False, stdin=subprocess.DEVNULL)
    output = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
    assert done.returncode == 0, output
    report = json.loads(report_path.read_text())
    kinds = report["config"]["kinds"]
    assert len(kinds) == SESSIONS
    assert kinds.count("benign") >= SESSIONS // 2
    assert report["all"]["errors"] == 0, report["errors_by_type"]
    assert report["taint"] == {
        "clean_sessions_not_clean": [],
        "attack_sessions_not_toxic": [],
        "verdicts_missing": [],
    }
    assert report["by_kind"]["attack"]["denied"] > 0
    assert report["by_kind"]["benign"]["denied"] == 0
    assert report["by_kind"]["benign"]["calls"] > 0
