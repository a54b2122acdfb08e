"""Argument rules (``[[arguments]]`` in patterns.toml): label a call by what its arguments point
at — a key's path, a command that prints the environment, a SQL statement that writes rows, a
secret named by its variable, a command line that only looks or runs the project's tests."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .arguments import ArgLeaf, command_words, registrable_domain, service_words
from .commandline import simple_commands
from .regex import GlobSet, SafeRegex, normalize_path
from .rules import ArgumentRule
from .types import ArgPath, Label

__all__ = ["RuleMatches", "Spans", "match_rules", "rules_for"]

Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RuleMatches:
    labels: frozenset[Label] = frozenset()
    rule_ids: tuple[str, ...] = ()
    located: Mapping[ArgPath, Spans] = field(default_factory=dict)
    """Per argument, the spans of its value that say which records the call changes."""
    instruction_only: bool = False
    """A rule that matched makes a privileged call count only after an instruction."""


_VARIABLES = re.compile(r"(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?[:@]?)+")
"""A command word that only names environment variables (``$ID:$KEY``)."""

ServiceHosts = Callable[[str], GlobSet | None]
"""The hosts a service named by one word serves from, if known (``jira``: ``*.atlassian.net``)."""


def rules_for(rules: Sequence[ArgumentRule], tool_names: Sequence[str]) -> tuple[ArgumentRule, ...]:
    """The rules that apply to a tool named ``tool_names`` (see ``regex.tool_names``)."""
    return tuple(rule for rule in rules if any(map(rule.tools.matches_name, tool_names)))


def match_rules(
    rules: Sequence[ArgumentRule],
    args: Sequence[ArgLeaf],
    hosts: Mapping[ArgPath, tuple[str, ...]],
    service_hosts: ServiceHosts,
) -> RuleMatches:
    """What ``rules``, those for the call's tool (see :func:`rules_for`), say of its ``args``
    (``hosts``: the hosts each argument reaches; ``service_hosts``: see :data:`ServiceHosts`)."""
    labels: set[Label] = set()
    rule_ids: list[str] = []
    located: dict[ArgPath, Spans] = {}
    instruction_only = False
    for rule in rules:
        if not _matches(rule, args):
            continue
        if rule.spares_own_service and _to_own_service(rule, args, hosts, service_hosts):
            continue
        labels |= rule.labels
        instruction_only |= rule.instruction_only
        rule_ids.append(rule.id)
        located.update(_located(rule, args))
    return RuleMatches(frozenset(labels), tuple(rule_ids), located, instruction_only)


def _matches(rule: ArgumentRule, args: Sequence[ArgLeaf]) -> bool:
    if rule.command_regexes:
        return _every_line_matches(rule, args)
    for leaf in args:
        own = rule.keys.matches(leaf.key)
        under = rule.value_regexes and (own or _below_key(rule, leaf))
        if under and _value_matches(rule, leaf.value):
            return True
        if own:
            candidates = [leaf.value]
        elif rule.word_keys.matches(leaf.key):
            # `$AWS_SECRET_ACCESS_KEY` names a variable, not a file (secret-variable reads it)
            candidates = [w for w in command_words(leaf.value) if not _VARIABLES.fullmatch(w)]
        else:
            continue
        for candidate in candidates:
            path = normalize_path(candidate.strip("\"'"))
            if path and rule.path_globs.matches(path) and not rule.except_globs.matches(path):
                return True
    return False


def _value_matches(rule: ArgumentRule, value: str) -> bool:
    return any(regex.search(value) for regex in rule.value_regexes) and not _excepted(rule, value)


def _excepted(rule: ArgumentRule, value: str) -> bool:
    return any(regex.search(value) for regex in rule.except_regexes)


def _every_line_matches(rule: ArgumentRule, args: Sequence[ArgLeaf]) -> bool:
    """For a rule of ``command_regexes``: whether the call has values under the rule's keys and
    every one is a command line whose every command a regex matches whole (a program's
    arguments passed apart, ``{"command": "yarn", "args": ["add", "x"]}``, are values too)."""
    lines = [leaf.value for leaf in args if rule.keys.matches(leaf.key) or _below_key(rule, leaf)]
    return bool(lines) and all(
        _every_command_matches(rule.command_regexes, line) and not _excepted(rule, line)
        for line in lines
    )


def _every_command_matches(regexes: tuple[SafeRegex, ...], line: str) -> bool:
    commands = simple_commands(line)
    return bool(commands) and all(
        any(regex.fullmatch(command) for regex in regexes) for command in commands or ()
    )


def _below_key(rule: ArgumentRule, leaf: ArgLeaf) -> bool:
    """Whether one of the rule's keys is above the value's own key (an Outlook rule's
    ``forwardTo[0].emailAddress.address`` is below ``forwardTo``)."""
    return any(isinstance(key, str) and rule.keys.matches(key) for key in leaf.location[:-1])


def _located(rule: ArgumentRule, args: Sequence[ArgLeaf]) -> Iterator[tuple[ArgPath, Spans]]:
    """The spans the rule's locator regexes match in the values under its keys."""
    if not rule.locator_regexes:
        return
    for leaf in args:
        if rule.keys.matches(leaf.key):
            spans = tuple(
                span for regex in rule.locator_regexes for span in regex.spans(leaf.value)
            )
            if spans:
                yield leaf.path, spans


def _to_own_service(
    rule: ArgumentRule,
    args: Sequence[ArgLeaf],
    hosts: Mapping[ArgPath, tuple[str, ...]],
    service_hosts: ServiceHosts,
) -> bool:
    """Whether every host a call reaches is the service that the names a rule's value regexes
    mark say (``$OPENAI_API_KEY`` sent to api.openai.com, ``$JIRA_API_TOKEN`` to a host of the
    role whose servers are Jira's: a key used where it belongs)."""
    reached = {host for found in hosts.values() for host in found}
    words = {
        word
        for leaf in args
        if rule.keys.matches(leaf.key)
        for regex in rule.value_regexes
        for name in regex.marked(leaf.value)
        for word in service_words(name)
    }
    return bool(reached and words) and all(
        any(_serves(word, host, service_hosts) for word in words) for host in reached
    )


def _serves(word: str, host: str, service_hosts: ServiceHosts) -> bool:
    """Whether ``host`` is the service ``word`` names: one of its known hosts, or, where none
    is known, a domain of that very name (``acme`` for api.acme.example; `acme-verify.example`
    is not Acme's). A known service's look-alike on another top-level domain (openai.zip) is not
    the service."""
    known = service_hosts(word)
    if known is not None:
        return known.matches(host)
    return len(word) >= 3 and registrable_domain(host).split(".")[0] == word
