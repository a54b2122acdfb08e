"""cyclops wrap: the host's servers move behind cyclops, faithfully, and --undo restores the
original byte for byte."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest
from scan_hosts import CONFIGS

from cyclops.core.tomlreader import ConfigError
from cyclops.proxy.config import ServerConfig, parse_downstream
from cyclops.scan.hostconfig import HOST_VARIABLE, HostFormat, parse_host_config
from cyclops.scan.jsonc import blank_comments, top_members
from cyclops.scan.wrap import Refusal, WrapError, backup_path, undo, wrap

FORMATS = sorted(CONFIGS)


def place(tmp_path: Path, name: str) -> Path:
    relative, text = CONFIGS[name]
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    path.chmod(0o640)
    return path


@pytest.mark.parametrize("name", FORMATS)
def test_undo_restores_the_original_byte_for_byte_and_cleans_up(tmp_path: Path, name: str) -> None:
    config = place(tmp_path, name)
    original = config.read_bytes()
    _, downstream = wrap(config)
    assert config.read_bytes() != original
    assert backup_path(config).read_bytes() == original
    outcome = undo(config)
    assert config.read_bytes() == original
    assert outcome.downstream_removed
    assert not backup_path(config).exists()
    assert not downstream.exists()
    assert stat.S_IMODE(config.stat().st_mode) == 0o640


@pytest.mark.parametrize("name", FORMATS)
def test_only_the_servers_object_changes_and_one_cyclops_entry_replaces_it(
    tmp_path: Path, name: str
) -> None:
    config = place(tmp_path, name)
    original = config.read_text(encoding="utf-8")
    _, downstream = wrap(config, host=None)
    wrapped = config.read_text(encoding="utf-8")
    key = "servers" if name == "vscode" else "mcpServers"
    before = {m.key: m for m in top_members(blank_comments(original))}
    after = {m.key: m for m in top_members(blank_comments(wrapped))}
    assert list(before) == list(after)
    assert wrapped[: after[key].value_start] == original[: before[key].value_start]
    assert wrapped[after[key].value_end :] == original[before[key].value_end :]
    entry = after[key].value["cyclops"]
    assert list(after[key].value) == ["cyclops"]
    assert entry["command"] == "cyclops"
    assert entry["args"] == ["serve", "--downstream", str(downstream)]
    assert ("\r\n" in wrapped) == ("\r\n" in original)
    assert stat.S_IMODE(downstream.stat().st_mode) == 0o600


def host_resolves(host: HostFormat, text: str) -> str:
    """What the host makes of a value: Cursor and VS Code resolve variables, Claude does not."""
    if host is HostFormat.CLAUDE:
        return text
    return HOST_VARIABLE.sub(lambda m: f"<{m.group(1)}>", text)


def as_started(server: ServerConfig) -> tuple[object, ...]:
    return (
        server.name,
        server.transport,
        server.command,
        server.args,
        dict(server.env),
        server.cwd,
        server.url,
        dict(server.headers),
    )


@pytest.mark.parametrize("name", FORMATS)
def test_every_server_gets_exactly_the_values_the_host_would_have_given_it(
    tmp_path: Path, name: str
) -> None:
    config = place(tmp_path, name)
    host = parse_host_config(config.read_text(encoding="utf-8"), str(config), HostFormat(name))
    plan, downstream = wrap(config)
    # The host resolves the cyclops entry's env, cyclops reads downstream.toml with it.
    environ = {
        var: host_resolves(host.format, expression) for var, expression in plan.handed_over.items()
    }
    loaded = parse_downstream(downstream.read_text(encoding="utf-8"), str(downstream), environ)
    expected = [
        ServerConfig(
            name=s.name,
            transport=s.transport,
            command=host_resolves(host.format, s.command),
            args=tuple(host_resolves(host.format, a) for a in s.args),
            env={k: host_resolves(host.format, v) for k, v in s.env.items()},
            cwd=s.cwd,
            url=host_resolves(host.format, s.url),
            headers={k: host_resolves(host.format, v) for k, v in s.headers.items()},
        )
        for s in host.servers
    ]
    assert [as_started(s) for s in loaded.servers] == [as_started(s) for s in expected]


def test_host_variables_ride_in_the_cyclops_entry_env(tmp_path: Path) -> None:
    config = place(tmp_path, "vscode")
    plan, _ = wrap(config)
    assert plan.handed_over == {"CYCLOPS_HOST_INPUT_API_KEY": "${input:api-key}"}
    entry = top_members(blank_comments(config.read_text()))[1].value["cyclops"]
    assert entry["type"] == "stdio"
    assert entry["env"] == plan.handed_over


def test_a_host_config_already_behind_cyclops_is_not_wrapped_again(tmp_path: Path) -> None:
    config = place(tmp_path, "claude")
    wrap(config)
    backup_path(config).unlink()
    with pytest.raises(WrapError) as error:
        wrap(config, tmp_path / "other.toml")
    assert error.value.refusal is Refusal.ALREADY_WRAPPED


@pytest.mark.parametrize(
    ("prepare", "refusal"),
    [
        pytest.param(
            lambda c: backup_path(c).write_text("old"), Refusal.BACKUP_EXISTS, id="backup"
        ),
        pytest.param(
            lambda c: c.with_name("claude_desktop_config.downstream.toml").write_text(""),
            Refusal.DOWNSTREAM_EXISTS,
            id="downstream.toml",
        ),
        pytest.param(
            lambda c: c.write_text('{"mcpServers": {}}'), Refusal.NOTHING_TO_WRAP, id="no servers"
        ),
    ],
)
def test_wrap_refuses_rather_than_overwrite_or_guess(
    tmp_path: Path, prepare: object, refusal: Refusal
) -> None:
    config = place(tmp_path, "claude")
    prepare(config)  # type: ignore[operator]
    before = config.read_bytes()
    with pytest.raises(WrapError) as error:
        wrap(config)
    assert error.value.refusal is refusal
    assert config.read_bytes() == before


def test_a_host_variable_in_cwd_is_handed_over_like_one_in_args(tmp_path: Path) -> None:
    config = place(tmp_path, "claude")
    config.write_text('{"mcpServers": {"s": {"command": "x", "cwd": "${HOME}/work"}}}')
    plan, _ = wrap(config)
    assert plan.handed_over == {"CYCLOPS_HOST_HOME": "${HOME}"}
    assert 'cwd = "${CYCLOPS_HOST_HOME}/work"' in plan.downstream_text


def test_undo_refuses_to_lose_a_later_change_unless_forced(tmp_path: Path) -> None:
    config = place(tmp_path, "cursor")
    original = config.read_bytes()
    wrap(config)
    config.write_bytes(config.read_bytes().replace(b'"other"', b'"changed"'))
    with pytest.raises(WrapError) as error:
        undo(config)
    assert error.value.refusal is Refusal.CHANGED_SINCE_WRAP
    undo(config, force=True)
    assert config.read_bytes() == original


def test_undo_keeps_a_downstream_toml_someone_edited(tmp_path: Path) -> None:
    config = place(tmp_path, "claude")
    _, downstream = wrap(config)
    downstream.write_text(downstream.read_text() + "\n# mine\n")
    outcome = undo(config)
    assert not outcome.downstream_removed
    assert downstream.exists()


def test_undo_of_a_config_never_wrapped_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WrapError) as error:
        undo(place(tmp_path, "claude"))
    assert error.value.refusal is Refusal.NOT_WRAPPED


def test_serve_options_and_the_command_are_carried_and_undone(tmp_path: Path) -> None:
    config = place(tmp_path, "cursor")
    original = config.read_bytes()
    wrap(config, command="/opt/cyclops/bin/cyclops", serve_args=("--mode", "prevent"))
    assert re.search(r'"--mode",\s+"prevent"', config.read_text())
    undo(config)
    assert config.read_bytes() == original


def test_a_config_error_names_the_file(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"s": {"type": "sse", "url": "https://x"}}}')
    with pytest.raises(ConfigError) as error:
        wrap(config)
    assert (error.value.source, error.value.key) == (str(config), "mcpServers.s.type")
    assert not backup_path(config).exists()
