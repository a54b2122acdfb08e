"""The secret rules' section of the patterns reference (see :mod:`.patterns_doc`)."""

from __future__ import annotations

from ..core.checks import CHECKS, Check
from ..core.rules import Patterns, SecretRule
from . import markdown as md

__all__ = ["check_name", "secrets_section"]

_CHECK_NAMES: dict[Check, str] = {check: name for name, check in CHECKS.items()}


def check_name(check: Check | None) -> str:
    """The name patterns.toml gives ``check`` (``luhn``), or none."""
    if check is None:
        return ""
    return _CHECK_NAMES.get(check, getattr(check, "__name__", "custom"))


def _secret(number: int, rule: SecretRule, action: str) -> tuple[str, ...]:
    return (
        str(number),
        f"`{rule.id}`",
        action,
        md.cell(rule.description),
        md.codes(rule.keywords, in_table=True, empty="(always runs)"),
        md.number(rule.min_entropy) if rule.min_entropy else "",
        check_name(rule.check),
        md.codes(rule.hosts.patterns if rule.hosts else (), in_table=True, empty=""),
        md.codes(sorted(rule.services), in_table=True, empty="") if rule.hosts else "",
    )


def secrets_section(patterns: Patterns) -> list[str]:
    header = (
        *("#", "id", "action", "description", "keywords", "min entropy", "check", "hosts"),
        "services",
    )
    act = patterns.controls.action_for_secret
    rows = [_secret(i, rule, act(rule.id).value) for i, rule in enumerate(patterns.secrets, 1)]
    return [
        "## Secret rules",
        "",
        f"{len(patterns.secrets)} rules. A result that matches one is sensitive; an egress call",
        "that carries one is a secret egress. A rule runs only on text that contains one of its",
        "keywords (lower case); the minimum entropy (bits per character) gates the matched",
        "secret; the check validates it (`cyclops/core/checks.py`). The action is what the rule",
        "does on its own to an egress call that carries it (`[controls.secret_actions]`).",
        "Presented as a credential to its hosts alone, a secret authenticates: no secret sent.",
        "Its services are the words that name its service in an environment variable's name",
        "(`$GEMINI_API_KEY`): a key so named, sent only to its hosts, is used where it belongs.",
        "",
        *md.table(header, rows),
    ]
