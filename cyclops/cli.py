"""The ``cyclops`` command line."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from . import __version__, audit_cli
from .config import DEFAULT_ASK_TIMEOUT, DEFAULT_FILESYSTEM_SERVER, load_patterns, read_text
from .core.tomlreader import ConfigError
from .core.types import Mode
from .core.verdict import Verdict
from .proxy.pinning import PinError, PinStore, default_pins_dir
from .replay import replay, verdict_path
from .scan import command as scan_cli
from .trace import TraceError, parse_trace

# The proxy, its HTTP front and the demo import the MCP SDK (most of a second); they are imported
# by the commands that need them, so that `cyclops scan`, `replay` and `audit` start fast.

__all__ = ["main"]

EXIT_OK = 0
EXIT_USAGE = 2
TOKEN_VARIABLE = "CYCLOPS_TOKEN"
DEFAULT_VERDICTS = os.path.join(
    os.environ.get("XDG_STATE_HOME") or "~/.local/state",
    "cyclops",
    "sessions",
    "{session}.session.json",
)
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
    audit_cli.add_decision_log_option(rep)

    srv = commands.add_parser(
        "serve",
        help="run the proxy in front of the servers of a downstream.toml",
        description="Run cyclops as an MCP server (stdio by default, or Streamable HTTP at /mcp) "
        "in front of the MCP servers listed in a downstream.toml.",
    )
    srv.add_argument("--downstream", type=Path, required=True, help="downstream.toml")
    srv.add_argument("--patterns", type=Path, help="patterns.toml (default: the bundled one)")
    srv.add_argument(
        "--mode",
        choices=[*Mode, "off"],
        default=Mode.DETECT.value,
        help="detect: flag and forward; prevent: deny toxic calls; off: no detection, a plain "
        "proxy (default: detect)",
    )
    srv.add_argument(
        "--verdicts",
        default=DEFAULT_VERDICTS,
        help="session.json path; {session} becomes the session id (default: %(default)s)",
    )
    srv.add_argument("--record", type=Path, help="also write every call and result to this trace")
    audit_cli.add_decision_log_option(srv)
    audit_cli.add_export_option(srv)
    srv.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    srv.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: %(default)s)")
    srv.add_argument("--port", type=int, default=8787, help="HTTP port (default: %(default)s)")
    srv.add_argument(
        "--token-file",
        type=Path,
        help=f"file holding the HTTP bearer token (or set {TOKEN_VARIABLE})",
    )
    srv.add_argument(
        "--allow-host", action="append", default=[], help="another Host header to accept"
    )
    srv.add_argument(
        "--allow-origin", action="append", default=[], help="a browser Origin to accept"
    )
    _add_pins_dir(srv)
    srv.add_argument(
        "--no-pins", action="store_true", help="do not pin tools (no quarantine of changed tools)"
    )
    srv.add_argument(
        "--ask-timeout",
        type=float,
        default=DEFAULT_ASK_TIMEOUT,
        help="seconds an 'ask' waits for the user's answer before denying (default: %(default)s)",
    )

    pins = commands.add_parser(
        "pins",
        help="review and approve tool pins",
        description="Tools are pinned on first sight; a tool that changes is quarantined until "
        "approved here.",
    )
    pin_commands = pins.add_subparsers(dest="pins_command", required=True, metavar="ACTION")
    _add_pins_dir(pin_commands.add_parser("list", help="every pinned server, and pending changes"))
    approve = pin_commands.add_parser("approve", help="accept the changed definition of tools")
    approve.add_argument("server", help="the downstream server's name")
    approve.add_argument("tools", nargs="*", help="tools to approve (default: every pending one)")
    _add_pins_dir(approve)

    audit_cli.add_commands(commands)
    scan_cli.add_commands(commands)

    demo = commands.add_parser(
        "demo",
        help="watch cyclops stop a prompt-injected agent, in front of real MCP servers",
        description="Start cyclops in front of npm's server-filesystem (over a workspace with a "
        "fake SSH key) and two example servers, and let a scripted agent follow a hidden "
        "instruction: fetch a page, read the key, post it base64-encoded.",
    )
    demo.add_argument(
        "--mode",
        type=Mode,
        choices=list(Mode),
        default=Mode.PREVENT,
        help="prevent: deny the exfiltration; detect: flag it and let it run (default: prevent)",
    )
    demo.add_argument(
        "--filesystem-server",
        default=DEFAULT_FILESYSTEM_SERVER,
        help="command that starts the filesystem server (default: %(default)s)",
    )
    demo.add_argument("--workdir", type=Path, help="where to put the workspace and verdicts")
    return parser


def _add_pins_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pins-dir",
        type=Path,
        default=default_pins_dir(),
        help="where tool pins are kept, one JSON file per server (default: %(default)s)",
    )


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
    # The demo tells its own story on stdout; its log shows only errors unless asked for more.
    level = "error" if args.command == "demo" and args.log_level == "warning" else args.log_level
    logging.basicConfig(
        stream=sys.stderr, level=level.upper(), format="cyclops %(levelname)s %(message)s"
    )
    try:
        if args.command == "replay":
            return _replay(args)
        if args.command == "serve":
            return _serve(args)
        if args.command == "demo":
            from .demo import run_demo  # noqa: PLC0415 (lazy)

            run_demo(args.mode, args.filesystem_server, args.workdir)
            return EXIT_OK
        if args.command == "pins":
            return _pins(args)
        if args.command in audit_cli.COMMANDS:
            return audit_cli.run(args)
        if args.command in scan_cli.COMMANDS:
            return scan_cli.run(args)
    except (ConfigError, PinError, *audit_cli.ERRORS) as exc:
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
    with audit_cli.replay_log(args.decision_log, patterns.sha256) as decision_log:
        verdicts = replay(
            records, patterns, args.mode, _print_line, args.out, decision_log=decision_log
        )
    for verdict in verdicts.values():
        _summarise(verdict, verdict_path(args.out, verdict.session) if args.out else None)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    import anyio  # noqa: PLC0415 (lazy)

    from .proxy.config import load_downstream  # noqa: PLC0415 (lazy)
    from .proxy.http import HttpOptions, is_loopback, new_token  # noqa: PLC0415 (lazy)
    from .proxy.run import ServeOptions, serve  # noqa: PLC0415 (lazy)

    patterns = load_patterns(args.patterns)
    downstream = load_downstream(args.downstream, os.environ, patterns)
    http = None
    if args.http:
        token = _token(args)
        if not token and not is_loopback(args.host):
            print(
                f"cyclops: binding {args.host} needs a bearer token "
                f"(--token-file or {TOKEN_VARIABLE})",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if not token:
            token = new_token()
            log.warning("no token given; this run's bearer token is %s", token)
        http = HttpOptions(
            host=args.host,
            port=args.port,
            token=token,
            allowed_hosts=tuple(args.allow_host),
            allowed_origins=tuple(args.allow_origin),
            log_level=args.log_level,
        )
    detection = args.mode != "off"
    options = ServeOptions(
        downstream=downstream,
        patterns=patterns,
        mode=Mode(args.mode) if detection else Mode.DETECT,
        detection=detection,
        verdicts=args.verdicts,
        record=args.record,
        http=http,
        pins_dir=None if args.no_pins else args.pins_dir,
        ask_timeout=args.ask_timeout,
        decision_log=args.decision_log,
        exports=audit_cli.exports(args),
    )
    # What is loaded by now (the SDK's models, the compiled patterns) lives as long as the
    # process: frozen, the collector stops walking it at every full collection while sessions
    # run (the proxy's CPU per call about a tenth lower, see docs/benchmarks.md).
    gc.collect()
    gc.freeze()
    anyio.run(serve, options)
    return EXIT_OK


def _pins(args: argparse.Namespace) -> int:
    store = PinStore(args.pins_dir)
    if args.pins_command == "approve":
        approved = store.approve(args.server, args.tools)
        print(f"approved {args.server}: {', '.join(approved) or 'nothing pending'}")
        return EXIT_OK
    for pins in store.servers():
        pending = f", {len(pins.pending)} changed and quarantined" if pins.pending else ""
        print(f"{pins.server}: {len(pins.pins)} tools pinned{pending}  ({store.path(pins.server)})")
        for name in sorted(pins.pending):
            print(f"  changed: {name}  (cyclops pins approve {pins.server} {name})")
    return EXIT_OK


def _token(args: argparse.Namespace) -> str:
    if args.token_file is not None:
        return read_text(args.token_file).strip()
    return os.environ.get(TOKEN_VARIABLE, "").strip()


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
            f"  memory cap reached: {verdict.evicted.calls} calls, "
            f"{verdict.evicted.segments} indexed results and {verdict.evicted.files} written "
            "files evicted"
        )
    if path is not None:
        lines.append(f"  verdict: {path}")
    print("\n".join(lines), file=sys.stderr)
