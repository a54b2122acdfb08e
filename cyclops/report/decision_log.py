"""The decision log on disk: append-only, hash-chained, fsync'd, one writer at a time.

Rules of the writer (the line format is :mod:`cyclops.report.decision_record`'s):

1. The file is opened ``O_APPEND`` (created mode 0600, its directory fsync'd) and locked with an
   exclusive ``flock``: a second writer is refused, not interleaved.
2. Opening reads only the tail. The last whole line gives the next ``seq`` and ``prev``; it must
   verify on its own, or the log is refused (``cyclops audit verify`` says why). Bytes after the
   last newline are a torn line — a crash mid-write, never acknowledged — and are cut off
   (``ftruncate``); the ``open`` line every writer starts with records their length and SHA-256.
3. An append writes its whole lines with one ``os.write``, then ``fsync``: once it returns, the
   lines are on disk, and a kill at any moment leaves the last line whole or absent (or, if the
   kernel stopped a write between pages, a torn tail that rule 2 handles).
4. A failed write is undone (truncated back to the last good length), the chain does not
   advance, and the decisions are counted; the next write that succeeds first adds a ``gap``
   line saying how many were lost.
5. Not thread-safe: one caller at a time (the proxy's writer task, or replay).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from ..core.types import Decision
from .audit import Break, check_line
from .decision_record import (
    GENESIS,
    DecisionEntry,
    Entry,
    GapEntry,
    OpenEntry,
    chain_line,
    decision_entry,
    entry_json,
)

__all__ = ["DecisionLog", "DecisionLogError"]

_BLOCK = 1 << 16


class DecisionLogError(Exception):
    """The decision log cannot be opened or written (the message names the file)."""


class DecisionLog:
    def __init__(
        self,
        path: Path,
        *,
        patterns_sha256: str | None = None,
        fsync: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self._fsync = fsync
        self._clock = clock
        self._lost = 0
        self._head, self._seq, self._size = GENESIS, 0, 0
        self._fd = _open_locked(path)
        try:
            torn = self._recover()
            self.append([OpenEntry(self._now(), __version__, patterns_sha256, *torn)])
        except OSError as exc:
            os.close(self._fd)
            raise DecisionLogError(f"{path}: cannot write the decision log: {exc}") from None
        except DecisionLogError:
            os.close(self._fd)
            raise

    @property
    def head(self) -> str:
        """The hash of the last line written (``GENESIS`` before any)."""
        return self._head

    @property
    def lines(self) -> int:
        return self._seq

    @property
    def lost(self) -> int:
        """Decisions whose write failed and that no ``gap`` line records yet."""
        return self._lost

    def record(self, session: str, decision: Decision) -> None:
        """Append one decision (replay's path: synchronous, one fsync per call)."""
        self.append([decision_entry(session, decision, self._clock())])

    def append(self, entries: Sequence[Entry]) -> None:
        """Append ``entries`` durably (rule 3); on ``OSError`` nothing is appended (rule 4)."""
        batch = [GapEntry(self._now(), self._lost), *entries] if self._lost else entries
        lines, head, seq = [], self._head, self._seq
        for entry in batch:
            seq += 1
            line, head = chain_line(entry_json(entry), seq, head)
            lines.append(line)
        data = ("\n".join(lines) + "\n").encode("ascii")
        try:
            if self._lost and os.fstat(self._fd).st_size != self._size:
                os.ftruncate(self._fd, self._size)  # a failed write left bytes behind
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
            if self._fsync:
                os.fsync(self._fd)
        except OSError:
            self._lost += sum(isinstance(entry, DecisionEntry) for entry in entries)
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)
            raise
        self._lost = 0
        self._head, self._seq, self._size = head, seq, self._size + len(data)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # releases the lock
            self._fd = -1

    def _now(self) -> int:
        return round(self._clock() * 1000)

    def _recover(self) -> tuple[int, str | None]:
        """Read the tail (rule 2): set seq, head and size; cut a torn line and return its
        length and hash."""
        size = os.fstat(self._fd).st_size
        end, last = _last_line(self._fd, size)
        self._size = end
        if last is not None:
            checked = check_line(last)
            if isinstance(checked, Break):
                raise DecisionLogError(
                    f"{self.path}: the last line is not a cyclops decision-log line "
                    f"({checked.value}); run `cyclops audit verify {self.path}`"
                )
            self._seq, self._head = int(checked["seq"]), str(checked["hash"])
        if end == size:
            return 0, None
        torn = os.pread(self._fd, size - end, end)
        os.ftruncate(self._fd, end)
        os.fsync(self._fd)
        return len(torn), hashlib.sha256(torn).hexdigest()


def _open_locked(path: Path) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        created = not path.exists()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise DecisionLogError(f"{path}: cannot open the decision log: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise DecisionLogError(f"{path}: another process is writing this decision log") from None
    if created:  # the new name must survive a power loss too
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return fd


def _last_line(fd: int, size: int) -> tuple[int, bytes | None]:
    """(the offset just past the last newline, the last whole line without it or None)."""
    tail, position = b"", size
    while position > 0:
        start = max(0, position - _BLOCK)
        tail = os.pread(fd, position - start, start) + tail
        position = start
        last = tail.rfind(b"\n")
        if last < 0:
            continue
        before = tail.rfind(b"\n", 0, last)
        if before >= 0 or position == 0:
            return position + last + 1, tail[before + 1 : last]
    return 0, None
