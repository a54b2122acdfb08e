"""Reading the servers of a Claude Desktop, Cursor or VS Code config."""

from __future__ import annotations

import pytest
from scan_hosts import CLAUDE, CONFIGS, CURSOR, VSCODE

from cyclops.core.tomlreader import ConfigError
from cyclops.proxy.config import Transport
from cyclops.scan.hostconfig import HostFormat, detect_format, parse_host_config, resolve_for_start


@pytest.mark.parametrize(
    ("name", "host"),
    [("claude", HostFormat.CLAUDE), ("cursor", HostFormat.CURSOR), ("vscode", HostFormat.VSCODE)],
)
def test_the_format_is_told_by_file_name_and_keys(name: str, host: HostFormat) -> None:
    path, text = CONFIGS[name]
    assert detect_format(path, text) is host


def test_every_server_of_each_format_is_read() -> None:
    claude = parse_host_config(CLAUDE, "c.json", HostFormat.CLAUDE)
    assert [(s.key, s.name, s.transport) for s in claude.servers] == [
        ("filesystem", "filesystem", Transport.STDIO),
        ("My GitHub", "My-GitHub", Transport.STDIO),
    ]
    cursor = parse_host_config(CURSOR, "m.json", HostFormat.CURSOR)
    assert [(s.name, s.transport) for s in cursor.servers] == [
        ("linear", Transport.HTTP),
        ("notes", Transport.STDIO),
    ]
    vscode = parse_host_config(VSCODE, "m.json", HostFormat.VSCODE)
    assert [(s.name, s.transport) for s in vscode.servers] == [
        ("fetch", Transport.STDIO),
        ("remote", Transport.HTTP),
    ]


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        pytest.param('{"url": "https://x/sse", "type": "sse"}', "mcpServers.s.type", id="sse"),
        pytest.param('{"command": "x", "envFile": ".env"}', "mcpServers.s.envFile", id="envFile"),
        pytest.param('{"command": "x", "url": "https://x"}', "mcpServers.s.url", id="both"),
        pytest.param('{"args": ["x"]}', "mcpServers.s.command", id="no command"),
        pytest.param('{"command": "x", "args": [1]}', "mcpServers.s.args", id="number arg"),
        pytest.param('{"command": "x", "env": {"A": 1}}', "mcpServers.s.env", id="number env"),
        pytest.param('"npx"', "mcpServers.s", id="not an object"),
    ],
)
def test_an_entry_cyclops_cannot_carry_is_refused_naming_the_key(entry: str, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host_config(f'{{"mcpServers": {{"s": {entry}}}}}', "m.json", HostFormat.CURSOR)
    assert (error.value.source, error.value.key) == ("m.json", key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param('{"servers": {}}', "mcpServers", id="a VS Code file read as Cursor"),
        pytest.param("{", "", id="broken JSON"),
        pytest.param('{"mcpServers": []}', "mcpServers", id="servers not an object"),
    ],
)
def test_a_config_without_usable_servers_is_refused(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host_config(text, "m.json", HostFormat.CURSOR)
    assert error.value.key == key


def test_names_downstream_toml_refuses_become_usable_and_unique() -> None:
    text = (
        '{"mcpServers": {"a b": {"command": "x"}, "a-b": {"command": "y"}, "--": {"command": "z"}}}'
    )
    config = parse_host_config(text, "m.json", HostFormat.CURSOR)
    assert [s.name for s in config.servers] == ["a-b", "a-b-2", "server"]


def test_a_live_scan_resolves_the_variables_the_host_would() -> None:
    cursor = parse_host_config(
        CURSOR.replace('"--root", "${workspaceFolder}"', '"--root", "/w"'),
        "m.json",
        HostFormat.CURSOR,
    )
    linear, notes = resolve_for_start(cursor, {"LINEAR_TOKEN": "t1", "NOTES_KEY": "k"}, "/home/me")
    assert linear.headers == {"Authorization": "Bearer t1"}
    assert (notes.command, notes.args, dict(notes.env)) == (
        "/home/me/bin/notes-mcp",
        ("--root", "/w"),
        {"NOTES_KEY": "k"},
    )


def test_claude_desktop_expands_nothing_so_neither_does_the_scan() -> None:
    claude = parse_host_config(CLAUDE, "c.json", HostFormat.CLAUDE)
    github = resolve_for_start(claude, {}, "/home/me")[1]
    assert github.env["NOTE"] == "café ${NOT_EXPANDED}"


@pytest.mark.parametrize(
    ("environ", "key"),
    [
        pytest.param({"NOTES_KEY": "k"}, "mcpServers.linear.headers.Authorization", id="unset env"),
        pytest.param(
            {"NOTES_KEY": "k", "LINEAR_TOKEN": "t"}, "mcpServers.notes.args", id="workspace"
        ),
    ],
)
def test_a_variable_the_scan_cannot_resolve_is_an_error_naming_the_key(
    environ: dict[str, str], key: str
) -> None:
    cursor = parse_host_config(CURSOR, "m.json", HostFormat.CURSOR)
    with pytest.raises(ConfigError) as error:
        resolve_for_start(cursor, environ, "/home/me")
    assert error.value.key == key
