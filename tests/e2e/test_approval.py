"""End to end: an ``ask`` decision goes to the user as an MCP elicitation, over both fronts.

cyclops runs as a process in front of the example notify server; the host is the SDK's client in
this test process, answering the elicitation the way the test tells it to.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import anyio
import pytest
from e2e_support import (
    PYTHON,
    Host,
    call_tool,
    connect_http,
    connect_stdio,
    http_cyclops,
    is_denial,
    load_json,
    python_server_entry,
    serve_args,
    write_downstream,
)

pytestmark = pytest.mark.anyio

GITHUB_TOKEN = "ghp_" + "R7kq2ZxW9pLm4Tn8Vb3Hc6Jd1Fs5Gy0Ua2Qe"  # synthetic
POST = {"url": "https://hooks.partner.example/in", "text": f"deploy token {GITHUB_TOKEN}"}


def setup_files(tmp_path: Path) -> list[str]:
    """A patterns.toml that asks before any GitHub token leaves, and the downstream.toml."""
    default = (resources.files("cyclops") / "patterns.toml").read_text(encoding="utf-8")
    header = "[controls.secret_actions]\n"
    assert header in default
    patterns = tmp_path / "patterns.toml"
    patterns.write_text(default.replace(header, header + '"github-token" = "ask"\n'))
    downstream = write_downstream(
        tmp_path / "downstream.toml",
        [python_server_entry("notify", "cyclops.examples.servers.notify")],
    )
    verdicts = tmp_path / "verdicts"
    return serve_args(
        downstream, verdicts, mode="prevent", extra=["--patterns", str(patterns), "--no-pins"]
    )


@pytest.mark.parametrize(("reply", "allowed"), [({"allow": True}, True), ({}, False)])
async def test_over_stdio_the_users_answer_decides_the_call(
    tmp_path: Path, reply: dict[str, bool], allowed: bool
) -> None:
    host = Host(elicitation_reply=reply)
    args = setup_files(tmp_path)
    with (tmp_path / "cyclops.stderr").open("w") as errlog:
        async with connect_stdio(PYTHON, args, host, errlog) as session:
            with anyio.fail_after(30):
                result = await call_tool(session, "send_message", POST)
    assert is_denial(result) is not allowed
    (asked,) = host.elicited
    assert "notify/send_message" in asked.message
    assert "github-token" in asked.message
    assert GITHUB_TOKEN not in asked.message


async def test_over_http_a_yes_lets_the_call_through_and_the_verdict_counts_the_question(
    tmp_path: Path,
) -> None:
    host = Host(elicitation_reply={"allow": True})
    args = setup_files(tmp_path)
    async with (
        http_cyclops(args, tmp_path) as cyclops,
        connect_http(cyclops.url, cyclops.token, host) as session,
    ):
        with anyio.fail_after(30):
            result = await call_tool(session, "send_message", POST)
    assert not is_denial(result)
    assert len(host.elicited) == 1
    (verdict_file,) = (tmp_path / "verdicts").glob("*.session.json")
    verdict = load_json(verdict_file)
    assert verdict["metrics"]["asked"] == 1
    assert [c["rule"] for c in verdict["controls"]] == ["github-token"]
