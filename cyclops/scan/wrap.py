"""``cyclops wrap CONFIG``: put a host's MCP servers behind cyclops, and ``--undo`` it.

Wrapping moves every server entry of a Claude Desktop, Cursor or VS Code config into a generated
downstream.toml and puts one entry in their place::

    "cyclops": {"command": "cyclops", "args": ["serve", "--downstream", "/abs/path.toml"]}

Rules:

1. Only the servers object changes; every other byte of the host config — other keys, their
   order, comments, line endings — stays as it was. The original is copied byte for byte to
   ``CONFIG.cyclops-backup`` first, and ``--undo`` puts those bytes back.
2. Values are copied faithfully. A host variable (``${env:TOKEN}``, ``${input:key}``,
   ``${workspaceFolder}``, or any other ``${...}``) stays the host's to resolve: it moves into the
   cyclops entry's ``env`` as ``CYCLOPS_HOST_<NAME>``, and downstream.toml reads
   ``${CYCLOPS_HOST_<NAME>}`` from cyclops's environment — so each server gets exactly the value
   the host would have given it (in ``command``, ``args``, ``env``, ``cwd``, ``url`` and
   ``headers``). The file is written with mode 0600 (it may hold the env's secrets).
3. A config that already runs ``cyclops serve`` is not wrapped again; a leftover backup is never
   overwritten.
4. Undo refuses when the host config changed since wrapping (it would lose the change) unless
   forced; it removes the backup, and the generated downstream.toml if nobody edited it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import tomli_w

from ..atomicfile import write_atomic
from ..core.tomlreader import ConfigError
from ..proxy.config import Transport, parse_downstream
from .hostconfig import (
    CYCLOPS_ENTRY,
    HOST_VARIABLE,
    HostConfig,
    HostFormat,
    HostServer,
    cyclops_entry_downstream,
    detect_format,
    entries,
    parse_host_config,
)
from .jsonc import indent_unit, line_indent

__all__ = [
    "BACKUP_SUFFIX",
    "Refusal",
    "UndoOutcome",
    "Unexpanded",
    "WrapError",
    "WrapPlan",
    "backup_path",
    "default_downstream_path",
    "plan_wrap",
    "undo",
    "wrap",
]

BACKUP_SUFFIX = ".cyclops-backup"
VARIABLE_PREFIX = "CYCLOPS_HOST_"


class Refusal(StrEnum):
    ALREADY_WRAPPED = "already_wrapped"
    NOTHING_TO_WRAP = "nothing_to_wrap"
    BACKUP_EXISTS = "backup_exists"
    DOWNSTREAM_EXISTS = "downstream_exists"
    NOT_WRAPPED = "not_wrapped"
    NO_CYCLOPS_ENTRY = "no_cyclops_entry"
    CHANGED_SINCE_WRAP = "changed_since_wrap"


class WrapError(ConfigError):
    """A wrap or undo that cyclops refuses; ``refusal`` says which."""

    def __init__(
        self, source: str, key: str, value: object, problem: str, fix: str, *, refusal: Refusal
    ) -> None:
        super().__init__(source, key, value, problem, fix)
        self.refusal = refusal


class Unexpanded(Mapping[str, str]):
    """An environment in which every ``${VAR}`` is set to itself: downstream.toml loads without
    anything expanded (to check a generated file, or to read names and roles only)."""

    def __getitem__(self, key: str) -> str:
        return "${" + key + "}"

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str)

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0


@dataclass(frozen=True)
class WrapPlan:
    config_text: str
    """The host config with the cyclops entry in place of its servers."""
    downstream_text: str
    handed_over: Mapping[str, str]
    """Host variables handed to cyclops through its entry's env: variable → host expression."""
    servers: tuple[HostServer, ...]


def backup_path(config: Path) -> Path:
    return config.with_name(config.name + BACKUP_SUFFIX)


