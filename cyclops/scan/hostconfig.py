"""The MCP servers a host runs, read from its own config file.

Three formats, all JSON (VS Code's may hold comments and trailing commas):

- Claude Desktop ``claude_desktop_config.json`` and Cursor ``mcp.json``: ``{"mcpServers": {NAME:
  ENTRY}}``;
- VS Code ``mcp.json``: ``{"servers": {NAME: ENTRY}, "inputs": [...]}``.

An entry is a stdio server (``command``, ``args``, ``env``, ``cwd``) or a Streamable HTTP one
(``url``, ``headers``), with an optional ``type`` (``stdio``, ``http``; ``sse`` is refused: cyclops
does not speak the deprecated SSE transport). Any other key (``envFile``, ``disabled``...) is an
error naming the file, the key, the value and the fix: cyclops cannot carry what it does not
understand. A host name that downstream.toml would refuse becomes a usable one (``My Server`` →
``My-Server``).

Host variables (``${env:NAME}``, ``${input:ID}``, ``${workspaceFolder}``, ``${userHome}``...) are
the host's to resolve: Cursor and VS Code do; Claude Desktop leaves text as written. Pure: text in.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath
from typing import Any

from ..core.tomlreader import ConfigError
from ..proxy.config import ServerConfig, Transport
from .jsonc import JsoncError, blank_comments, top_members
from .snapshot import NAME

__all__ = [
    "CYCLOPS_ENTRY",
    "HOST_VARIABLE",
    "HostConfig",
    "HostFormat",
    "HostServer",
    "cyclops_entry_downstream",
    "detect_format",
    "parse_host_config",
    "resolve_for_start",
]

HOST_VARIABLE = re.compile(r"\$\{([^}]*)\}")
CYCLOPS_ENTRY = "cyclops"
_KEYS = ("type", "command", "args", "env", "cwd", "url", "headers")
_TYPES = {"stdio": Transport.STDIO, "http": Transport.HTTP, "streamable-http": Transport.HTTP}


class HostFormat(StrEnum):
    CLAUDE = "claude"
    CURSOR = "cursor"
    VSCODE = "vscode"

    @property
    def servers_key(self) -> str:
        return "servers" if self is HostFormat.VSCODE else "mcpServers"

    @property
    def expands_variables(self) -> bool:
        return self is not HostFormat.CLAUDE


@dataclass(frozen=True)
class HostServer:
    key: str
    """The server's name in the host config."""
    name: str
    """Its name for cyclops (downstream.toml): ``key`` made usable and unique."""
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HostConfig:
    source: str
    text: str
    format: HostFormat
    servers: tuple[HostServer, ...]
    value_start: int
    """Where the servers object starts in ``text`` (it ends at ``value_end``)."""
    value_end: int
    key_start: int


def detect_format(file_name: str, text: str) -> HostFormat:
    """Claude Desktop by its file name, VS Code by its ``servers`` key, Cursor otherwise."""
    if PurePath(file_name).name == "claude_desktop_config.json":
        return HostFormat.CLAUDE
    try:
        keys = {m.key for m in top_members(blank_comments(text))}
    except JsoncError:
        return HostFormat.CURSOR  # parse_host_config reports the syntax error
    if "servers" in keys and "mcpServers" not in keys:
        return HostFormat.VSCODE
    return HostFormat.CURSOR


def parse_host_config(text: str, source: str, host: HostFormat) -> HostConfig:
    try:
        members = top_members(blank_comments(text))
    except JsoncError as exc:
        raise ConfigError(source, "", None, f"not valid JSON ({exc})", "fix the syntax") from None
    key = host.servers_key
    found = [m for m in members if m.key == key]
    if not found:
        other = "servers" if key == "mcpServers" else "mcpServers"
        fix = (
            f"this looks like a {other!r} file: pass --format"
            if any(m.key == other for m in members)
            else f"add the servers under {key!r}"
        )
        raise ConfigError(source, key, None, "missing", fix)
    if len(found) > 1:
        raise ConfigError(source, key, None, "given twice", "keep one")
    member = found[0]
    if not isinstance(member.value, dict):
        raise ConfigError(source, key, member.value, "not a JSON object", "map names to servers")
    servers: list[HostServer] = []
    taken: set[str] = set()
    for name, entry in member.value.items():
        server = _server(source, f"{key}.{name}", name, entry, taken)
        taken.add(server.name)
        servers.append(server)
    return HostConfig(
        source=source,
        text=text,
        format=host,
        servers=tuple(servers),
        value_start=member.value_start,
        value_end=member.value_end,
        key_start=member.key_start,
    )


