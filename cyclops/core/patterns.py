"""patterns.toml: the detection data, parsed strictly and compiled once.

:func:`parse_patterns` takes the file's text (reading it is the caller's job) and returns an
immutable :class:`~cyclops.core.rules.Patterns` (re-exported here with the rest of
:mod:`.rules`). Any problem raises :class:`~cyclops.core.tomlreader.ConfigError`
naming the file, the key, the value and the fix.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import NamedTuple

from .controls_config import parse_controls
from .convert import check, globs, labels, marked_regexes, path_globs, regex, regexes, words
from .regex import GlobSet, SafeRegex
from .roles_config import parse_roles
from .rules import (
    ArgumentRule,
    EgressRules,
    FlowPolicy,
    HighValueRule,
    LeakSettings,
    Limits,
    Patterns,
    PoisoningRules,
    ProvenanceSettings,
    Role,
    SecretRule,
)
from .tomlreader import TableReader, parse_toml
from .types import Action, FlowClass

__all__ = [
    "ArgumentRule",
    "EgressRules",
    "FlowPolicy",
    "HighValueRule",
    "LeakSettings",
    "Limits",
    "Patterns",
    "ProvenanceSettings",
    "Role",
    "SecretRule",
    "parse_patterns",
]

SUPPORTED_VERSION = 1
_Regexes = tuple[SafeRegex, ...]
_Groups = tuple[frozenset[str], ...]
_FLOW_ACTIONS = list(Action)
_HOST = re.compile(r"(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,63}")


def parse_patterns(text: str, source: str = "patterns.toml") -> Patterns:
    """Parse and compile a patterns file's text. ``source`` names it in errors."""
    data = parse_toml(text, source)
    top = TableReader(source, data)
    version = top.integer("version", SUPPORTED_VERSION)
    if version != SUPPORTED_VERSION:
        top.fail("version", version, "unsupported version", f"use version = {SUPPORTED_VERSION}")
    verbs, poisoning, file_requests, verb_groups = _tools(top.table("tools", {}))
    results = _results(top.table("results", {}))
    patterns = Patterns(
        source=source,
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        roles=parse_roles(top.table("roles", {})),
        arguments=tuple(_argument_rule(t) for t in top.tables("arguments")),
        egress=_egress(top.table("egress", {})),
        untrusted_markers=results.markers,
        secrets=_secrets(top.tables("secrets")),
        provenance=_provenance(top.table("provenance", {})),
        leak=_leak(top.table("leak", {})),
        flows=_flows(top.table("flows", {})),
        limits=_limits(top.table("limits", {})),
        tool_verbs=verbs,
        poisoning_markers=poisoning,
        file_requests=file_requests,
        poisoning=_poisoning(top.table("poisoning", {})),
        address_markers=results.addressing,
        request_markers=results.requests,
        verb_groups=verb_groups,
        sensitive_keys=results.sensitive_keys,
        untrusted_keys=results.untrusted_keys,
        person_message_keys=results.person_message_keys,
        untrusted_boundaries=results.boundaries,
        public_texts=results.public_texts,
        private_pages=results.private_pages,
        insiders=results.insiders,
    )
    controls = top.table("controls", {})
    patterns = dataclasses.replace(patterns, controls=parse_controls(controls))
    _check_secret_actions(controls, patterns)
    top.finish()
    return patterns


def _check_secret_actions(controls: TableReader, patterns: Patterns) -> None:
    known = {rule.id for rule in patterns.secrets}
    for rule_id in patterns.controls.secret_actions:
        if rule_id not in known:
            controls.table("secret_actions").fail(
                rule_id, rule_id, "no secret rule has this id", "use an id from [[secrets]]"
            )


# -- sections -----------------------------------------------------------------------------------


