"""Real servers from PyPI (mcp-server-time, mcp-server-git) and npm (server-filesystem) behind
one cyclops: every tool each lists directly is there, and calls to each of them work."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_support import (
    PYTHON,
    Host,
    call_tool,
    connect_stdio,
    node_bin,
    raw,
    serve_args,
    server_entry,
    text_of,
    write_downstream,
)
from mcp.client.session import ClientSession

pytestmark = pytest.mark.anyio

COMMIT_MESSAGE = "e2e: the first commit of the fixture repository"


@dataclass(frozen=True)
class Servers:
    """The three servers' commands, and the workspace they serve."""

    entries: dict[str, tuple[str, list[str]]]
    repo: Path
    files: Path


@dataclass
class Proxy:
    session: ClientSession
    servers: Servers
    direct_tools: dict[str, list[dict[str, Any]]]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=e2e", "-c", "user.email=e2e@example.org", *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Servers:
    base = tmp_path_factory.mktemp("real-servers")
    repo = base / "repo"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    (repo / "notes.txt").write_text("first line\n")
    _git(repo, "add", "notes.txt")
    _git(repo, "commit", "--quiet", "-m", COMMIT_MESSAGE)
    files = base / "files"
    files.mkdir()
    (files / "hello.txt").write_text("hello from the e2e workspace\n")
    return Servers(
        entries={
            "time": (PYTHON, ["-m", "mcp_server_time", "--local-timezone", "UTC"]),
            "git": (PYTHON, ["-m", "mcp_server_git", "--repository", str(repo)]),
            "filesystem": (node_bin("mcp-server-filesystem"), [str(files)]),
        },
        repo=repo,
        files=files,
    )


async def _direct_tools(
    command: str, args: list[str], roots: Path, errlog_path: Path
) -> list[dict[str, Any]]:
    # server-filesystem asks the client for roots and takes an empty list for "nothing allowed".
    host = Host(roots=[types.Root(uri=roots.as_uri())])  # type: ignore[arg-type]
    with errlog_path.open("w") as errlog:
        async with connect_stdio(command, args, host, errlog) as session:
            tools: list[dict[str, Any]] = (await raw(session, "tools/list"))["tools"]
            return tools


@pytest.fixture(scope="module")
async def proxy(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Proxy]:
    work = tmp_path_factory.mktemp("real-servers-cyclops")
    direct: dict[str, list[dict[str, Any]]] = {}

    async def list_directly(name: str) -> None:
        command, args = servers.entries[name]
        direct[name] = await _direct_tools(command, args, servers.files, work / f"{name}.stderr")

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            for name in servers.entries:
                tg.start_soon(list_directly, name)

    entries = [server_entry(n, c, a, timeout=30) for n, (c, a) in servers.entries.items()]
    downstream = write_downstream(work / "downstream.toml", entries)
    (work / "verdicts").mkdir()
    with (work / "cyclops.stderr").open("w") as errlog:
        args = serve_args(downstream, work / "verdicts")
        async with connect_stdio(PYTHON, args, Host(), errlog) as session:
            yield Proxy(session, servers, direct)


async def test_every_tool_of_every_server_is_offered_as_the_server_describes_it(
    proxy: Proxy,
) -> None:
    listed = (await raw(proxy.session, "tools/list"))["tools"]
    expected = [tool for name in proxy.servers.entries for tool in proxy.direct_tools[name]]
    assert all(proxy.direct_tools.values()), "a server listed no tools directly"
    # No two of these servers share a tool name, so every tool keeps its own name.
    assert sorted(listed, key=lambda t: t["name"]) == sorted(expected, key=lambda t: t["name"])


async def test_the_time_server_answers_through_cyclops(proxy: Proxy) -> None:
    now = await call_tool(proxy.session, "get_current_time", {"timezone": "UTC"})
    assert now.get("isError") is not True
    assert json.loads(text_of(now))["timezone"] == "UTC"

    converted = await call_tool(
        proxy.session,
        "convert_time",
        {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    )
    assert converted.get("isError") is not True
    answer = json.loads(text_of(converted))
    assert answer["target"]["timezone"] == "Asia/Tokyo"
    assert answer["target"]["datetime"][11:16] == "21:00"


async def test_the_git_server_reads_and_changes_the_repository_through_cyclops(
    proxy: Proxy,
) -> None:
    repo = str(proxy.servers.repo)
    log = await call_tool(proxy.session, "git_log", {"repo_path": repo})
    assert log.get("isError") is not True
    assert COMMIT_MESSAGE in text_of(log)

    (proxy.servers.repo / "notes.txt").write_text("first line\nsecond line from e2e\n")
    diff = await call_tool(proxy.session, "git_diff_unstaged", {"repo_path": repo})
    assert "+second line from e2e" in text_of(diff)

    added = await call_tool(proxy.session, "git_add", {"repo_path": repo, "files": ["notes.txt"]})
    assert added.get("isError") is not True
    committed = await call_tool(
        proxy.session, "git_commit", {"repo_path": repo, "message": "e2e: second line"}
    )
    assert committed.get("isError") is not True
    assert _git(proxy.servers.repo, "log", "-1", "--format=%s").strip() == "e2e: second line"

    outside = await call_tool(proxy.session, "git_status", {"repo_path": "/"})
    assert outside.get("isError") is True  # the server's own confinement still applies


async def test_the_filesystem_server_reads_and_writes_through_cyclops(proxy: Proxy) -> None:
    files = proxy.servers.files
    read = await call_tool(proxy.session, "read_text_file", {"path": str(files / "hello.txt")})
    assert read.get("isError") is not True
    assert text_of(read) == "hello from the e2e workspace\n"

    written = await call_tool(
        proxy.session,
        "write_file",
        {"path": str(files / "written.txt"), "content": "written through cyclops"},
    )
    assert written.get("isError") is not True
    assert (files / "written.txt").read_text() == "written through cyclops"

    listing = await call_tool(proxy.session, "list_directory", {"path": str(files)})
    assert {"hello.txt", "written.txt"} <= set(text_of(listing).replace("[FILE] ", "").split())

    outside = await call_tool(proxy.session, "read_text_file", {"path": "/etc/hostname"})
    assert outside.get("isError") is True  # still confined to the directory it was given
