"""A real client: the MCP Inspector's CLI (npm @modelcontextprotocol/inspector) lists and calls
tools through cyclops, over stdio (the inspector starts cyclops) and over HTTP.

The inspector's npm postinstall script (not run here) only installs per-client dependencies in a
source checkout; under node_modules it exits at once, so the published CLI works without it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_support import (
    PYTHON,
    HttpCyclops,
    http_cyclops,
    node_bin,
    python_server_entry,
    serve_args,
    write_downstream,
)

pytestmark = pytest.mark.anyio

PAGE_URL = "https://blog.example.org/inspected"


@dataclass
class Setup:
    work: Path
    home: Path
    downstream: Path
    verdicts: Path


@dataclass
class Answer:
    code: int
    stdout: str
    stderr: str

    def result(self) -> dict[str, Any]:
        assert self.code == 0, f"inspector exited with {self.code}:\n{self.stderr}\n{self.stdout}"
        envelope: dict[str, Any] = json.loads(self.stdout)
        result: dict[str, Any] = envelope["result"]
        return result


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    work = tmp_path_factory.mktemp("inspector")
    home = work / "home"
    home.mkdir()
    downstream = write_downstream(
        work / "downstream.toml",
        [
            python_server_entry("web", "cyclops.examples.servers.web"),
            python_server_entry("notify", "cyclops.examples.servers.notify"),
        ],
    )
    verdicts = work / "verdicts"
    verdicts.mkdir()
    return Setup(work, home, downstream, verdicts)


@pytest.fixture(scope="module")
async def http_front(setup: Setup) -> AsyncIterator[HttpCyclops]:
    async with http_cyclops(serve_args(setup.downstream, setup.verdicts), setup.work) as cyclops:
        yield cyclops


async def inspector(setup: Setup, options: Sequence[str], target: Sequence[str]) -> Answer:
    """``mcp-inspector --cli --format json -q OPTIONS -- TARGET`` with HOME in a temp dir."""
    cli = [node_bin("mcp-inspector"), "--cli", "--format", "json", "-q"]
    command = [*cli, *options, "--", *target]
    environment = {**os.environ, "HOME": str(setup.home)}
    environment.pop("CYCLOPS_TOKEN", None)
    with anyio.fail_after(60):
        done = await anyio.run_process(
            command, stdin=subprocess.DEVNULL, env=environment, check=False, cwd=setup.work
        )
    return Answer(done.returncode, done.stdout.decode(), done.stderr.decode())


def stdio_target(setup: Setup) -> list[str]:
    return [PYTHON, *serve_args(setup.downstream, setup.verdicts)]


def call_options(tool: str, **arguments: str) -> list[str]:
    pairs = [f"{key}={value}" for key, value in arguments.items()]
    return ["--method", "tools/call", "--tool-name", tool, "--tool-arg", *pairs]


def bearer(cyclops: HttpCyclops) -> list[str]:
    return ["--header", f"Authorization: Bearer {cyclops.token}"]


# -- stdio -----------------------------------------------------------------------------------


async def test_the_inspector_lists_the_tools_of_every_server_through_cyclops_over_stdio(
    setup: Setup,
) -> None:
    result = (await inspector(setup, ["--method", "tools/list"], stdio_target(setup))).result()
    tools = {tool["name"]: tool for tool in result["tools"]}
    assert set(tools) == {"fetch_page", "send_message"}
    assert tools["send_message"]["inputSchema"]["required"] == ["url", "text"]


async def test_the_inspector_calls_a_tool_through_cyclops_over_stdio(setup: Setup) -> None:
    answer = await inspector(setup, call_options("fetch_page", url=PAGE_URL), stdio_target(setup))
    result = answer.result()
    assert result.get("isError") is not True
    [block] = result["content"]
    assert block["type"] == "text"
    assert block["text"].startswith("<html>")


# -- HTTP ------------------------------------------------------------------------------------


async def test_the_inspector_lists_the_tools_through_cyclops_over_http(
    setup: Setup, http_front: HttpCyclops
) -> None:
    options = ["--method", "tools/list", *bearer(http_front)]
    result = (await inspector(setup, options, [http_front.url])).result()
    assert {tool["name"] for tool in result["tools"]} == {"fetch_page", "send_message"}


async def test_the_inspector_calls_a_tool_through_cyclops_over_http(
    setup: Setup, http_front: HttpCyclops
) -> None:
    options = [*bearer(http_front), *call_options("fetch_page", url=PAGE_URL)]
    result = (await inspector(setup, options, [http_front.url])).result()
    assert result.get("isError") is not True
    assert result["content"][0]["text"].startswith("<html>")


async def test_the_inspector_without_the_token_is_refused_over_http(
    setup: Setup, http_front: HttpCyclops
) -> None:
    options = ["--method", "tools/list", "--header", "Authorization: Bearer not-the-token"]
    answer = await inspector(setup, options, [http_front.url])
    assert answer.code != 0
    assert '"tools"' not in answer.stdout
