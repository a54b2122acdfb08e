"""Each listed tool's labels, before any call: patterns.toml first, a conservative guess after.

Pure. Rules:

1. A server's roles and a tool's labels come from the runtime's own
   :class:`~cyclops.core.taint.Labeller` (declared roles, server-name globs, signature tools,
   role tool globs): a scan labels a tool exactly as the proxy will. The role and glob that gave
   each label are kept, to explain it.
2. MCP annotations are hints from the server, never trusted to lower a label: a tool a rule
   covers keeps the rule's labels whatever its annotations say.
3. A tool no rule covers (no tool glob of its server's roles matches it) gets the riskier reading
   of what it shows, each label with the evidence it came from:

   - ``openWorldHint`` true, or absent (the MCP default is true): it deals with an open world,
     so what it returns may be written by others (untrusted) and what it is sent leaves the
     machine (egress);
   - ``openWorldHint`` false: it works on a closed domain — the user's files, machine or
     accounts — so what it returns may be private (sensitive);
   - an argument whose name is a URL key of ``[egress]`` can point anywhere: the URL rule's
     labels (egress, untrusted);
   - an argument whose name is a path key of a sensitive argument rule can name a key file:
     sensitive;
   - neither ``readOnlyHint`` true nor ``destructiveHint`` false (the MCP defaults): privileged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..core.patterns import ArgumentRule, Patterns
from ..core.pins import instructing_texts
from ..core.regex import Glob
from ..core.taint import Labeller
from ..core.types import HOSTILE_ROLE, Capability, Label
from .snapshot import Snapshot, ToolSpec

__all__ = [
    "Inference",
    "InferredLabel",
    "Labelling",
    "RoleMatch",
    "RoleReason",
    "RuleMatch",
    "ToolLabels",
    "label_tools",
]

_SCHEMA_DEPTH = 6


class RoleReason(StrEnum):
    DECLARED = "declared"
    """downstream.toml names the role."""
    NAME = "name"
    """The server's name matches one of the role's ``servers`` globs."""
    SIGNATURE = "signature"
    """The server offers a tool that matches one of the role's ``signatures``."""
    POISONED = "poisoned"
    """A tool's description instructs the agent to do what poisoned tools ask (the proxy gives
    such a server the ``hostile`` role)."""


class Inference(StrEnum):
    OPEN_WORLD_HINT = "open_world_hint"
    OPEN_WORLD_DEFAULT = "open_world_default"
    CLOSED_WORLD_HINT = "closed_world_hint"
    URL_ARGUMENT = "url_argument"
    PATH_ARGUMENT = "path_argument"
    DESTRUCTIVE_HINT = "destructive_hint"
    DESTRUCTIVE_DEFAULT = "destructive_default"

    @property
    def explanation(self) -> str:
        return _EXPLANATIONS[self]


_EXPLANATIONS = {
    Inference.OPEN_WORLD_HINT: "openWorldHint is true",
    Inference.OPEN_WORLD_DEFAULT: "no openWorldHint (the MCP default is true)",
    Inference.CLOSED_WORLD_HINT: "openWorldHint is false: a closed domain may be private",
    Inference.URL_ARGUMENT: "a URL argument can point anywhere",
    Inference.PATH_ARGUMENT: "a path argument can name a private file",
    Inference.DESTRUCTIVE_HINT: "destructiveHint is true",
    Inference.DESTRUCTIVE_DEFAULT: "neither readOnlyHint nor destructiveHint says otherwise",
}


@dataclass(frozen=True, order=True)
class RoleMatch:
    role: str
    reason: RoleReason
    detail: str
    """The glob or signature tool that matched (empty for a declared role)."""


@dataclass(frozen=True, order=True)
class RuleMatch:
    role: str
    glob: str
    labels: tuple[Label, ...]


@dataclass(frozen=True, order=True)
class InferredLabel:
    label: Label
    inference: Inference
    argument: str = ""
    """The argument that showed it, for URL and path arguments."""


@dataclass(frozen=True)
class ToolLabels:
    capability: Capability
    labels: frozenset[Label]
    rules: tuple[RuleMatch, ...]
    """Tool globs that matched (empty: no rule covers the tool)."""
    inferred: tuple[InferredLabel, ...]
    """For a tool no rule covers: every label guessed, with its evidence."""

    @property
    def covered(self) -> bool:
        return bool(self.rules)

    @property
    def route_labels(self) -> frozenset[Label]:
        return self.labels & {Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS}

    @property
    def self_contained(self) -> bool:
        """Untrusted, sensitive and egress at once: a whole route inside one tool."""
        return len(self.route_labels) == 3


