"""A flow as JSON and back: the shape session.json uses, shared by the decision log and exports.

:func:`flow_json` writes the ``flows[]`` items of session.json (session_json.py calls it);
:func:`flow_from_json` reads them back into the core's frozen :class:`Flow`, strictly:
a missing key, a wrong type or an unknown enum value is a :class:`RecordError` naming where.
Only names travel: servers, tools, argument paths, rule ids, coarse destinations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, TypeVar

from ..core.types import (
    Action,
    Capability,
    ChainLink,
    Evidence,
    EvidenceKind,
    Flow,
    FlowClass,
    Label,
    Severity,
)

__all__ = [
    "Fields",
    "RecordError",
    "capability_json",
    "flow_from_fields",
    "flow_from_json",
    "flow_json",
    "link_json",
]

E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")


class RecordError(ValueError):
    """A record (a session.json flow, a decision-log line) is not what cyclops writes."""


def flow_json(flow: Flow) -> dict[str, Any]:
    return {
        "class": flow.flow_class.value,
        "owasp": flow.owasp.code,
        "owasp_name": flow.owasp.value,
        "severity": flow.severity.value,
        "call_index": flow.call_index,
        "action": flow.action.value,
        "chain": [link_json(link) for link in flow.chain],
        "evidence": _evidence_json(flow.evidence),
        "choke_point": [capability_json(c) for c in flow.choke_point],
        "leaked_bytes": flow.leaked_bytes,
        "destination": flow.destination,
    }


def capability_json(capability: Capability) -> dict[str, str]:
    return {"server": capability.server, "tool": capability.tool}


def link_json(link: ChainLink) -> dict[str, Any]:
    return {
        "index": link.index,
        "server": link.capability.server,
        "tool": link.capability.tool,
        "labels": sorted(label.value for label in link.labels),
        "role": link.role.value,
    }


def _evidence_json(evidence: Evidence) -> dict[str, Any]:
    return {
        "untrusted": evidence.untrusted.value,
        "steered": evidence.steered,
        "steered_arguments": list(evidence.steered_arguments),
        "untrusted_arguments": list(evidence.untrusted_arguments),
        "sensitive_arguments": list(evidence.sensitive_arguments),
        "secret_rules": list(evidence.secret_rules),
    }


class Fields:
    """Typed access to one JSON object, errors naming the path (``flows[0].chain[1].tool``)."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, Mapping):
            raise RecordError(f"{where}: expected an object, got {type(data).__name__}")
        self._data: Mapping[str, Any] = data
        self.where = where

    def _get(self, key: str, kind: type, what: str) -> Any:
        if key not in self._data:
            raise RecordError(f"{self.where}.{key}: missing")
        value = self._data[key]
        if isinstance(value, bool) and kind is not bool:  # bool is an int to isinstance
            raise RecordError(f"{self.where}.{key}: expected {what}, got a boolean")
        if not isinstance(value, kind):
            raise RecordError(f"{self.where}.{key}: expected {what}, got {type(value).__name__}")
        return value

    def string(self, key: str) -> str:
        value: str = self._get(key, str, "a string")
        return value

    def optional_string(self, key: str) -> str | None:
        if self._data.get(key) is None:
            return None
        return self.string(key)

    def count(self, key: str) -> int:
        value: int = self._get(key, int, "an integer")
        if value < 0:
            raise RecordError(f"{self.where}.{key}: expected a non-negative integer, got {value}")
        return value

    def enum(self, key: str, kind: type[E]) -> E:
        value = self.string(key)
        try:
            return kind(value)
        except ValueError:
            known = ", ".join(m.value for m in kind)
            raise RecordError(f"{self.where}.{key}: {value!r} is not one of {known}") from None

    def strings(self, key: str) -> tuple[str, ...]:
        items: list[Any] = self._get(key, list, "a list of strings")
        for n, item in enumerate(items):
            if not isinstance(item, str):
                raise RecordError(f"{self.where}.{key}[{n}]: expected a string")
        return tuple(items)

    def objects(self, key: str, read: Callable[[Fields], T]) -> tuple[T, ...]:
        items: list[Any] = self._get(key, list, "a list of objects")
        return tuple(read(Fields(item, f"{self.where}.{key}[{n}]")) for n, item in enumerate(items))

    def child(self, key: str) -> Fields:
        return Fields(self._get(key, dict, "an object"), f"{self.where}.{key}")


def flow_from_json(data: object, where: str = "flow") -> Flow:
    return flow_from_fields(Fields(data, where))


def flow_from_fields(f: Fields) -> Flow:
    return Flow(
        flow_class=f.enum("class", FlowClass),
        severity=f.enum("severity", Severity),
        call_index=f.count("call_index"),
        chain=f.objects("chain", _link_from),
        evidence=_evidence_from(f.child("evidence")),
        choke_point=f.objects("choke_point", _capability_from),
        leaked_bytes=f.count("leaked_bytes"),
        destination=f.optional_string("destination"),
        action=f.enum("action", Action),
    )


def _link_from(f: Fields) -> ChainLink:
    labels = f.strings("labels")
    try:
        parsed = frozenset(Label(label) for label in labels)
    except ValueError:
        raise RecordError(f"{f.where}.labels: {list(labels)} holds an unknown label") from None
    return ChainLink(
        index=f.count("index"),
        capability=_capability_from(f),
        labels=parsed,
        role=f.enum("role", Label),
    )


def _capability_from(f: Fields) -> Capability:
    return Capability(f.string("server"), f.string("tool"))


def _evidence_from(f: Fields) -> Evidence:
    return Evidence(
        untrusted=f.enum("untrusted", EvidenceKind),
        steered_arguments=f.strings("steered_arguments"),
        untrusted_arguments=f.strings("untrusted_arguments"),
        sensitive_arguments=f.strings("sensitive_arguments"),
        secret_rules=f.strings("secret_rules"),
    )
