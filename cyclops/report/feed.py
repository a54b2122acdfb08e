"""The proxy's evidence feed: every decision to the decision log, every finding to the exports.

Rules of the feed:

1. :meth:`DecisionFeed.submit` is called on the event loop with each decision and never waits:
   the decision is queued for the log and its findings are queued for each export.
2. One task writes the log off the event loop (a worker thread: ``fsync`` costs milliseconds),
   taking everything queued at once — one ``write`` and one ``fsync`` for a burst (group
   commit). Nothing is dropped; a failed write is logged, counted and recorded by a ``gap`` line.
3. A decision is acted on as soon as it is made, not once it is on disk: a crash loses at most
   the decisions still queued (the last batch), never a line already written.
4. :meth:`DecisionFeed.flush` at shutdown writes what is queued and drains the exports within a
   bounded time.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
import anyio.abc

from ..core.types import Decision
from .decision_log import DecisionLog
from .decision_record import DecisionEntry, decision_entry
from .export_sinks import Exporter, ExportSpecError, ExportTarget, export_item
from .ocsf import decision_findings
from .ocsf_controls import Finding, decision_control_reports

__all__ = ["DecisionFeed"]

log = logging.getLogger("cyclops.audit")

EXPORT_DRAIN_SECONDS = 5.0


class DecisionFeed:
    def __init__(
        self,
        decision_log: DecisionLog | None,
        exporters: Sequence[Exporter] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.decision_log = decision_log
        self.exporters = tuple(exporters)
        self.failed_writes = 0
        self._clock = clock
        self._pending: deque[DecisionEntry] = deque()
        self._wake = anyio.Event()
        self._writing = anyio.Lock()

    @classmethod
    def open(
        cls,
        decision_log: Path | None,
        exports: Sequence[ExportTarget],
        patterns_sha256: str | None = None,
    ) -> DecisionFeed | None:
        """The feed for ``serve``'s options (None: neither a log nor an export). Raises
        ``DecisionLogError`` or ``ExportSpecError`` before anything starts."""
        if decision_log is None and not exports:
            return None
        opened = (
            DecisionLog(decision_log, patterns_sha256=patterns_sha256) if decision_log else None
        )
        try:
            return cls(opened, [Exporter(target) for target in exports])
        except ExportSpecError:
            if opened is not None:
                opened.close()
            raise

    def observer(
        self, then: Callable[[str, Decision], None] | None
    ) -> Callable[[str, Decision], None]:
        """A decision observer that feeds this feed, then calls ``then``."""

        def observe(session: str, decision: Decision) -> None:
            self.submit(session, decision)
            if then is not None:
                then(session, decision)

        return observe

    def submit(self, session: str, decision: Decision) -> None:
        """Queue one decision and its findings (rule 1)."""
        now = self._clock()
        if self.decision_log is not None:
            self._pending.append(decision_entry(session, decision, now))
            self._wake.set()
        if self.exporters and (decision.flows or decision.controls):
            findings: list[Finding] = [
                *decision_findings(session, decision, now),
                *decision_control_reports(session, decision, now),
            ]
            items = [export_item(f) for f in findings]
            for exporter in self.exporters:
                for item in items:
                    exporter.submit(item)

    async def run(self, task_group: anyio.abc.TaskGroup) -> None:
        """Start the exports' tasks and write the log until cancelled (rule 2)."""
        for exporter in self.exporters:
            task_group.start_soon(exporter.run)
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await self._write()

    async def flush(self) -> None:
        """Write what is queued, drain the exports, close (rule 4). Call shielded."""
        await self._write()
        for exporter in self.exporters:
            await exporter.drain(EXPORT_DRAIN_SECONDS)
        self.close()

    def close(self) -> None:
        """Release the log (idempotent; :meth:`flush` does it after writing)."""
        if self.decision_log is not None:
            self.decision_log.close()

    async def _write(self) -> None:
        async with self._writing:  # the log is written by one thread at a time
            if self.decision_log is None or not self._pending:
                return
            batch = list(self._pending)
            self._pending.clear()
            try:
                await anyio.to_thread.run_sync(self.decision_log.append, batch)
            except OSError as exc:  # the log's one error boundary: counted, and a gap line
                self.failed_writes += len(batch)
                log.error(
                    "decision log %s: %d decisions not written: %s",
                    self.decision_log.path,
                    len(batch),
                    exc.strerror or type(exc).__name__,
                )