def default_downstream_path(config: Path) -> Path:
    return config.with_name(f"{config.stem}.downstream.toml")


# -- the plan (pure) -------------------------------------------------------------------------------


def plan_wrap(
    host: HostConfig,
    downstream: Path,
    command: str = "cyclops",
    serve_args: Sequence[str] = (),
) -> WrapPlan:
    for key, raw in entries(host).items():
        if cyclops_entry_downstream(raw) is not None:
            raise WrapError(
                host.source,
                f"{host.format.servers_key}.{key}",
                raw.get("command"),
                "this host already runs its servers behind cyclops",
                "nothing to do (cyclops wrap --undo restores the original)",
                refusal=Refusal.ALREADY_WRAPPED,
            )
    if not host.servers:
        raise WrapError(
            host.source,
            host.format.servers_key,
            {},
            "no servers to wrap",
            "add a server first",
            refusal=Refusal.NOTHING_TO_WRAP,
        )
    handed: dict[str, str] = {}
    tables = [_table(server, handed) for server in host.servers]
    downstream_text = _downstream_text(host, tables, downstream)
    parse_downstream(downstream_text, str(downstream), Unexpanded())  # it must load as written
    entry: dict[str, Any] = {"type": "stdio"} if host.format is HostFormat.VSCODE else {}
    entry["command"] = command
    entry["args"] = ["serve", "--downstream", str(downstream), *serve_args]
    if handed:
        entry["env"] = dict(sorted(handed.items()))
    value = _json_value(host, {CYCLOPS_ENTRY: entry})
    text = host.text[: host.value_start] + value + host.text[host.value_end :]
    return WrapPlan(text, downstream_text, handed, host.servers)


def _table(server: HostServer, handed: dict[str, str]) -> dict[str, Any]:
    def carry(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            expression = match.group(0)
            variable = _variable_name(match.group(1), expression, handed)
            handed[variable] = expression
            return "${" + variable + "}"

        return HOST_VARIABLE.sub(one, text)

    table: dict[str, Any] = {"name": server.name, "transport": server.transport.value}
    if server.transport is Transport.HTTP:
        table["url"] = carry(server.url)
        if server.headers:
            table["headers"] = {k: carry(v) for k, v in server.headers.items()}
        return table
    table["command"] = carry(server.command)
    if server.args:
        table["args"] = [carry(a) for a in server.args]
    if server.env:
        table["env"] = {k: carry(v) for k, v in server.env.items()}
    if server.cwd is not None:
        table["cwd"] = carry(server.cwd)
    return table


def _variable_name(expression: str, whole: str, handed: Mapping[str, str]) -> str:
    base = VARIABLE_PREFIX + (re.sub(r"[^A-Za-z0-9]+", "_", expression).strip("_").upper() or "VAR")
    name, n = base, 2
    while name in handed and handed[name] != whole:
        name = f"{base}_{n}"
        n += 1
    return name


def _downstream_text(host: HostConfig, tables: list[dict[str, Any]], downstream: Path) -> str:
    config = Path(host.source)
    lines = [
        f"# Generated by `cyclops wrap` from {config} ({host.format.value}).",
        "# Undo (restores that file from its .cyclops-backup and removes this one):",
        f"#   cyclops wrap --undo {config}",
        "# ${CYCLOPS_HOST_*} values come from the host, through the cyclops entry's env, so the",
        "# host still resolves its own variables.",
    ]
    for server, table in zip(host.servers, tables, strict=True):
        lines.append("")
        if server.key != server.name:
            lines.append(f"# host name: {json.dumps(server.key, ensure_ascii=False)}")
        lines.append(tomli_w.dumps({"server": [table]}).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _json_value(host: HostConfig, value: dict[str, Any]) -> str:
    text = host.text
    newline = "\r\n" if "\r\n" in text else "\n"
    base = line_indent(text, host.key_start)
    unit = indent_unit(text, host.value_start, host.value_end, base)
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    dumped = json.dumps(value, indent=unit, ensure_ascii=False)
    return dumped.replace("\n", newline + base)


# -- doing it (files) ------------------------------------------------------------------------------


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), "", None, "file not found", "check the path") from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), "", None, "not UTF-8 text", "save it as UTF-8") from None


