"""The ``[controls]`` section of patterns.toml: per-call checks and their actions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .convert import globs, path_globs
from .ratelimit import RateRule
from .regex import GlobSet, PathGlobSet, normalize_path
from .tomlreader import TableReader
from .types import Action

__all__ = ["Controls", "DestinationRules", "PathScope", "ToolRule", "parse_controls"]

ACTIONS = [a.value for a in Action]


@dataclass(frozen=True)
class DestinationRules:
    allow: GlobSet = field(default_factory=lambda: GlobSet(()))
    deny: GlobSet = field(default_factory=lambda: GlobSet(()))
    action: Action = Action.DENY
    ssrf_guard: bool = False
    ssrf_action: Action = Action.DENY


DEFAULT_PATH_KEYS = (
    "path", "paths", "*path", "*_path*", "file", "files", "*file", "filename", "source", "src",
    "destination", "dest", "target", "directory", "dir", "root", "from", "to", "uri",
)  # fmt: skip


@dataclass(frozen=True)
class PathScope:
    servers: GlobSet
    roots: tuple[str, ...]
    """Allowed roots, normalised, absolute; empty: anywhere."""
    keys: GlobSet = field(default_factory=lambda: GlobSet(DEFAULT_PATH_KEYS))
    """Argument keys whose values are paths."""
    outside_action: Action = Action.DENY
    sensitive: PathGlobSet = field(default_factory=lambda: PathGlobSet(()))
    sensitive_action: Action = Action.ASK


@dataclass(frozen=True)
class ToolRule:
    """An action for every call of the matching tools (e.g. the grants a scan's cut revokes)."""

    id: str
    servers: GlobSet
    tools: GlobSet
    action: Action


@dataclass(frozen=True)
class Controls:
    secret_action: Action = Action.ALLOW
    """What a secret rule match in an egress call's arguments does on its own."""
    secret_actions: Mapping[str, Action] = field(default_factory=dict)
    destinations: DestinationRules = field(default_factory=DestinationRules)
    paths: tuple[PathScope, ...] = ()
    rates: tuple[RateRule, ...] = ()
    rate_action: Action = Action.DENY
    egress_budget_bytes: int = 0
    breaker_denials: int = 0
    pinning_action: Action = Action.DENY
    tools: tuple[ToolRule, ...] = ()

    def action_for_secret(self, rule_id: str) -> Action:
        return self.secret_actions.get(rule_id, self.secret_action)


def _action(table: TableReader, key: str, default: Action) -> Action:
    return Action(table.string(key, default.value, choices=ACTIONS))


def parse_controls(table: TableReader) -> Controls:
    secret_actions = table.table("secret_actions", {})
    names = secret_actions.names()
    per_rule = {name: _action(secret_actions, name, Action.ALLOW) for name in names}
    secret_actions.finish()
    budget = table.table("budget", {})
    breaker = table.table("breaker", {})
    pinning = table.table("pinning", {})
    controls = Controls(
        secret_action=_action(table, "secret_action", Action.ALLOW),
        secret_actions=per_rule,
        destinations=_destinations(table.table("destinations", {})),
        paths=tuple(_path_scope(t) for t in table.tables("paths")),
        rates=tuple(_rate(t) for t in table.tables("rates")),
        rate_action=_action(table, "rate_action", Action.DENY),
        egress_budget_bytes=budget.integer("egress_bytes", 0),
        breaker_denials=breaker.integer("denials", 0),
        pinning_action=_action(pinning, "action", Action.DENY),
        tools=tuple(_tool_rule(t) for t in table.tables("tools")),
    )
    for section in (budget, breaker, pinning):
        section.finish()
    table.finish()
    return controls


def _destinations(table: TableReader) -> DestinationRules:
    rules = DestinationRules(
        allow=globs(table, "allow"),
        deny=globs(table, "deny"),
        action=_action(table, "action", Action.DENY),
        ssrf_guard=table.boolean("ssrf_guard", False),
        ssrf_action=_action(table, "ssrf_action", Action.DENY),
    )
    table.finish()
    return rules


def _path_scope(table: TableReader) -> PathScope:
    roots = table.strings("roots", ())
    for root in roots:
        if not normalize_path(root).startswith("/"):
            table.fail("roots", root, "a root must be an absolute path", "write it from / (no ~)")
    scope = PathScope(
        servers=globs(table, "servers", ("*",)),
        roots=tuple(normalize_path(r).rstrip("/") or "/" for r in roots),
        keys=globs(table, "keys", DEFAULT_PATH_KEYS),
        outside_action=_action(table, "outside_action", Action.DENY),
        sensitive=path_globs(table, "sensitive"),
        sensitive_action=_action(table, "sensitive_action", Action.ASK),
    )
    table.finish()
    return scope


def _tool_rule(table: TableReader) -> ToolRule:
    rule = ToolRule(
        id=table.string("id"),
        servers=globs(table, "servers", ("*",)),
        tools=globs(table, "tools"),
        action=_action(table, "action", Action.DENY),
    )
    if not rule.tools:
        table.fail("tools", [], "a tool rule needs tool globs", "list the tools it is about")
    table.finish()
    return rule


def _rate(table: TableReader) -> RateRule:
    rule = RateRule(
        id=table.string("id"),
        servers=globs(table, "servers", ("*",)),
        tools=globs(table, "tools", ("*",)),
        calls=table.integer("calls", minimum=1),
        seconds=table.number("seconds", minimum=0.001),
        per_session=table.boolean("per_session", False),
    )
    table.finish()
    return rule
