"""``cyclops export --ocsf``: the findings of session.json verdicts and decision logs, as OCSF.

A file is a decision log when its first line is a chained record (``seq`` and ``kind``), else a
session.json. A decision log is verified while it is read (one pass, so standard input works
too); one that does not verify is still exported, and the result says so. A session.json holds
no clock: its findings are stamped with the file's modification time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .audit import AuditResult, Verifier
from .decision_record import DecisionEntry, entry_from_json
from .export_sinks import export_item
from .flow_codec import RecordError
from .ocsf import entry_findings, verdict_findings
from .ocsf_controls import (
    Finding,
    entry_control_reports,
    verdict_control_reports,
)

__all__ = ["SourceReport", "export_source", "file_time_ms"]


@dataclass(frozen=True)
class SourceReport:
    name: str
    findings: int
    audit: AuditResult | None = None
    """For a decision log: what verifying it found (None for a session.json)."""


def export_source(
    name: str, handle: BinaryIO, time_ms: int | None, emit: Callable[[str], None]
) -> SourceReport:
    """Emit one OCSF line per finding of the log or verdict read from ``handle``; ``time_ms``
    stamps a verdict's findings (None: now). Raises ``RecordError`` for what cyclops did not
    write."""
    lines = iter(handle)
    first = next(lines, b"")
    if _is_log_line(first):
        verifier = Verifier()
        found = _emit(_log_findings(name, _chain(first, lines), verifier), emit)
        return SourceReport(name, found, verifier.result)
    try:
        verdict = json.loads(first + b"".join(lines))
    except ValueError:
        raise RecordError(f"{name}: neither a decision log nor a session.json") from None
    stamp = time_ms if time_ms is not None else round(time.time() * 1000)
    findings: list[Finding] = [
        *verdict_findings(verdict, stamp, name),
        *verdict_control_reports(verdict, stamp, name),
    ]
    return SourceReport(name, _emit(findings, emit))


def _is_log_line(line: bytes) -> bool:
    try:
        head = json.loads(line)
    except ValueError:
        return False
    return isinstance(head, dict) and "seq" in head and "kind" in head


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest


def _log_findings(name: str, lines: Iterable[bytes], verifier: Verifier) -> Iterator[Finding]:
    for number, chunk in enumerate(lines, start=1):
        verifier.feed(chunk)
        if not chunk.endswith(b"\n"):
            return  # a torn last line: nothing to export
        try:
            data = json.loads(chunk)
        except ValueError:
            raise RecordError(f"{name}:{number}: not JSON") from None
        entry = entry_from_json(data, f"{name}:{number}")
        if isinstance(entry, DecisionEntry):
            yield from entry_findings(entry)
            yield from entry_control_reports(entry)


def _emit(findings: Iterable[Finding], emit: Callable[[str], None]) -> int:
    count = 0
    for finding in findings:
        emit(export_item(finding).body)
        count += 1
    return count


def file_time_ms(path: Path) -> int:
    return round(path.stat().st_mtime * 1000)