def _argument_rule(rule: TableReader) -> ArgumentRule:
    parsed = ArgumentRule(
        id=rule.string("id"),
        keys=globs(rule, "keys"),
        tools=globs(rule, "tools", ("*",)),
        path_globs=path_globs(rule, "path_globs"),
        labels=labels(rule, "labels", rule.strings("labels", [])),
        word_keys=globs(rule, "word_keys"),
        value_regexes=regexes(rule, "value_regexes"),
        locator_regexes=regexes(rule, "locator_regexes"),
        except_globs=path_globs(rule, "except_globs"),
        instruction_only=rule.boolean("instruction_only", False),
        except_regexes=regexes(rule, "except_regexes"),
        spares_own_service=rule.boolean("spares_own_service", False),
        command_regexes=regexes(rule, "command_regexes"),
    )
    if not (parsed.path_globs or parsed.value_regexes or parsed.command_regexes):
        why = "an argument rule needs path globs, value regexes or command regexes"
        rule.fail("path_globs", [], why, "list some path globs (or value_regexes)")
    if not parsed.labels and not parsed.instruction_only:
        why = "the rule would change nothing"
        rule.fail("labels", [], why, "give labels (or instruction_only = true)")
    rule.finish()
    return parsed


def _egress(table: TableReader) -> EgressRules:
    rules = EgressRules(
        allow_hosts=globs(table, "allow_hosts", ("localhost", "127.0.0.1", "::1")),
        url_keys=globs(table, "url_keys", ("*url*", "*uri*")),
        url_labels=labels(table, "url_labels", table.strings("url_labels", ["egress"])),
        destination_keys=globs(table, "destination_keys", ("to", "url", "recipient*")),
        sender_keys=globs(table, "sender_keys"),
        network_commands=frozenset(table.strings("network_commands", ())),
        lookup_commands=frozenset(table.strings("lookup_commands", ())),
        web_commands=frozenset(table.strings("web_commands", ())),
        service_commands=_service_commands(table.table("service_commands", {})),
        resource_schemes=frozenset(s.lower() for s in table.strings("resource_schemes", ())),
        unknown_server_secrets=table.boolean("unknown_server_secrets", False),
    )
    table.finish()
    return rules


def _service_commands(table: TableReader) -> dict[str, str]:
    """``[egress.service_commands]``: program = the host its service answers at."""
    found = {}
    for program in table.names():
        host = table.string(program)
        if not _HOST.fullmatch(host):
            fix = f'write `{program} = "api.example.com"`'
            table.fail(program, host, "expected a host name", fix)
        found[program] = host.lower()
    table.finish()
    return found


class _ResultRules(NamedTuple):
    markers: _Regexes
    addressing: _Regexes
    requests: _Regexes
    sensitive_keys: GlobSet
    untrusted_keys: GlobSet
    person_message_keys: GlobSet
    boundaries: _Regexes
    public_texts: _Regexes
    private_pages: _Regexes
    insiders: dict[str, frozenset[str]]


def _results(table: TableReader) -> _ResultRules:
    """``[results]``: its untrusted, address and request markers, its sensitive and untrusted
    keys, the boundaries by which servers declare content untrusted, the texts made to be
    given away, and who its insiders are."""
    markers = regexes(table, "untrusted_markers")
    addressing = regexes(table, "address_markers")
    requests = marked_regexes(table, "request_markers", "verb", "(?i)please (?P<verb>[a-z]+)")
    sensitive_keys = globs(table, "sensitive_keys")
    untrusted_keys = globs(table, "untrusted_keys")
    person_message_keys = globs(table, "person_message_keys")
    boundaries = regexes(table, "untrusted_boundaries")
    public_texts = regexes(table, "public_texts")
    private_pages = regexes(table, "private_pages")
    insiders_table = table.table("insiders", {})
    insiders = {key: _insider_values(insiders_table, key) for key in insiders_table.names()}
    insiders_table.finish()
    table.finish()
    return _ResultRules(
        markers,
        addressing,
        requests,
        sensitive_keys,
        untrusted_keys,
        person_message_keys,
        boundaries,
        public_texts,
        private_pages,
        insiders,
    )


def _insider_values(table: TableReader, key: str) -> frozenset[str]:
    values = table.strings(key)
    if not values:
        table.fail(key, values, "no value", 'name the values of an insider, as ["OWNER", "MEMBER"]')
    return frozenset(v.upper() for v in values)


