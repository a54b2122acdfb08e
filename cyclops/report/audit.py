"""``cyclops audit verify``: prove a decision log intact, or name its first broken line.

A line verifies when it is canonical JSON (an edit that keeps the JSON valid still changes the
bytes), its ``hash`` is the SHA-256 of its object without ``hash``, its ``seq`` is its line
number and its ``prev`` is the hash of the line before (``GENESIS`` for the first). An edit
breaks the edited line's hash (or, if the hash was recomputed, the next line's ``prev``); a
deleted, inserted or moved line breaks ``seq`` and ``prev``; bytes cut from the middle break the
JSON. Bytes after the last newline are a torn last line — a crash mid-write — and are reported
as such, apart from tampering. Lines cut from the *end* leave a shorter log that verifies: keep
the head hash somewhere else (a ticket, the SIEM) to catch that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from .decision_record import (
    FORMAT_VERSION,
    GENESIS,
    Entry,
    canonical_json,
    entry_from_json,
    line_hash,
)
from .flow_codec import RecordError

__all__ = [
    "AuditResult",
    "AuditStatus",
    "Break",
    "Verifier",
    "check_line",
    "read_entries",
    "verify",
    "verify_lines",
]

_HEX64 = re.compile(r"[0-9a-f]{64}")


class AuditStatus(StrEnum):
    INTACT = "intact"
    """Every line verifies."""
    BROKEN = "broken"
    """A line does not verify (see :class:`Break`): the log was changed after it was written."""
    TORN = "torn"
    """Every whole line verifies, and the file ends in a partial line: a crash mid-write. The
    next writer to open the log cuts it and records that it did."""


class Break(StrEnum):
    """Why a line does not verify."""

    NOT_JSON = "not_json"
    """Not an ASCII JSON object (bytes cut out, or written over)."""
    NOT_CANONICAL = "not_canonical"
    """Valid JSON, but not the bytes cyclops writes for it (spacing, key order, escapes)."""
    BAD_FIELDS = "bad_fields"
    """``v``, ``seq``, ``prev`` or ``hash`` missing, mistyped, or of an unknown format version."""
    BAD_HASH = "bad_hash"
    """The content does not hash to the line's ``hash``: the line was edited."""
    BAD_SEQ = "bad_seq"
    """The line number is not the line's ``seq``: a line was deleted, inserted or moved."""
    BAD_PREV = "bad_prev"
    """``prev`` is not the hash of the line before: the chain was cut or spliced here."""


@dataclass(frozen=True)
class AuditResult:
    status: AuditStatus
    lines: int
    """Whole lines that verified (before the first broken one)."""
    head: str
    """The hash of the last line that verified (``GENESIS`` for an empty log)."""
    broken_line: int | None = None
    """The first line that does not verify (from 1)."""
    problem: Break | None = None
    torn_bytes: int = 0
    """Bytes after the last newline (a torn last line)."""


def check_line(raw: bytes) -> dict[str, Any] | Break:
    """One line (without its newline) checked on its own: its object, or why it is broken."""
    try:
        text = raw.decode("ascii")
        record = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return Break.NOT_JSON
    if not isinstance(record, dict):
        return Break.NOT_JSON
    try:
        if canonical_json(record) != text:
            return Break.NOT_CANONICAL
    except (ValueError, TypeError):  # NaN or Infinity: never written by cyclops
        return Break.NOT_CANONICAL
    digest = record.get("hash")
    if not (
        record.get("v") == FORMAT_VERSION
        and type(record.get("seq")) is int
        and isinstance(record.get("prev"), str)
        and _HEX64.fullmatch(record["prev"])
        and isinstance(digest, str)
    ):
        return Break.BAD_FIELDS
    body = {key: value for key, value in record.items() if key != "hash"}
    if line_hash(body) != digest:
        return Break.BAD_HASH
    return record


class Verifier:
    """Verifies a log fed line by line (each with its newline; the last may lack it: torn)."""

    def __init__(self) -> None:
        self._head, self._seq = GENESIS, 0
        self._result: AuditResult | None = None

    def feed(self, chunk: bytes) -> bool:
        """Check the next line; False once the log is known broken or torn (stop feeding)."""
        if self._result is not None:
            return False
        if not chunk.endswith(b"\n"):
            self._result = AuditResult(
                AuditStatus.TORN, self._seq, self._head, torn_bytes=len(chunk)
            )
            return False
        checked = check_line(chunk[:-1])
        if isinstance(checked, Break):
            problem = checked
        elif checked["seq"] != self._seq + 1:
            problem = Break.BAD_SEQ
        elif checked["prev"] != self._head:
            problem = Break.BAD_PREV
        else:
            self._head, self._seq = checked["hash"], self._seq + 1
            return True
        self._result = AuditResult(
            AuditStatus.BROKEN, self._seq, self._head, self._seq + 1, problem
        )
        return False

    @property
    def result(self) -> AuditResult:
        if self._result is not None:
            return self._result
        return AuditResult(AuditStatus.INTACT, self._seq, self._head)


def verify_lines(chunks: Iterable[bytes]) -> AuditResult:
    """Verify a log given as its lines."""
    verifier = Verifier()
    for chunk in chunks:
        if not verifier.feed(chunk):
            break
    return verifier.result


def verify(path: Path) -> AuditResult:
    """Verify the log at ``path``, streaming (memory: one line)."""
    with path.open("rb") as handle:
        return verify_lines(handle)


def read_entries(path: Path) -> Iterator[Entry]:
    """The typed entries of a log, in order, without checking the chain (``verify`` does); a
    torn last line is skipped. Raises ``RecordError`` naming the line for one cyclops did not
    write."""
    with path.open("rb") as handle:
        for number, chunk in enumerate(handle, start=1):
            if not chunk.endswith(b"\n"):
                return
            yield entry_from_json(_loads(chunk, number), f"{path}:{number}")


def _loads(chunk: bytes, number: int) -> Any:
    try:
        return json.loads(chunk)
    except ValueError:
        raise RecordError(f"line {number}: not JSON") from None
