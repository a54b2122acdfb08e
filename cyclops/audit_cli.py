"""The evidence commands of the ``cyclops`` command line: ``audit verify`` and ``export``, and the
``--decision-log`` / ``--export`` options of ``serve`` and ``replay``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .report.audit import AuditResult, AuditStatus, verify
from .report.decision_log import DecisionLog, DecisionLogError
from .report.export_files import SourceReport, export_source, file_time_ms
from .report.export_sinks import ExportSpecError, ExportTarget, parse_export
from .report.flow_codec import RecordError

__all__ = [
    "COMMANDS",
    "ERRORS",
    "EXIT_BROKEN",
    "EXIT_TORN",
    "add_commands",
    "add_decision_log_option",
    "add_export_option",
    "exports",
    "replay_log",
    "run",
]

EXIT_OK = 0
EXIT_BROKEN = 1
"""``audit verify``: a line does not verify; ``export``: a decision log read did not verify."""
EXIT_TORN = 3
"""``audit verify``: every whole line verifies, but the log ends in a torn line (a crash)."""
COMMANDS = ("audit", "export")
ERRORS = (DecisionLogError, ExportSpecError, RecordError, OSError)
"""Errors the command line reports as a usage error (exit 2), in its one outermost place."""

_EXIT = {AuditStatus.INTACT: EXIT_OK, AuditStatus.BROKEN: EXIT_BROKEN, AuditStatus.TORN: EXIT_TORN}


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    audit = commands.add_parser(
        "audit",
        help="check the evidence cyclops wrote",
        description="Verify a decision log's hash chain: exit 0 if every line verifies, 1 at "
        "the first line that does not (named), 3 if it only ends in a torn line (a crash).",
    )
    audit_commands = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    check = audit_commands.add_parser("verify", help="prove a decision log intact")
    check.add_argument("file", type=Path, help="the decision log (JSON lines)")

    export = commands.add_parser(
        "export",
        help="findings of verdicts and decision logs as OCSF Detection Findings",
        description="Read session.json verdicts and decision logs (standard input if no file) "
        "and write each finding as an OCSF 1.3.0 Detection Finding (class 2004), one JSON "
        "object per line.",
    )
    export.add_argument("--ocsf", action="store_true", required=True, help="the OCSF format")
    export.add_argument("files", nargs="*", type=Path, help="session.json files, decision logs")
    export.add_argument("-o", "--output", type=Path, help="write here instead of stdout")


def add_decision_log_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--decision-log",
        type=Path,
        help="append every decision to this hash-chained log (verify: cyclops audit verify)",
    )


def add_export_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--export",
        action="append",
        default=[],
        metavar="ocsf:DESTINATION",
        help="stream findings as OCSF: ocsf:file:PATH, ocsf:syslog+udp://HOST:PORT, "
        "ocsf:syslog+tcp://HOST:PORT or ocsf:https://URL (repeatable)",
    )


def exports(args: argparse.Namespace) -> tuple[ExportTarget, ...]:
    return tuple(parse_export(spec) for spec in args.export)


@contextmanager
def replay_log(path: Path | None, patterns_sha256: str) -> Iterator[DecisionLog | None]:
    log = DecisionLog(path, patterns_sha256=patterns_sha256) if path is not None else None
    try:
        yield log
    finally:
        if log is not None:
            log.close()


def run(args: argparse.Namespace) -> int:
    if args.command == "audit":
        return _verify(args.file)
    return _export(args.files, args.output)


def _verify(path: Path) -> int:
    result = verify(path)
    print(f"{path}: {describe(result)}")
    return _EXIT[result.status]


def describe(result: AuditResult) -> str:
    if result.status is AuditStatus.INTACT:
        return f"intact: {result.lines} lines, head {result.head}"
    if result.status is AuditStatus.TORN:
        return (
            f"torn last line ({result.torn_bytes} bytes after the last newline: a crash "
            f"mid-write); the {result.lines} lines before it are intact, head {result.head}"
        )
    problem = result.problem.value if result.problem is not None else "?"
    return (
        f"broken at line {result.broken_line} ({problem}); the {result.lines} lines before "
        f"it are intact, head {result.head}"
    )


def _export(files: list[Path], output: Path | None) -> int:
    out: TextIO = output.open("w", encoding="ascii") if output else sys.stdout
    reports: list[SourceReport] = []
    try:

        def emit(line: str) -> None:
            out.write(line + "\n")

        if not files:
            reports.append(export_source("<stdin>", sys.stdin.buffer, None, emit))
        for path in files:
            with path.open("rb") as handle:
                reports.append(export_source(str(path), handle, file_time_ms(path), emit))
    finally:
        if output:
            out.close()
    broken = False
    for report in reports:
        audit = report.audit
        note = f"; decision log {describe(audit)}" if audit is not None else ""
        print(f"{report.name}: {report.findings} findings{note}", file=sys.stderr)
        broken = broken or (audit is not None and audit.status is AuditStatus.BROKEN)
    return EXIT_BROKEN if broken else EXIT_OK