def _tools(table: TableReader) -> tuple[frozenset[str], _Regexes, _Regexes, _Groups]:
    """``[tools]``: its verbs, its poisoning markers and file requests, and its verb groups."""
    verbs = words(table, "verbs")
    poisoning = regexes(table, "poisoning_markers")
    requests = regexes(table, "file_requests")
    groups_table = table.table("verb_groups", {})
    groups = tuple(words(groups_table, name, "sell") for name in groups_table.names())
    groups_table.finish()
    table.finish()
    return verbs, poisoning, requests, groups


def _poisoning(table: TableReader) -> PoisoningRules:
    def one(key: str) -> SafeRegex | None:
        return regex(table, key, table.string(key)) if table.has(key) else None

    rules = PoisoningRules(
        markers=regexes(table, "markers"),
        name_verbs=words(table, "name_verbs"),
        not_services=words(table, "not_services"),
        parameter_words=words(table, "parameter_words"),
        calls_before=one("calls_before"),
        names_before=one("names_before"),
        calls_after=one("calls_after"),
        destinations=regexes(table, "destinations"),
        examples=one("examples"),
        example_lead=one("example_lead"),
        harms=regexes(table, "harms"),
        destructive_verbs=words(table, "destructive_verbs"),
        pressing=regexes(table, "pressing"),
        secret_tools=one("secret_tools"),
        private_data=regexes(table, "private_data"),
        argument_requests=marked_regexes(
            table, "argument_requests", "argument", "in the (?P<argument>[a-z_]+) argument"
        ),
        secret_arguments=one("secret_arguments"),
    )
    table.finish()
    return rules


def _secrets(tables: list[TableReader]) -> tuple[SecretRule, ...]:
    rules: list[SecretRule] = []
    seen: set[str] = set()
    for table in tables:
        rule = SecretRule(
            id=table.string("id"),
            description=table.string("description", ""),
            regex=regex(table, "regex", table.string("regex")),
            keywords=tuple(k.lower() for k in table.strings("keywords", ())),
            min_entropy=table.number("min_entropy", 0.0),
            check=check(table),
            hosts=globs(table, "hosts") if table.has("hosts") else None,
            services=_services(table),
        )
        if rule.id in seen:
            table.fail("id", rule.id, "duplicate secret rule id", "give every rule its own id")
        seen.add(rule.id)
        table.finish()
        rules.append(rule)
    return tuple(rules)


def _services(table: TableReader) -> frozenset[str]:
    """The words naming a secret rule's service: ``services``, else its id's first word."""
    if table.has("services"):
        return words(table, "services", "gemini")
    return frozenset({table.string("id").split("-")[0].lower()})


