"""Tool pins on disk: one reviewable JSON file per downstream server.

    {"server": "github", "pins": {"create_issue": "<sha256>", ...},
     "pending": {"create_issue": "<sha256 of the changed definition>"}}

A tool is pinned the first time it is listed. A listed tool whose digest differs from its pin
is *changed*: it goes to ``pending`` and is quarantined in every session until the operator
approves it (``cyclops pins approve SERVER TOOL``, which moves the pending digest to ``pins``).
A running proxy notices the approval the next time the tool is called (the file's mtime).
Whatever the host does with ``list_changed``, the quarantine is enforced on the call itself.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.pins import compare, tool_digest
from ..report.session_json import write_json_atomic

__all__ = ["PinError", "PinFile", "PinStore", "default_pins_dir"]

log = logging.getLogger("cyclops.pins")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def default_pins_dir() -> Path:
    """``$XDG_STATE_HOME/cyclops/pins``, by default ``~/.local/state/cyclops/pins``."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(state) / "cyclops" / "pins"


@dataclass
class PinFile:
    server: str
    pins: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "pins": self.pins, "pending": self.pending}


class PinError(ValueError):
    """A pin file cannot be read, or an approval names no pending change."""

    pass


class PinStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._mtimes: dict[str, float] = {}

    def path(self, server: str) -> Path:
        return self.directory / f"{_SAFE.sub('_', server)[:100] or 'server'}.json"

    def load(self, server: str) -> PinFile:
        path = self.path(server)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            self._mtimes[server] = path.stat().st_mtime
        except FileNotFoundError:
            return PinFile(server)
        except (OSError, ValueError) as exc:
            problem = f"{path}: unreadable pin file ({type(exc).__name__}); fix or remove it"
            raise PinError(problem) from None
        if not isinstance(data, dict) or not all(
            isinstance(data.get(key, {}), dict) for key in ("pins", "pending")
        ):
            raise PinError(f"{path}: not a pin file; fix or remove it")
        return PinFile(server, dict(data.get("pins", {})), dict(data.get("pending", {})))

    def save(self, pins: PinFile) -> None:
        path = self.path(pins.server)
        write_json_atomic(path, pins.to_json())
        os.chmod(path, 0o600)
        self._mtimes[pins.server] = path.stat().st_mtime

    def changed_on_disk(self, server: str) -> bool:
        try:
            return self.path(server).stat().st_mtime != self._mtimes.get(server)
        except FileNotFoundError:
            return False

    def review(self, server: str, tools: Sequence[Mapping[str, Any]]) -> set[str]:
        """Pin new tools, note changed ones; the names to quarantine."""
        pins = self.load(server)
        report = compare(pins.pins, tools)
        digests = {str(t.get("name")): tool_digest(t) for t in tools}
        dirty = False
        for name in report.new:
            pins.pins[name] = digests[name]
            dirty = True
        for name in report.changed:
            if pins.pending.get(name) != digests[name]:
                pins.pending[name] = digests[name]
                dirty = True
        for name in report.unchanged:
            dirty |= pins.pending.pop(name, None) is not None
        if dirty:
            self.save(pins)
        for name in report.changed:
            log.warning(
                "%s/%s changed since it was pinned: quarantined until approved "
                "(cyclops pins approve %s %s)",
                server,
                name,
                server,
                name,
            )
        return set(report.changed)

    def approve(self, server: str, tools: Sequence[str]) -> list[str]:
        """Accept the pending definitions of ``tools`` (all pending ones if empty)."""
        pins = self.load(server)
        names = list(tools) or sorted(pins.pending)
        unknown = [n for n in names if n not in pins.pending]
        if unknown:
            raise PinError(f"{server}: no pending change for {', '.join(unknown)}")
        for name in names:
            pins.pins[name] = pins.pending.pop(name)
        self.save(pins)
        return names

    def servers(self) -> list[PinFile]:
        if not self.directory.is_dir():
            return []
        return [self.load(str(json.loads(p.read_text())["server"])) for p in self._files()]

    def _files(self) -> list[Path]:
        return sorted(self.directory.glob("*.json"))
