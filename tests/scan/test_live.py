"""cyclops scan in front of the real servers: npm's server-filesystem and server-everything, PyPI's
mcp-server-time and mcp-server-git, and cyclops's example web and notify servers.

The npm servers come from tests/e2e/package.json; a missing one fails the test with the command
that installs it (nothing here skips)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from cyclops.cli import main
from cyclops.config import load_patterns
from cyclops.proxy.config import ServerConfig, Transport, load_downstream
from cyclops.scan.analysis import scan
from cyclops.scan.live import ListingError, list_live
from cyclops.scan.snapshot import parse_snapshot

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "bench" / "scan" / "real-servers.toml"
SNAPSHOT = ROOT / "bench" / "scan" / "snapshots" / "real-servers.json"
NODE_BIN = ROOT / "tests" / "e2e" / "node_modules" / ".bin"
INSTALL_HINT = "run the test command in README.md (npm ci --prefix tests/e2e ...)"
BIN = Path(sys.executable).parent


def runnable(server: ServerConfig) -> ServerConfig:
    """The config's relative commands made absolute, and this interpreter's Python and scripts."""
    command = server.command
    if command == "python":
        command = sys.executable
    elif "/" in command:
        command = str(ROOT / command)
        if not Path(command).exists():
            pytest.fail(f"{command} not found: {INSTALL_HINT}", pytrace=False)
    elif (BIN / command).exists():
        command = str(BIN / command)
    args = tuple(str(ROOT / a) if a.startswith("bench/") else a for a in server.args)
    return dataclasses.replace(server, command=command, args=args, cwd=str(ROOT))


def real_servers() -> tuple[ServerConfig, ...]:
    return tuple(runnable(s) for s in load_downstream(CONFIG, os.environ).servers)


async def test_the_real_servers_list_the_tools_of_the_committed_snapshot() -> None:
    with anyio.fail_after(90):
        live = await list_live(real_servers(), timeout=60)
    saved = parse_snapshot(SNAPSHOT.read_text(), str(SNAPSHOT))
    for server in saved.servers:
        listed = live.server(server.name)
        assert listed is not None
        assert [t.name for t in listed.tools] == [t.name for t in server.tools], (
            f"{server.name} lists other tools than {SNAPSHOT.name}: save it again "
            "(cyclops scan bench/scan/real-servers.toml --save-tools ...) and update docs/scan.md"
        )
    patterns = load_patterns()
    from_live, from_saved = scan(live, patterns), scan(saved, patterns)
    assert from_live.routes.count == from_saved.routes.count > 0
    assert from_live.cut.grants == from_saved.cut.grants
    assert from_live.receipt.count == 0


async def test_every_page_of_a_server_s_tools_is_listed() -> None:
    paged = ServerConfig(
        name="paged",
        transport=Transport.STDIO,
        command=sys.executable,
        args=(str(Path(__file__).with_name("paged_server.py")),),
    )
    with anyio.fail_after(30):
        snapshot = await list_live([paged], timeout=20)
    assert [t.name for t in snapshot.servers[0].tools] == [f"send_{i:02d}" for i in range(25)]


async def test_a_server_that_cannot_be_listed_fails_the_scan_naming_it() -> None:
    missing = ServerConfig(
        name="gone", transport=Transport.STDIO, command=str(ROOT / "no-such-server")
    )
    silent = ServerConfig(
        name="silent",
        transport=Transport.STDIO,
        command=sys.executable,
        args=("-c", "import sys; sys.stdin.read()"),
    )
    with anyio.fail_after(30), pytest.raises(ListingError) as error:
        await list_live([missing, silent], timeout=2)
    assert sorted(error.value.failures) == ["gone", "silent"]


def test_a_claude_desktop_config_is_scanned_live(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "claude_desktop_config.json"
    servers = {
        "time": {"command": str(BIN / "mcp-server-time")},
        "git": {"command": str(BIN / "mcp-server-git")},
        "web": {"command": sys.executable, "args": ["-m", "cyclops.examples.servers.web"]},
        "notify": {"command": sys.executable, "args": ["-m", "cyclops.examples.servers.notify"]},
    }
    config.write_text(json.dumps({"mcpServers": servers}, indent=2))
    saved = tmp_path / "tools.json"
    code = main(["scan", str(config), "--json", "--timeout", "60", "--save-tools", str(saved)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [s["name"] for s in report["servers"]] == ["time", "git", "web", "notify"]
    assert [g["tool"] for g in report["cut"]["grants"]] == ["notify/send_message", "web/fetch_page"]
    assert [s.name for s in parse_snapshot(saved.read_text(), str(saved)).servers] == list(servers)
