from __future__ import annotations

from pathlib import Path

import pytest

from cyclops.config import load_patterns
from cyclops.core import ConfigError
from cyclops.proxy.config import Transport, load_downstream, parse_downstream

ROOT = Path(__file__).resolve().parents[2]
ENV = {"GITHUB_TOKEN": "ghp_x", "API_KEY": "k"}


def test_the_example_file_loads() -> None:
    config = load_downstream(ROOT / "downstream.example.toml", ENV, load_patterns())
    assert [s.name for s in config.servers] == ["filesystem", "fetch", "git", "github"]
    github = config.servers[-1]
    assert github.transport is Transport.HTTP
    assert github.headers == {"Authorization": "Bearer ghp_x"}
    assert config.declared_roles()["git"] == ("git",)


def test_variables_expand_in_env_args_and_headers() -> None:
    text = """
[[server]]
name = "a"
command = "run"
args = ["--key", "${API_KEY}"]
env = { KEY = "${API_KEY}", PLAIN = "x" }
"""
    (server,) = parse_downstream(text, "d.toml", ENV).servers
    assert server.args == ("--key", "k")
    assert server.env == {"KEY": "k", "PLAIN": "x"}
    assert server.timeout == 120


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[[server]]\nname = "a"\ncommand = "x"\ncolour = 1', "server[0].colour"),
        ('[[server]]\ncommand = "x"', "server[0].name"),
        ('[[server]]\nname = "a b"\ncommand = "x"', "server[0].name"),
        ('[[server]]\nname = "a"', "server[0].command"),
        ('[[server]]\nname = "a"\ntransport = "ws"\ncommand = "x"', "server[0].transport"),
        ('[[server]]\nname = "a"\ntransport = "http"\nurl = "ftp://x"', "server[0].url"),
        ('[[server]]\nname = "a"\ncommand = "x"\nenv = { K = "${MISSING}" }', "server[0].env.K"),
        ('[[server]]\nname = "a"\ncommand = "x"\nroles = ["nope"]', "server[0].roles"),
        ('[[server]]\nname = "a"\ncommand = "x"\ntimeout = 0', "server[0].timeout"),
        (
            '[[server]]\nname = "a"\ncommand = "x"\n[[server]]\nname = "a"\ncommand = "y"',
            "server[1].name",
        ),
        ("[server]\nname = 1", "server"),
    ],
)
def test_a_bad_entry_is_refused_with_its_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_downstream(text, "d.toml", ENV, load_patterns())
    assert caught.value.key == key
    assert caught.value.source == "d.toml"


def test_an_error_never_shows_an_expanded_secret() -> None:
    text = '[[server]]\nname = "a"\ntransport = "http"\nurl = "${API_KEY}"'
    with pytest.raises(ConfigError) as caught:
        parse_downstream(text, "d.toml", {"API_KEY": "s3cret-value"})
    assert "s3cret-value" not in str(caught.value)


def test_a_variable_in_cwd_is_expanded_from_cyclops_environment(tmp_path: Path) -> None:
    path = tmp_path / "downstream.toml"
    path.write_text('[[server]]\nname = "a"\ncommand = "x"\ncwd = "${BASE}/work"\n')
    config = load_downstream(path, {"BASE": "/srv"}, load_patterns())
    assert config.servers[0].cwd == "/srv/work"
