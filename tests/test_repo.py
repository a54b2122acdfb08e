"""The repository keeps its promises to a newcomer: CI runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [b.strip() for b in blocks]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = next(c for c in readme_commands() if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci


def test_ci_also_runs_the_linters() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "ruff check" in ci
    assert "mypy" in ci


def test_every_module_is_named_in_the_architecture_document() -> None:
    document = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`(?:[\w/]+/)?(\w+\.py)`", document))
    modules = {
        path.name
        for path in (ROOT / "cyclops").rglob("*.py")
        if path.name not in {"__init__.py", "__main__.py"}
    }
    assert sorted(modules - named) == []
