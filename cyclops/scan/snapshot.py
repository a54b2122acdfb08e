"""Tools snapshots: what each server offers, saved so that a scan can run without the servers.

``cyclops scan --save-tools FILE`` writes one; ``cyclops scan --tools FILE`` reads it (in CI, say).
The format is JSON::

    {"cyclops_tools_snapshot": 1,
     "servers": [{"name": "filesystem", "roles": ["filesystem"],
                  "tools": [{"name": "read_text_file", "inputSchema": {...},
                             "annotations": {"readOnlyHint": true}, ...}]}]}

Each tool is kept as the server listed it (every field, as raw JSON). Reading is strict: an
unknown key of ours, a bad server name, a tool without a name, a duplicate or a hint that is not
true or false is an error naming the file, the key, the value and the fix. Pure: text in, text
out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NoReturn

from ..core.tomlreader import ConfigError, refuse_duplicate_names

__all__ = [
    "DEFAULT_START_TIMEOUT",
    "HINTS",
    "SNAPSHOT_VERSION",
    "ServerTools",
    "Snapshot",
    "ToolSpec",
    "dump_snapshot",
    "parse_snapshot",
    "servers_in",
]

SNAPSHOT_VERSION = 1
DEFAULT_START_TIMEOUT = 60.0
"""Seconds a server may take to start before a live listing gives up on it."""
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
"""MCP tool annotations (hints from the server: never trusted to lower a label)."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""What downstream.toml accepts as a server name."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    raw: Mapping[str, Any] = field(default_factory=dict)
    """The tool as the server listed it."""

    @property
    def annotations(self) -> Mapping[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, Mapping) else {}

    @property
    def input_schema(self) -> Mapping[str, Any]:
        value = self.raw.get("inputSchema")
        return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class ServerTools:
    name: str
    tools: tuple[ToolSpec, ...]
    roles: tuple[str, ...] = ()
    """Roles declared for the server (downstream.toml); others come from names and signatures."""


@dataclass(frozen=True)
class Snapshot:
    servers: tuple[ServerTools, ...]

    def server(self, name: str) -> ServerTools | None:
        return next((s for s in self.servers if s.name == name), None)

    @property
    def tool_count(self) -> int:
        return sum(len(s.tools) for s in self.servers)


def parse_snapshot(text: str, source: str) -> Snapshot:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(source, "", None, f"not valid JSON ({exc})", "fix the syntax") from None
    if not isinstance(data, dict):
        raise ConfigError(source, "", None, "not a JSON object", "give a tools snapshot")
    _known_keys(source, "", data, ("cyclops_tools_snapshot", "servers"))
    version = data.get("cyclops_tools_snapshot")
    if version != SNAPSHOT_VERSION:
        raise ConfigError(
            source,
            "cyclops_tools_snapshot",
            version,
            "missing or unsupported snapshot version",
            f"save the snapshot again with this cyclops (version {SNAPSHOT_VERSION})",
        )
    raw_servers = data.get("servers")
    if not isinstance(raw_servers, list):
        raise ConfigError(source, "servers", raw_servers, "not a list", "list the servers")
    servers = tuple(_server(source, f"servers[{i}]", s) for i, s in enumerate(raw_servers))
    refuse_duplicate_names(source, "servers", (s.name for s in servers), "keep one of them")
    return Snapshot(servers)


def _known_keys(source: str, where: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                source,
                f"{where}.{key}" if where else key,
                table[key],
                "unknown key",
                f"use only: {', '.join(known)}",
            )


def _server(source: str, where: str, raw: Any) -> ServerTools:
    def fail(key: str, value: object, problem: str, fix: str) -> NoReturn:
        raise ConfigError(source, f"{where}.{key}", value, problem, fix)

    if not isinstance(raw, dict):
        raise ConfigError(source, where, raw, "not a JSON object", "give name, roles and tools")
    _known_keys(source, where, raw, ("name", "roles", "tools"))
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        fail("name", name, "not a usable server name", "use letters, digits, '_', '.' or '-'")
    roles = raw.get("roles", [])
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        fail("roles", roles, "not a list of role names", "list role names from patterns.toml")
    raw_tools = raw.get("tools")
    if not isinstance(raw_tools, list):
        fail("tools", raw_tools, "missing or not a list", "list the server's tools")
    tools: list[ToolSpec] = []
    names: set[str] = set()
    for i, tool in enumerate(raw_tools):
        key = f"tools[{i}]"
        if not isinstance(tool, dict):
            fail(key, tool, "not a JSON object", "give each tool as the server listed it")
        tool_name = tool.get("name")
        if not isinstance(tool_name, str) or not tool_name:
            fail(f"{key}.name", tool_name, "missing or not a string", "give the tool's name")
        if tool_name in names:
            fail(f"{key}.name", tool_name, "duplicate tool", "keep one of them")
        names.add(tool_name)
        for part in ("annotations", "inputSchema"):
            if part in tool and not isinstance(tool[part], dict):
                fail(f"{key}.{part}", tool[part], "not a JSON object", f"fix or drop `{part}`")
        for hint in HINTS:
            value = tool.get("annotations", {}).get(hint)
            if value is not None and not isinstance(value, bool):
                fail(f"{key}.annotations.{hint}", value, "not true or false", "fix the hint")
        tools.append(ToolSpec(tool_name, MappingProxyType(tool)))
    return ServerTools(name, tuple(tools), tuple(roles))


def dump_snapshot(snapshot: Snapshot) -> str:
    """The snapshot as JSON, keys sorted, so that a saved snapshot diffs cleanly."""
    data = {
        "cyclops_tools_snapshot": SNAPSHOT_VERSION,
        "servers": [
            {"name": s.name, "roles": list(s.roles), "tools": [dict(t.raw) for t in s.tools]}
            for s in snapshot.servers
        ],
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def servers_in(snapshot: Snapshot, names: Sequence[str], source: str) -> Snapshot:
    """The snapshot's servers named in a config, in the config's order; one it lacks is an error."""
    picked = []
    for name in names:
        server = snapshot.server(name)
        if server is None:
            have = ", ".join(s.name for s in snapshot.servers) or "none"
            raise ConfigError(
                source,
                "servers",
                name,
                "the config names a server the tools snapshot lacks",
                f"save the snapshot again with --save-tools (it has: {have})",
            )
        picked.append(server)
    return Snapshot(tuple(picked))
