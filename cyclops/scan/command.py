"""The ``cyclops scan`` and ``cyclops wrap`` subcommands: arguments, files, exit codes.

This is the I/O shell around the pure scan: it reads the config, starts the servers (or reads a
snapshot), writes what was asked for, and prints the report on stdout. Logs go to stderr.

Exit codes of ``scan``: 0 clean, 1 leak routes (or a tool that is a route by itself), 2 an input
error or a server that could not be listed.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from ..config import load_patterns, read_text
from ..core.patterns import Patterns
from ..core.tomlreader import ConfigError
from ..core.types import Capability
from ..proxy.config import ServerConfig, load_downstream, parse_downstream
from .analysis import DEFAULT_ROUTE_LIMIT, ScanResult, scan
from .cut import Task
from .hostconfig import (
    HostFormat,
    cyclops_entry_downstream,
    detect_format,
    entries,
    parse_host_config,
    resolve_for_start,
)
from .picture import dot, mermaid
from .policy import policy_fragment
from .render import dumps, text_report
from .snapshot import (
    DEFAULT_START_TIMEOUT,
    ServerTools,
    Snapshot,
    dump_snapshot,
    parse_snapshot,
    servers_in,
)
from .tasks import parse_tasks
from .wrap import Unexpanded, undo, wrap

__all__ = ["COMMANDS", "EXIT_CLEAN", "EXIT_ERROR", "EXIT_ROUTES", "add_commands", "run"]

COMMANDS = ("scan", "wrap")
EXIT_CLEAN = 0
EXIT_ROUTES = 1
EXIT_ERROR = 2
SVG_TIMEOUT = 120.0

log = logging.getLogger("cyclops.scan")


def add_commands(commands: Any) -> None:
    """Add ``scan`` and ``wrap`` to the ``cyclops`` subcommands (an argparse subparsers object)."""
    sc = commands.add_parser(
        "scan",
        help="find leak routes in a host's MCP servers before anything runs, and the minimum cut",
        description="Label every tool of a downstream.toml's or a host config's servers, find "
        "every route from private data to a public sink through the agent's context, and the "
        "fewest grants to revoke so that none remains. Exit status: 0 clean, 1 leak routes, "
        "2 an error.",
    )
    sc.add_argument("config", nargs="?", type=Path, help="downstream.toml, or a host's JSON config")
    _add_format(sc)
    sc.add_argument(
        "--tools",
        type=Path,
        metavar="FILE",
        help="read a tools snapshot instead of starting servers",
    )
    sc.add_argument("--save-tools", type=Path, metavar="FILE", help="write the tools snapshot here")
    sc.add_argument(
        "--tasks", type=Path, metavar="FILE", help="declared tasks (TOML [[task]] tables)"
    )
    sc.add_argument(
        "--patterns", type=Path, metavar="FILE", help="patterns.toml (default: the bundled one)"
    )
    sc.add_argument("--json", action="store_true", help="print JSON instead of the text report")
    sc.add_argument(
        "--emit-policy", type=Path, metavar="FILE", help="write a patterns.toml fragment here"
    )
    sc.add_argument(
        "--graph",
        type=Path,
        metavar="PREFIX",
        help="write PREFIX.mmd (Mermaid) and, when Graphviz `dot` is installed, PREFIX.svg",
    )
    sc.add_argument(
        "--max-routes",
        type=int,
        metavar="N",
        default=DEFAULT_ROUTE_LIMIT,
        help="routes listed at most; all are counted (default: %(default)s)",
    )
    sc.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        default=DEFAULT_START_TIMEOUT,
        help="seconds each server may take to start (default: %(default)s)",
    )

    wr = commands.add_parser(
        "wrap",
        help="put a host config's MCP servers behind cyclops (or --undo it)",
        description="Move the servers of a Claude Desktop, Cursor or VS Code config into a "
        "generated downstream.toml and make `cyclops serve` the host's only server. The original "
        "is kept as CONFIG.cyclops-backup; --undo restores it byte for byte.",
    )
    wr.add_argument("config", type=Path, help="the host's JSON config")
    _add_format(wr)
    wr.add_argument("--undo", action="store_true", help="restore the original config")
    wr.add_argument("--force", action="store_true", help="undo even if the config changed since")
    wr.add_argument(
        "--downstream",
        type=Path,
        metavar="PATH",
        help="where downstream.toml goes (default: next to CONFIG)",
    )
    wr.add_argument(
        "--command",
        dest="cyclops_command",
        metavar="PROGRAM",
        default="cyclops",
        help="how the host starts cyclops (default: %(default)s)",
    )
    wr.add_argument(
        "--mode", choices=["detect", "prevent", "off"], help="passed on to cyclops serve"
    )


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=[f.value for f in HostFormat],
        help="the host config's format (default: from its file name and keys)",
    )


def run(args: argparse.Namespace) -> int:
    if args.command == "scan":
        return _scan(args)
    return _wrap(args)


# -- scan ------------------------------------------------------------------------------------------


def _scan(args: argparse.Namespace) -> int:
    if args.config is None and args.tools is None:
        print("cyclops: scan needs a CONFIG, or a tools snapshot (--tools)", file=sys.stderr)
        return EXIT_ERROR
    patterns = load_patterns(args.patterns)
    snapshot = _snapshot(args, patterns)
    if snapshot is None:
        return EXIT_ERROR
    if args.save_tools is not None:
        _write(args.save_tools, dump_snapshot(snapshot))
    tasks: tuple[Task, ...] = ()
    if args.tasks is not None:
        capabilities = [Capability(s.name, t.name) for s in snapshot.servers for t in s.tools]
        tasks = parse_tasks(read_text(args.tasks), str(args.tasks), capabilities)
    source = str(args.config) if args.config is not None else str(args.tools)
    result = scan(snapshot, patterns, tasks, source=source, limit=max(args.max_routes, 0))
    print(dumps(result) if args.json else text_report(result), end="")
    if args.emit_policy is not None:
        _write(args.emit_policy, policy_fragment(result))
    if args.graph is not None:
        _pictures(result, args.graph)
    return EXIT_CLEAN if result.clean else EXIT_ROUTES


def _snapshot(args: argparse.Namespace, patterns: Patterns) -> Snapshot | None:
    live = args.tools is None
    servers = _servers(args.config, args.format, live, patterns) if args.config else None
    if not live:
        snapshot = parse_snapshot(read_text(args.tools), str(args.tools))
        if servers is None:
            return snapshot
        picked = servers_in(snapshot, [s.name for s in servers], str(args.config))
        roles = {s.name: s.roles for s in servers}
        return Snapshot(
            tuple(ServerTools(s.name, s.tools, roles[s.name] or s.roles) for s in picked.servers)
        )
    assert servers is not None
    # The MCP client (half a second of imports) only for a live scan.
    from .live import ListingError, list_live  # noqa: PLC0415

    try:
        return anyio.run(list_live, servers, args.timeout)
    except ListingError as exc:
        for name, why in exc.failures.items():
            print(f"cyclops: {args.config}: server {name!r}: {why}", file=sys.stderr)
        return None


def _servers(
    path: Path, host: str | None, live: bool, patterns: Patterns
) -> tuple[ServerConfig, ...]:
    """The servers of a downstream.toml or a host config (one behind cyclops: its downstream).
    Without ``live`` nothing is expanded: only names and roles are needed."""
    if path.suffix.lower() == ".toml":
        if live:
            return load_downstream(path, os.environ, patterns).servers
        return parse_downstream(read_text(path), str(path), Unexpanded(), patterns).servers
    text = read_text(path)
    config = parse_host_config(
        text, str(path), HostFormat(host) if host else detect_format(path.name, text)
    )
    wrapped = [c for e in entries(config).values() if (c := cyclops_entry_downstream(e))]
    if wrapped:
        downstream = Path(wrapped[0][1])
        log.info("%s runs its servers behind cyclops: scanning %s", path, downstream)
        return _servers(path.parent / downstream, None, live, patterns)
    if live:
        return resolve_for_start(config, os.environ, str(Path.home()))
    return tuple(ServerConfig(name=s.name, transport=s.transport) for s in config.servers)


def _pictures(result: ScanResult, prefix: Path) -> None:
    _write(prefix.with_name(prefix.name + ".mmd"), mermaid(result))
    dot_program = shutil.which("dot")
    if dot_program is None:
        log.warning(
            "Graphviz `dot` is not installed: no SVG (the Mermaid text is in %s.mmd)", prefix
        )
        return
    svg = prefix.with_name(prefix.name + ".svg")
    try:
        subprocess.run(
            [dot_program, "-Tsvg", "-o", str(svg)],
            input=dot(result).encode(),
            capture_output=True,
            check=True,
            timeout=SVG_TIMEOUT,
        )
    except subprocess.CalledProcessError as exc:
        log.warning("Graphviz `dot` failed (exit %d): no SVG", exc.returncode)
    except subprocess.TimeoutExpired:
        log.warning("Graphviz `dot` took over %g s: no SVG", SVG_TIMEOUT)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            str(path), "", None, f"cannot be written ({exc.strerror})", "check the path"
        ) from None


# -- wrap ------------------------------------------------------------------------------------------


def _wrap(args: argparse.Namespace) -> int:
    host = HostFormat(args.format) if args.format else None
    if args.undo:
        outcome = undo(args.config, host=host, force=args.force)
        kept = "" if outcome.downstream_removed else f" ({outcome.downstream} kept: it was edited)"
        print(f"restored {outcome.restored}{kept}")
        return EXIT_CLEAN
    serve_args = ("--mode", args.mode) if args.mode else ()
    plan, downstream = wrap(
        args.config, args.downstream, host=host, command=args.cyclops_command, serve_args=serve_args
    )
    names = ", ".join(s.key for s in plan.servers)
    print(f"wrapped {len(plan.servers)} servers ({names}) of {args.config} into {downstream}")
    if plan.handed_over:
        print("host variables handed to cyclops: " + ", ".join(plan.handed_over.values()))
    if shutil.which(args.cyclops_command) is None:
        log.warning(
            "%r is not on this PATH: the host may not find it (see --command)", args.cyclops_command
        )
    return EXIT_CLEAN
