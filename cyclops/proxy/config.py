"""downstream.toml: the MCP servers cyclops fronts.

    [[server]]
    name = "filesystem"             # unique; tools are exposed under it on a name collision
    roles = ["filesystem"]          # roles from patterns.toml (optional: names also imply them)
    transport = "stdio"             # or "http"
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/work"]
    env = { API_KEY = "${API_KEY}" }   # ${VAR} is taken from cyclops's own environment
    cwd = "/home/me"
    timeout = 60                    # seconds one call may take (default 120)

    [[server]]
    name = "github"
    transport = "http"
    url = "https://api.example.com/mcp"
    headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }

Loading is strict: an unknown key, a missing command or URL, an unset variable or an unknown
role is an error naming the file, the key and the fix. A child process gets only the variables
its entry names (plus HOME, PATH and the like), never cyclops's whole environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from ..config import read_text
from ..core.patterns import Patterns
from ..core.tomlreader import TableReader, parse_toml, refuse_duplicate_names

__all__ = ["DownstreamConfig", "ServerConfig", "Transport", "load_downstream", "parse_downstream"]

DEFAULT_TIMEOUT = 120.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@dataclass(frozen=True)
class ServerConfig:
    name: str
    transport: Transport
    roles: tuple[str, ...] = ()
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    """Seconds one request to this server may take before it fails with a timeout."""


@dataclass(frozen=True)
class DownstreamConfig:
    source: str
    servers: tuple[ServerConfig, ...]

    def declared_roles(self) -> dict[str, tuple[str, ...]]:
        return {s.name: s.roles for s in self.servers if s.roles}


def load_downstream(
    path: Path, environ: Mapping[str, str], patterns: Patterns | None = None
) -> DownstreamConfig:
    return parse_downstream(read_text(path), str(path), environ, patterns)


def parse_downstream(
    text: str, source: str, environ: Mapping[str, str], patterns: Patterns | None = None
) -> DownstreamConfig:
    """Parse downstream.toml; ``environ`` fills ``${VAR}``; ``patterns`` checks role names."""
    data = parse_toml(text, source)
    top = TableReader(source, data)
    servers = tuple(_server(t, environ, patterns) for t in top.tables("server"))
    top.finish()
    names = (server.name for server in servers)
    refuse_duplicate_names(source, "server", names, "give every server its own name")
    return DownstreamConfig(source, servers)


def _server(t: TableReader, environ: Mapping[str, str], patterns: Patterns | None) -> ServerConfig:
    name = t.string("name")
    if not _NAME.match(name):
        t.fail(
            "name", name, "not a usable name", "use letters, digits, '_', '.' or '-' (at most 64)"
        )
    transport = Transport(t.string("transport", "stdio", choices=[x.value for x in Transport]))
    roles = t.strings("roles", ())
    if patterns is not None:
        known = [role.name for role in patterns.roles]
        for role in roles:
            if role not in known:
                t.fail(
                    "roles",
                    role,
                    "no such role in patterns.toml",
                    f"use one of: {', '.join(known)}",
                )
    timeout = t.number("timeout", DEFAULT_TIMEOUT, minimum=0.1)
    if transport is Transport.STDIO:
        server = ServerConfig(
            name=name,
            transport=transport,
            roles=roles,
            command=_expand(t, "command", t.string("command"), environ),
            args=tuple(_expand(t, "args", a, environ) for a in t.strings("args", ())),
            env=_string_table(t, "env", environ),
            cwd=_expand(t, "cwd", cwd, environ) if (cwd := t.string("cwd", None)) else None,
            timeout=timeout,
        )
        if not server.command:
            t.fail("command", "", "empty command", "name the program that starts the server")
    else:
        raw_url = t.string("url")
        url = _expand(t, "url", raw_url, environ)
        if not url.startswith(("http://", "https://")):
            # The template is shown, not the expanded value: variables may hold credentials.
            fix = "write the server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp"
            t.fail("url", raw_url, "not an http(s) URL", fix)
        server = ServerConfig(
            name=name,
            transport=transport,
            roles=roles,
            url=url,
            headers=_string_table(t, "headers", environ),
            timeout=timeout,
        )
    t.finish()
    return server


def _string_table(t: TableReader, key: str, environ: Mapping[str, str]) -> dict[str, str]:
    table = t.table(key, {})
    values = {}
    for name in table.names():
        values[name] = _expand(table, name, table.string(name), environ)
    table.finish()
    return values


def _expand(t: TableReader, key: str, value: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` from ``environ``; an unset variable is an error (naming it, not its value)."""

    def lookup(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in environ:
            t.fail(
                key,
                value,
                f"${{{variable}}} is not set",
                f"export {variable} before starting cyclops",
            )
        return environ[variable]

    return _VARIABLE.sub(lookup, value)
