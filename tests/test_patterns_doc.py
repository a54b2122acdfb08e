"""docs/patterns.md is generated from the bundled patterns and can never drift from them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cyclops.core.patterns import Patterns
from cyclops.report.patterns_doc import REGENERATE, patterns_markdown

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "patterns.md"


def test_the_committed_reference_is_exactly_what_the_bundled_patterns_generate(
    patterns: Patterns,
) -> None:
    assert DOC.read_text(encoding="utf-8") == patterns_markdown(patterns), (
        f"docs/patterns.md is stale: run {REGENERATE}"
    )


def test_the_reference_says_it_is_generated_and_how_to_regenerate_it(patterns: Patterns) -> None:
    header = patterns_markdown(patterns).splitlines()[:4]
    assert any("Generated" in line and REGENERATE in line for line in header)


def test_rendering_twice_gives_the_same_text(patterns: Patterns) -> None:
    assert patterns_markdown(patterns) == patterns_markdown(patterns)


def test_every_rule_role_and_flow_appears_in_the_reference(patterns: Patterns) -> None:
    text = patterns_markdown(patterns)
    assert all(f"| `{rule.id}` |" in text for rule in patterns.secrets)
    assert all(f"### {role.name}\n" in text for role in patterns.roles)
    assert all(f"### {rule.id}\n" in text for rule in patterns.arguments)
    assert all(f"`{flow.value}`" in text for flow in patterns.flows)


def test_the_module_prints_the_bundled_reference(patterns: Patterns) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cyclops.report.patterns_doc"],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    assert run.stdout.decode("utf-8") == patterns_markdown(patterns)
