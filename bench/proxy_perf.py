"""Round-trip latency of one tool call: direct, through cyclops with detection off, and through
cyclops in prevent mode, over stdio and over Streamable HTTP, in one run.

    python bench/proxy_perf.py [--calls 1000] [--json FILE]

The tool (bench/perf_server.py) returns 2 KB of real text per call; it is served as the
``read_text_file`` tool of a server named ``filesystem``, so in prevent mode every result is
labelled sensitive and indexed: the realistic, expensive case. Each variant runs in its own
processes, all started first; the client is the SDK's ClientSession; after a warm-up, the variants
take turns, 50 calls each, until each has made ``--calls``; figures are per call. On Linux it
also gives the CPU time the process the client talks to (the server, or cyclops) spent per call,
read from ``/proc``: cyclops in front of a fast server is CPU-bound, and this says how much.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, str(HERE / "perf_server.py")]
TOKEN = "bench-token"
WARMUP = 50
ROUND = 50
"""Calls per variant in a row, before the next variant's turn."""


def _children() -> set[int]:
    """The pids of this process's children (Linux; empty elsewhere)."""
    me, found = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[1]) == me:
            found.add(int(stat.parent.name))
    return found


def _cpu_seconds(pid: int | None) -> float:
    """User and system CPU time of ``pid`` so far (0 if unknown)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _downstream(directory: Path) -> Path:
    path = directory / "downstream.toml"
    args = ", ".join(json.dumps(a) for a in SERVER[1:])
    path.write_text(
        f'[[server]]\nname = "filesystem"\ncommand = {json.dumps(SERVER[0])}\nargs = [{args}]\n'
    )
    return path


def _cyclops(directory: Path, mode: str, http_port: int | None) -> list[str]:
    command = [sys.executable, "-m", "cyclops", "--log-level", "error", "serve"]
    command += ["--downstream", str(_downstream(directory)), "--mode", mode]
    command += ["--verdicts", str(directory / "{session}.json")]
    # Pins of its own: the user's (a real "filesystem" server's) would quarantine the bench's tool.
    command += ["--pins-dir", str(directory / "pins")]
    if http_port is not None:
        command += ["--http", "--port", str(http_port)]
    return command


@asynccontextmanager
async def _stdio(command: list[str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=command[0], args=command[1:], env={"CYCLOPS_TOKEN": TOKEN}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def _http(command: list[str], port: int) -> AsyncIterator[ClientSession]:
    env = dict(os.environ, CYCLOPS_TOKEN=TOKEN)
    process = await anyio.open_process(command, env=env, stdout=None, stderr=None)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(30):
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                    await stream.aclose()
                    break
                except OSError:
                    await anyio.sleep(0.05)
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with (
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session
    finally:
        process.terminate()
        await process.wait()


async def _warm_up(session: ClientSession) -> None:
    for i in range(WARMUP):
        await session.call_tool("read_text_file", {"path": f"/warm/{i}.md"})


async def _measure(session: ClientSession, first: int, calls: int) -> list[float]:
    costs = []
    for i in range(first, first + calls):
        start = time.perf_counter()
        await session.call_tool("read_text_file", {"path": f"/home/u/notes/{i}.md"})
        costs.append(time.perf_counter() - start)
    return costs


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(calls: int) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        variants: list[tuple[str, Any]] = [
            ("stdio direct", _stdio(SERVER)),
            ("stdio cyclops off", _stdio(_cyclops(directory, "off", None))),
            ("stdio cyclops prevent", _stdio(_cyclops(directory, "prevent", None))),
        ]
        port = _free_port()
        variants.append(("http direct", _http([*SERVER, "--http", str(port)], port)))
        for mode in ("off", "prevent"):
            port = _free_port()
            variants.append((f"http cyclops {mode}", _http(_cyclops(directory, mode, port), port)))
        async with AsyncExitStack() as stack:
            sessions, pids = {}, {}
            for name, connection in variants:
                before = _children()
                sessions[name] = await stack.enter_async_context(connection)
                pids[name] = min(_children() - before, default=None)  # what the client talks to
                await _warm_up(sessions[name])
            costs: dict[str, list[float]] = {name: [] for name in sessions}
            cpu = dict.fromkeys(sessions, 0.0)
            # Interleaved in rounds, so that a drift of the machine's speed (other load, CPU
            # frequency) during the run weighs on every variant alike.
            for first in range(0, calls, ROUND):
                for name, session in sessions.items():
                    start = _cpu_seconds(pids[name])
                    costs[name] += await _measure(session, first, min(ROUND, calls - first))
                    cpu[name] += _cpu_seconds(pids[name]) - start
        for name, measured in costs.items():
            rows[name] = {
                "median_ms": statistics.median(measured) * 1e3,
                "p99_ms": _p(measured, 0.99) * 1e3,
                "cpu_ms_per_call": cpu[name] / len(measured) * 1e3,
            }
            row = rows[name]
            print(
                f"{name:<24} median {row['median_ms']:6.2f} ms   p99 {row['p99_ms']:6.2f} ms   "
                f"server or cyclops CPU {row['cpu_ms_per_call']:5.2f} ms per call"
            )
    for front in ("stdio", "http"):
        off = rows[f"{front} cyclops off"]["median_ms"]
        on = rows[f"{front} cyclops prevent"]["median_ms"]
        hop = off - rows[f"{front} direct"]["median_ms"]
        share = 100 * (on - off) / off
        print(
            f"{front}: proxy hop {hop:.2f} ms; detection adds {on - off:.2f} ms = {share:.0f}% "
            "over the detection-off proxy"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    version = platform.python_version()
    print(f"cyclops proxy benchmark — Python {version}, {args.calls} calls per variant")
    rows = anyio.run(run, args.calls)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
