"""The ``cyclops`` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from . import __version__
from .config import load_patterns, read_text
from .core.tomlreader import ConfigError
from .core.types import Mode
from .core.verdict import Verdict
from .replay import replay, verdict_path
from .trace import TraceError, parse_trace

__all__ = ["main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXAMPLES = ("attack", "benign")

log = logging.getLogger("cyclops")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cyclops",
        description="An MCP security proxy that finds and blocks toxic flows between tool calls.",
    )
    parser.add_argument("--version", action="version", version=f"cyclops {__version__}")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="log verbosity; logs always go to stderr (default: warning)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rep = commands.add_parser(
        "replay",
        help="replay a recorded trace through the detection core",
        description="Replay recorded calls (JSON lines) through the same core the proxy uses. "
        "Prints one JSON line per call and writes each session's verdict.",
    )
    source = rep.add_mutually_exclusive_group(required=True)
    source.add_argument("trace", nargs="?", type=Path, help="trace file (JSON lines)")
    source.add_argument("--example", choices=EXAMPLES, help="replay a trace bundled with cyclops")
    _add_detection_options(rep)
    rep.add_argument("--out", type=Path, help="directory for <session>.session.json verdicts")
    return parser


def _add_detection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--patterns", type=Path, help="patterns.toml (default: the bundled one)")
    parser.add_argument(
        "--mode",
        type=Mode,
        choices=list(Mode),
        default=Mode.DETECT,
        help="detect: flag and forward; prevent: deny toxic calls (default: detect)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level.upper(), format="cyclops %(levelname)s %(message)s"
    )
    try:
        if args.command == "replay":
            return _replay(args)
    except ConfigError as exc:
        print(f"cyclops: {exc}", file=sys.stderr)
        return EXIT_USAGE
    raise AssertionError(f"unhandled command {args.command}")  # argparse guarantees a command


def _replay(args: argparse.Namespace) -> int:
    patterns = load_patterns(args.patterns)
    if args.example:
        name = f"{args.example}.jsonl"
        text = resources.files("cyclops").joinpath("examples", name).read_text(encoding="utf-8")
        source = f"<bundled example {name}>"
    else:
        text, source = read_text(args.trace), str(args.trace)
    try:
        records = parse_trace(text.splitlines())
    except TraceError as exc:
        print(f"cyclops: {source}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    verdicts = replay(records, patterns, args.mode, _print_line, args.out)
    for verdict in verdicts.values():
        _summarise(verdict, verdict_path(args.out, verdict.session) if args.out else None)
    return EXIT_OK


def _print_line(line: str) -> None:
    print(line, flush=True)


def _summarise(verdict: Verdict, path: Path | None) -> None:
    """A human summary per session, on stderr (stdout carries the machine-readable lines)."""
    m = verdict.metrics
    state = "TOXIC" if verdict.toxic else "clean"
    lines = [
        f"session {verdict.session}: {state} — {m.calls} calls, {m.flagged} flagged, "
        f"{m.denied} denied; leaked {verdict.leaked_bytes} B, blocked {verdict.blocked_bytes} B"
    ]
    for flow in verdict.flows:
        chain = " → ".join(str(link.capability) for link in flow.chain)
        lines.append(
            f"  {flow.action.value.upper()} {flow.flow_class.value} ({flow.owasp.code}, "
            f"{flow.severity.value}) at call {flow.call_index}: {chain}; "
            f"{flow.leaked_bytes} B to {flow.destination}"
        )
    if verdict.choke_point:
        lines.append("  choke point: remove " + ", ".join(map(str, verdict.choke_point)))
    if verdict.evicted.any:
        lines.append(
            f"  memory cap reached: {verdict.evicted.calls} calls and "
            f"{verdict.evicted.segments} indexed results evicted"
        )
    if path is not None:
        lines.append(f"  verdict: {path}")
    print("\n".join(lines), file=sys.stderr)