@dataclass(frozen=True)
class Labelling:
    roles: Mapping[str, tuple[RoleMatch, ...]]
    tools: tuple[ToolLabels, ...]

    def of(self, capability: Capability) -> ToolLabels | None:
        return next((t for t in self.tools if t.capability == capability), None)


def label_tools(patterns: Patterns, snapshot: Snapshot) -> Labelling:
    declared = {s.name: s.roles for s in snapshot.servers if s.roles}
    labeller = Labeller(patterns, declared)
    poisoned: dict[str, str] = {}
    for server in snapshot.servers:
        labeller.learn_tools(server.name, [t.name for t in server.tools])
        if listing := instructing_texts(patterns, [t.raw for t in server.tools], None):
            poisoned[server.name] = listing
            labeller.declare_roles(server.name, (HOSTILE_ROLE,))
    roles: dict[str, tuple[RoleMatch, ...]] = {}
    tools: list[ToolLabels] = []
    for server in snapshot.servers:
        roles[server.name] = _role_matches(patterns, server.name, server.roles, server.tools)
        if server.name in poisoned:
            roles[server.name] += (RoleMatch(HOSTILE_ROLE, RoleReason.POISONED, ""),)
        for tool in server.tools:
            tools.append(_label(patterns, labeller, server.name, tool))
    return Labelling(roles, tuple(tools))


def _role_matches(
    patterns: Patterns, server: str, declared: tuple[str, ...], tools: tuple[ToolSpec, ...]
) -> tuple[RoleMatch, ...]:
    found: list[RoleMatch] = []
    for role in patterns.roles:
        if role.name in declared:
            found.append(RoleMatch(role.name, RoleReason.DECLARED, ""))
        elif role.servers.matches(server):
            glob = next(g for g in role.servers.patterns if _glob_matches(g, server))
            found.append(RoleMatch(role.name, RoleReason.NAME, glob))
        else:
            signature = next((t.name for t in tools if role.signatures.matches_name(t.name)), None)
            if signature is not None:
                found.append(RoleMatch(role.name, RoleReason.SIGNATURE, signature))
    return tuple(found)


def _glob_matches(glob: str, name: str) -> bool:
    return Glob(glob).matches(name)


def _label(patterns: Patterns, labeller: Labeller, server: str, tool: ToolSpec) -> ToolLabels:
    capability = Capability(server, tool.name)
    labels = labeller.static_labels(capability)
    names = labeller.tool_names(capability)  # as the proxy reads it
    rules = tuple(
        RuleMatch(role.name, glob.pattern, tuple(sorted(role_labels)))
        for role in labeller.roles_of(server)
        for glob, role_labels in role.tools
        if any(map(glob.matches_name, names))
    )
    if rules:
        return ToolLabels(capability, labels, rules, ())
    inferred = tuple(sorted(set(_infer(patterns, tool))))
    return ToolLabels(capability, frozenset(i.label for i in inferred), (), inferred)


def _infer(patterns: Patterns, tool: ToolSpec) -> Iterator[InferredLabel]:
    hints = tool.annotations
    open_world = hints.get("openWorldHint")
    if open_world is False:
        yield InferredLabel(Label.SENSITIVE, Inference.CLOSED_WORLD_HINT)
    else:
        why = Inference.OPEN_WORLD_HINT if open_world is True else Inference.OPEN_WORLD_DEFAULT
        yield InferredLabel(Label.UNTRUSTED, why)
        yield InferredLabel(Label.EGRESS, why)
    path_rules = [r for r in patterns.arguments if Label.SENSITIVE in r.labels]
    for name in _argument_names(tool.input_schema, 0):
        if patterns.egress.url_keys.matches_name(name):
            for label in patterns.egress.url_labels:
                yield InferredLabel(label, Inference.URL_ARGUMENT, name)
        if any(r.tools.matches_name(tool.name) and _path_key(r, name) for r in path_rules):
            yield InferredLabel(Label.SENSITIVE, Inference.PATH_ARGUMENT, name)
    if hints.get("readOnlyHint") is not True and hints.get("destructiveHint") is not False:
        why = (
            Inference.DESTRUCTIVE_HINT
            if hints.get("destructiveHint") is True
            else Inference.DESTRUCTIVE_DEFAULT
        )
        yield InferredLabel(Label.PRIVILEGED, why)


def _path_key(rule: ArgumentRule, name: str) -> bool:
    return bool(rule.keys.matches(name) or rule.word_keys.matches(name))


def _argument_names(schema: Mapping[str, Any], depth: int) -> Iterator[str]:
    """Property names at any depth of a JSON Schema (objects, arrays, combinations)."""
    if depth > _SCHEMA_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            yield str(name)
            if isinstance(sub, Mapping):
                yield from _argument_names(sub, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _argument_names(items, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                if isinstance(option, Mapping):
                    yield from _argument_names(option, depth + 1)