def _load(path: Path, host: HostFormat | None) -> HostConfig:
    text = _read(path)
    return parse_host_config(text, str(path), host or detect_format(path.name, text))


def wrap(
    config: Path,
    downstream: Path | None = None,
    *,
    host: HostFormat | None = None,
    command: str = "cyclops",
    serve_args: Sequence[str] = (),
) -> tuple[WrapPlan, Path]:
    """Rule 1–3: write the backup, downstream.toml and the new host config, in that order."""
    config = config.absolute()
    target = (downstream or default_downstream_path(config)).absolute()
    parsed = _load(config, host)
    plan = plan_wrap(parsed, target, command, serve_args)
    backup = backup_path(config)
    if backup.exists():
        raise WrapError(
            str(config),
            "",
            None,
            f"a backup is already at {backup}",
            "run cyclops wrap --undo first, or move the backup away",
            refusal=Refusal.BACKUP_EXISTS,
        )
    if not target.parent.is_dir():
        raise ConfigError(
            str(target), "", None, "its directory does not exist", "create it, or give another path"
        )
    if target.exists():
        raise WrapError(
            str(target),
            "",
            None,
            "already exists",
            "give another --downstream path, or move it",
            refusal=Refusal.DOWNSTREAM_EXISTS,
        )
    original = config.read_bytes()
    with open(backup, "xb") as handle:
        handle.write(original)
    os.chmod(backup, config.stat().st_mode & 0o7777)
    write_atomic(target, plan.downstream_text.encode("utf-8"), mode=0o600, durable=True)
    mode = config.stat().st_mode & 0o7777
    write_atomic(config, plan.config_text.encode("utf-8"), mode=mode, durable=True)
    return plan, target


@dataclass(frozen=True)
class UndoOutcome:
    restored: Path
    downstream: Path
    downstream_removed: bool
    """False when downstream.toml was edited after wrapping (it is kept) or is gone."""


def undo(config: Path, *, host: HostFormat | None = None, force: bool = False) -> UndoOutcome:
    """Rule 4."""
    config = config.absolute()
    backup = backup_path(config)
    if not backup.exists():
        raise WrapError(
            str(config),
            "",
            None,
            f"no backup at {backup}",
            "nothing to undo: it is not wrapped",
            refusal=Refusal.NOT_WRAPPED,
        )
    current = _load(config, host)
    found = [c for e in entries(current).values() if (c := cyclops_entry_downstream(e)) is not None]
    if len(found) != 1:
        raise WrapError(
            str(config),
            current.format.servers_key,
            None,
            "no single `cyclops serve --downstream` entry",
            f"restore it by hand from {backup}",
            refusal=Refusal.NO_CYCLOPS_ENTRY,
        )
    command, downstream_arg, serve_args = found[0]
    downstream = Path(downstream_arg)
    original_bytes = backup.read_bytes()
    original = parse_host_config(original_bytes.decode("utf-8"), str(config), current.format)
    expected = plan_wrap(original, downstream, command, serve_args)
    if expected.config_text != current.text and not force:
        raise WrapError(
            str(config),
            "",
            None,
            "changed since it was wrapped (undo would lose that change)",
            f"restore it by hand from {backup}, or pass --force",
            refusal=Refusal.CHANGED_SINCE_WRAP,
        )
    mode = config.stat().st_mode & 0o7777
    write_atomic(config, original_bytes, mode=mode, durable=True)
    backup.unlink()
    removed = False
    if downstream.exists() and downstream.read_bytes() == expected.downstream_text.encode("utf-8"):
        downstream.unlink()
        removed = True
    return UndoOutcome(config, downstream, removed)
