"""The ``[poisoning]`` section of the patterns reference (see :mod:`.patterns_doc`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.regex import SafeRegex
from ..core.rules import Patterns
from . import markdown as md

__all__ = ["poisoning_section"]


def _patterns(regexes: Iterable[SafeRegex | None]) -> list[str]:
    return md.numbered(regex.pattern for regex in regexes if regex is not None)


def poisoning_section(patterns: Patterns) -> list[str]:
    rules = patterns.poisoning
    return [
        "## Tool poisoning without marker words",
        "",
        "A description (or a server's instructions) also makes its server `hostile` when one of",
        "these markers matches it:",
        "",
        *_patterns(rules.markers),
        "",
        "when it asks for private data (below) as one of its tool's own arguments (an argument",
        "request), unless the argument's name says it takes a secret (the last pattern):",
        "",
        *_patterns((*rules.argument_requests, rules.secret_arguments)),
        "",
        "or when it names a *foreign* tool beside harm. A foreign tool is a name shaped like a",
        "tool's that is none of the server's own: snake_case whose first word is a verb (or",
        "whose second or third is, after a service's name, with a word that calls or names it",
        "just before or after); camelCase and kebab-case the same, more strictly. Besides the",
        f"tool verbs above: {md.codes(sorted(rules.name_verbs))}. Not a service's name:",
        f"{md.codes(sorted(rules.not_services))}. A parameter's last word:",
        f"{md.codes(sorted(rules.parameter_words))}. What calls or names a tool just before or",
        "after its name:",
        "",
        *_patterns((rules.calls_before, rules.names_before, rules.calls_after)),
        "",
        "Harm beside a foreign tool is a literal destination that is no example (the second",
        "list: in the destination; the third: just before it),",
        "",
        *_patterns(rules.destinations),
        "",
        *_patterns((rules.examples, rules.example_lead)),
        "",
        "one of these harms or private data,",
        "",
        *_patterns((*rules.harms, *rules.private_data)),
        "",
        f"a destructive foreign tool ({md.codes(sorted(rules.destructive_verbs))}) pressed,",
        "",
        *_patterns(rules.pressing),
        "",
        "or a foreign tool that reads secrets (this pattern, on its name) beside an argument",
        "request:",
        "",
        *_patterns((rules.secret_tools,)),
    ]
