"""Declared tasks: server/tool globs that must match what was scanned."""

from __future__ import annotations

import pytest

from cyclops.core.tomlreader import ConfigError
from cyclops.core.types import Capability
from cyclops.scan.tasks import DEFAULT_WEIGHT, parse_tasks

TOOLS = [
    Capability("mail", "read_email"),
    Capability("mail", "send_email"),
    Capability("fs", "read_file"),
]


def test_a_task_needs_every_tool_its_globs_match() -> None:
    text = (
        '[[task]]\nname = "triage"\ntools = ["mail/*", "FS/read_file"]\n\n'
        '[[task]]\nname = "b"\ntools = ["fs/*"]\nweight = 3\n'
    )
    first, second = parse_tasks(text, "tasks.toml", TOOLS)
    assert (first.name, first.needs, first.weight) == ("triage", frozenset(TOOLS), DEFAULT_WEIGHT)
    assert (second.needs, second.weight) == (frozenset({Capability("fs", "read_file")}), 3)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param('[[task]]\nname = "a"\ntools = ["mail"]\n', "task[0].tools", id="no slash"),
        pytest.param(
            '[[task]]\nname = "a"\ntools = ["mail/reed_*"]\n', "task[0].tools", id="matches nothing"
        ),
        pytest.param(
            '[[task]]\nname = "a"\ntools = ["mail/*"]\ncolour = 1\n',
            "task[0].colour",
            id="unknown key",
        ),
        pytest.param(
            '[[task]]\nname = "a"\ntools = ["mail/*"]\nweight = -1\n',
            "task[0].weight",
            id="negative",
        ),
        pytest.param(
            '[[task]]\nname = "a"\ntools = ["mail/*"]\n[[task]]\nname = "a"\ntools = ["fs/*"]\n',
            "task[1].name",
            id="duplicate",
        ),
        pytest.param('[[tasks]]\nname = "a"\n', "tasks", id="misspelt table"),
    ],
)
def test_a_bad_tasks_file_is_refused_naming_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_tasks(text, "tasks.toml", TOOLS)
    assert (error.value.source, error.value.key) == ("tasks.toml", key)