def _server(source: str, where: str, key: str, entry: Any, taken: set[str]) -> HostServer:
    def fail(part: str, value: object, problem: str, fix: str) -> ConfigError:
        return ConfigError(source, f"{where}.{part}" if part else where, value, problem, fix)

    if not isinstance(entry, dict):
        raise fail("", entry, "not a JSON object", "give command and args, or url")
    for part in entry:
        if part not in _KEYS:
            raise fail(
                part,
                entry[part],
                "cyclops cannot carry this key",
                f"remove it (cyclops understands: {', '.join(_KEYS)})",
            )
    kind = entry.get("type")
    if kind is not None and kind not in _TYPES:
        fix = (
            'serve it over Streamable HTTP (type "http") or leave it out'
            if kind == "sse"
            else f"use one of: {', '.join(_TYPES)}"
        )
        raise fail("type", kind, "a transport cyclops does not speak", fix)
    if "command" in entry and "url" in entry:
        raise fail("url", entry["url"], "both command and url", "keep one of them")
    transport = _TYPES[kind] if kind else (Transport.HTTP if "url" in entry else Transport.STDIO)
    name = _usable_name(key, taken)
    if transport is Transport.HTTP:
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise fail("url", url, "missing or not a string", "give the server's MCP endpoint")
        return HostServer(key, name, transport, url=url, headers=_strings(entry, "headers", fail))
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise fail("command", command, "missing or not a string", "name the program to start")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise fail("args", args, "not a list of strings", "quote every argument")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise fail("cwd", cwd, "not a string", "give a directory")
    return HostServer(
        key,
        name,
        transport,
        command=command,
        args=tuple(args),
        env=_strings(entry, "env", fail),
        cwd=cwd,
    )


def _strings(entry: Mapping[str, Any], part: str, fail: Any) -> dict[str, str]:
    value = entry.get(part, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise fail(part, value, "not an object of strings", "quote every value")
    return dict(value)


def _usable_name(key: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", key).strip("-_.")[:60] or "server"
    name, n = base, 2
    while name in taken or not NAME.match(name):
        name = f"{base}-{n}"
        n += 1
    return name


def cyclops_entry_downstream(entry: Any) -> tuple[str, str, tuple[str, ...]] | None:
    """For an entry that runs ``cyclops serve --downstream PATH ...``: (command, PATH, the rest)."""
    if not isinstance(entry, dict):
        return None
    command, args = entry.get("command"), entry.get("args")
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    program = PurePath(command.replace("\\", "/")).name.lower().removesuffix(".exe")
    if program != "cyclops" or args[:2] != ["serve", "--downstream"] or len(args) < 3:
        return None
    if not all(isinstance(a, str) for a in args):
        return None
    return command, args[2], tuple(args[3:])


# -- starting a host's servers ourselves (a live scan) ---------------------------------------------


def resolve_for_start(
    config: HostConfig, environ: Mapping[str, str], home: str
) -> tuple[ServerConfig, ...]:
    """The host's servers as cyclops would start them, host variables resolved as the host would
    resolve them where that can be known; a workspace folder or an input prompt cannot be."""
    return tuple(_resolved(config, s, environ, home) for s in config.servers)


def _resolved(
    config: HostConfig, server: HostServer, environ: Mapping[str, str], home: str
) -> ServerConfig:
    where = f"{config.format.servers_key}.{server.key}"

    def value(part: str, text: str) -> str:
        if not config.format.expands_variables:
            return text

        def one(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("env:"):
                name = expression[4:]
                if name not in environ:
                    raise ConfigError(
                        config.source,
                        f"{where}.{part}",
                        text,
                        f"${{env:{name}}} is not set",
                        f"export {name} before scanning",
                    )
                return environ[name]
            if expression == "userHome":
                return home
            if expression in ("pathSeparator", "/"):
                return os.sep
            raise ConfigError(
                config.source,
                f"{where}.{part}",
                text,
                f"cyclops scan cannot know what the host puts for ${{{expression}}}",
                "write the value itself, or scan a saved tools snapshot (--tools)",
            )

        return HOST_VARIABLE.sub(one, text)

    if server.transport is Transport.HTTP:
        return ServerConfig(
            name=server.name,
            transport=server.transport,
            url=value("url", server.url),
            headers={k: value(f"headers.{k}", v) for k, v in server.headers.items()},
        )
    return ServerConfig(
        name=server.name,
        transport=server.transport,
        command=value("command", server.command),
        args=tuple(value("args", a) for a in server.args),
        env={k: value(f"env.{k}", v) for k, v in server.env.items()},
        cwd=value("cwd", server.cwd) if server.cwd is not None else None,
    )


def entries(config: HostConfig) -> dict[str, Any]:
    """The raw servers object of the host config."""
    value = json.loads(blank_comments(config.text)[config.value_start : config.value_end])
    return value if isinstance(value, dict) else {}
