"""Tool pinning and tool-description checks (the "rug pull" and "tool poisoning" attacks).

A tool is pinned on first sight by a digest of what the agent reads and relies on: its
description, title, input and output schemas and annotations. A tool whose digest later differs
— at start-up or mid-session — is *changed*: its calls are denied until the operator approves
the new definition. Descriptions are also read for instructions aimed at the agent and for the
names of other servers' tools (a description that tells the agent to call another server's
tool is steering it).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .canon import as_read
from .poisoning import instructs
from .regex import SafeRegex
from .rules import Patterns

__all__ = [
    "PinReport",
    "Suspicion",
    "SuspicionKind",
    "compare",
    "instructing_texts",
    "suspicious_descriptions",
    "tool_digest",
]

_PINNED_FIELDS = ("description", "title", "inputSchema", "outputSchema", "annotations")


def tool_digest(tool: Mapping[str, Any]) -> str:
    """SHA-256 of the tool's pinned fields in canonical JSON."""
    pinned = {field: tool.get(field) for field in _PINNED_FIELDS}
    canonical = json.dumps(pinned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class PinReport:
    new: tuple[str, ...]
    changed: tuple[str, ...]
    unchanged: tuple[str, ...]
    gone: tuple[str, ...]


def compare(pins: Mapping[str, str], tools: Sequence[Mapping[str, Any]]) -> PinReport:
    """Which of ``tools`` are new, changed or unchanged against ``pins`` (name → digest)."""
    new, changed, unchanged = [], [], []
    names = set()
    for tool in tools:
        name = str(tool.get("name"))
        names.add(name)
        digest = tool_digest(tool)
        if name not in pins:
            new.append(name)
        elif pins[name] != digest:
            changed.append(name)
        else:
            unchanged.append(name)
    gone = sorted(set(pins) - names)
    return PinReport(tuple(new), tuple(changed), tuple(unchanged), tuple(gone))


class SuspicionKind(StrEnum):
    INSTRUCTION = "instruction"
    """The description carries an instruction aimed at the agent."""
    OTHER_TOOL = "other_tool"
    """The description names another server's tool."""


@dataclass(frozen=True)
class Suspicion:
    server: str
    tool: str
    kind: SuspicionKind
    detail: str
    """The marker pattern or the other tool's name (never more of the description)."""


_MIN_NAME = 6  # shorter tool names ("add", "echo") appear in prose by chance


def suspicious_descriptions(
    tools: Mapping[str, Sequence[Mapping[str, Any]]], markers: Iterable[SafeRegex]
) -> list[Suspicion]:
    """Tools (server → tool list) whose descriptions instruct the agent or name other servers'
    tools."""
    markers = tuple(markers)
    found = []
    for server, listed in tools.items():
        others = {
            str(t.get("name"))
            for other, their in tools.items()
            if other != server
            for t in their
            if len(str(t.get("name"))) >= _MIN_NAME
        }
        for tool in listed:
            name, text = str(tool.get("name")), str(tool.get("description") or "")
            forms = as_read(text)  # disguised markers too, as instructing_texts reads them
            for regex in markers:
                if any(map(regex.search, forms)):
                    found.append(Suspicion(server, name, SuspicionKind.INSTRUCTION, regex.pattern))
                    break
            for other in sorted(others - {name}):
                if re.search(rf"(?<![\w]){re.escape(other)}(?![\w])", text):
                    found.append(Suspicion(server, name, SuspicionKind.OTHER_TOOL, other))
    return found


def instructing_texts(
    patterns: Patterns, tools: Sequence[Mapping[str, Any]], instructions: str | None
) -> str:
    """What a server wrote for the agent (its instructions, its tools' descriptions) that
    poisons (see :func:`~cyclops.core.poisoning.instructs`: an instruction to do what poisoned
    tools ask, a request for what a private file holds, another server's tool named beside
    harm...), one text per paragraph (``name: description``); empty when nothing does. A
    description that only insists on how to use its own tool ("<IMPORTANT> call list_tables
    first") is not one. The proxy hands the texts to the core as the result of the server's
    ``tools/list``."""
    texts = [("instructions", instructions or "")]
    texts += [(str(t.get("name")), str(t.get("description") or "")) for t in tools]
    own = {name for name, _ in texts[1:]}
    return "\n\n".join(
        f"{name}: {text}" for name, text in texts if instructs(patterns, as_read(text), own)
    )