def _provenance(table: TableReader) -> ProvenanceSettings:
    high_value = []
    for rule in table.tables("high_value"):
        high_value.append(
            HighValueRule(
                rule.string("id"),
                regex(rule, "regex", rule.string("regex")),
                check(rule),
                rule.boolean("steers", False),
                rule.integer("min_piece", 0, minimum=0),
            )
        )
        rule.finish()
    defaults = ProvenanceSettings()
    opaque = table.strings("opaque_ids", ())
    settings = ProvenanceSettings(
        kgram=table.integer("kgram", defaults.kgram, minimum=4),
        min_fragment=table.integer("min_fragment", defaults.min_fragment, minimum=4),
        secret_entropy=table.number("secret_entropy", defaults.secret_entropy),
        min_token_length=table.integer("min_token_length", defaults.min_token_length, minimum=4),
        min_token_entropy=table.number("min_token_entropy", defaults.min_token_entropy),
        shingle_words=table.integer("shingle_words", defaults.shingle_words, minimum=2),
        shingle_window=table.integer("shingle_window", defaults.shingle_window, minimum=1),
        min_uncommon_words=table.integer("min_uncommon_words", defaults.min_uncommon_words),
        max_private_sources=table.integer(
            "max_private_sources", defaults.max_private_sources, minimum=1
        ),
        max_sources_per_fingerprint=table.integer(
            "max_sources_per_fingerprint", defaults.max_sources_per_fingerprint, minimum=1
        ),
        opaque_id_keys=globs(table, "opaque_id_keys"),
        opaque_ids=tuple(regex(table, "opaque_ids", p) for p in opaque),
        # Multi-line: the index checks many tokens at once, one per line.
        opaque_id=SafeRegex("(?im)" + "|".join(f"(?:{p})" for p in opaque)) if opaque else None,
        high_value=tuple(high_value),
        private_value_keys=globs(table, "private_value_keys"),
        min_private_value=table.integer("min_private_value", defaults.min_private_value, minimum=4),
        quantity_keys=globs(table, "quantity_keys"),
        condition_keys=globs(table, "condition_keys"),
        labelled_values=marked_regexes(
            table, "labelled_values", "value", "Passport (?P<value>[A-Z0-9]+)"
        ),
        write_tools=globs(table, "write_tools"),
        push_tools=globs(table, "push_tools"),
        stage_tools=globs(table, "stage_tools"),
        site_keys=globs(table, "site_keys"),
        credential_keys=globs(table, "credential_keys"),
        shared_hosts=globs(table, "shared_hosts"),
    )
    table.finish()
    return settings


def _leak(table: TableReader) -> LeakSettings:
    settings = LeakSettings(
        min_call_bytes=table.integer("min_call_bytes", LeakSettings.min_call_bytes, minimum=1),
        drip_bytes=table.integer("drip_bytes", LeakSettings.drip_bytes, minimum=1),
        min_continuation=table.integer(
            "min_continuation", LeakSettings.min_continuation, minimum=0
        ),
        min_id_length=table.integer("min_id_length", LeakSettings.min_id_length, minimum=0),
    )
    table.finish()
    return settings


_DEFAULT_FLOWS = {
    FlowClass.EXFILTRATION: FlowPolicy(Action.DENY),
    FlowClass.SECRET_EGRESS: FlowPolicy(Action.DENY, require_untrusted=True),
    FlowClass.EXCESSIVE_AGENCY: FlowPolicy(Action.DENY, require_data_edges=True),
    FlowClass.SELF_CONTAINED_ROUTE: FlowPolicy(Action.FLAG),
}


def _flows(table: TableReader) -> dict[FlowClass, FlowPolicy]:
    policies = dict(_DEFAULT_FLOWS)
    classes = [c.value for c in FlowClass]
    for name in table.names():
        if name not in classes:
            table.fail(name, name, "unknown flow class", f"use one of: {', '.join(classes)}")
        flow = table.table(name)
        default = _DEFAULT_FLOWS[FlowClass(name)]
        action = flow.string(
            "action", default.action.value, choices=[a.value for a in _FLOW_ACTIONS]
        )
        require = flow.boolean("require_data_edges", default.require_data_edges)
        untrusted = default.require_untrusted
        if FlowClass(name) is FlowClass.SECRET_EGRESS:
            untrusted = flow.boolean("require_untrusted", default.require_untrusted)
        instructions = flow.boolean("instructions_as_data", default.instructions_as_data)
        instruction_only, chosen = default.instruction_only_tools, default.instruction_only_sources
        if FlowClass(name) is FlowClass.EXCESSIVE_AGENCY:
            instruction_only = globs(flow, "instruction_only_tools")
            chosen = globs(flow, "instruction_only_sources")
        policies[FlowClass(name)] = FlowPolicy(
            Action(action), require, untrusted, instructions, instruction_only, chosen
        )
        flow.finish()
    table.finish()
    return policies


def _limits(table: TableReader) -> Limits:
    limits = Limits(
        max_calls=table.integer("max_calls", Limits.max_calls, minimum=10),
        max_fingerprints=table.integer("max_fingerprints", Limits.max_fingerprints, minimum=1000),
        max_result_chars=table.integer("max_result_chars", Limits.max_result_chars, minimum=1024),
    )
    table.finish()
    return limits
