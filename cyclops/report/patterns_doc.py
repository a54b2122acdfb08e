"""docs/patterns.md: a Markdown reference of a loaded patterns file, generated, never hand-written.

:func:`patterns_markdown` renders every section of a :class:`~cyclops.core.patterns.Patterns`:
roles, argument rules, egress settings, untrusted markers, provenance and leak settings, flow
policies, limits and the secret rules. The output depends on nothing but the patterns (no dates,
no paths, no versions), so the committed file can be compared with a fresh rendering.

    python -m cyclops.report.patterns_doc > docs/patterns.md
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable

from ..config import load_patterns
from ..core.patterns import (
    ArgumentRule,
    FlowPolicy,
    HighValueRule,
    LeakSettings,
    Limits,
    Patterns,
    ProvenanceSettings,
    Role,
)
from ..core.regex import GlobSet, SafeRegex
from ..core.types import FlowClass, Label
from . import markdown as md
from .poisoning_doc import poisoning_section
from .secrets_doc import check_name, secrets_section

__all__ = ["REGENERATE", "patterns_markdown"]

REGENERATE = "python -m cyclops.report.patterns_doc > docs/patterns.md"

_LABEL_ORDER = list(Label)
# -- pieces of the patterns ---------------------------------------------------------------------


def _labels(labels: Iterable[Label]) -> str:
    return ", ".join(label.value for label in sorted(labels, key=_LABEL_ORDER.index))


def _globs(globs: GlobSet, *, in_table: bool = False) -> str:
    return md.codes(globs.patterns, in_table=in_table)


# -- sections ------------------------------------------------------------------------------------


def _overview(patterns: Patterns) -> list[str]:
    rows = [
        ("roles", str(len(patterns.roles))),
        ("argument rules", str(len(patterns.arguments))),
        ("untrusted markers", str(len(patterns.untrusted_markers) + len(patterns.address_markers))),
        ("request markers", str(len(patterns.request_markers))),
        ("high-value rules", str(len(patterns.provenance.high_value))),
        ("secret rules", str(len(patterns.secrets))),
    ]
    return [
        "## Overview",
        "",
        f"Source: {md.code(patterns.source)}.",
        "",
        *md.table(("section", "entries"), rows),
        "",
        "Labels: " + ", ".join(f"`{label.value}`" for label in Label) + ".",
    ]


def _role(role: Role) -> list[str]:
    lines = [
        f"### {role.name}",
        "",
        f"- Servers: {_globs(role.servers)}",
        f"- Signature tools: {_globs(role.signatures)}",
    ]
    if role.container_keys.patterns:
        lines.append(f"- Container keys: {_globs(role.container_keys)}")
    if role.hosts.patterns:
        lines.append(f"- Its own hosts: {_globs(role.hosts)}")
    if role.sender_fields:
        fields = md.codes((*role.sender_fields, *role.recipient_fields))
        lines.append(f"- Fields naming a message's audience: {fields}")
    if role.requester_fields:
        lines.append(f"- Fields naming who asked for a ticket: {md.codes(role.requester_fields)}")
    if role.fresh_tools.patterns:
        lines.append(f"- Tools whose results are new, no private data: {_globs(role.fresh_tools)}")
    if role.admin_pages:
        acting = f"- Tools acting on the open page: {_globs(role.page_actions)}"
        lines += [f"{acting}, privileged on a page whose URL matches one of these:", ""]
        lines += _regex_list(role.admin_pages)
    lines.append("")
    rows = [(md.code(glob.pattern, in_table=True), _labels(labels)) for glob, labels in role.tools]
    return lines + (md.table(("tool glob", "labels"), rows) if rows else ["No tool rules."])


def _roles(patterns: Patterns) -> list[str]:
    lines = [
        "## Roles",
        "",
        "A server gets a role when its name matches one of the role's server globs or when it",
        "offers one of its signature tools; the role's tool globs then label its tools (a",
        "glob also matches a tool's name in snake_case, and without a leading copy of its",
        "server's name: `post_*` matches `slack_post_message` on `slack`, `postMessage`; and",
        "from its first verb when other words come before it: `send_*` matches",
        "`GmailSendEmail` on any server). Its container keys name where a call reads or writes",
        "(a repository, a channel): private data written back into the container it was read",
        "from, on the same server, is no leak.",
        "",
        f"Verbs: {md.codes(sorted(patterns.tool_verbs))}.",
        "",
        "Verb groups (a request for one verb of a group asks for a tool whose verb is another):",
        "",
        *(f"- {md.codes(sorted(group))}" for group in patterns.verb_groups),
        "",
        "A server whose instructions or a tool's description match an untrusted marker and one",
        "of these poisoning markers gets the `hostile` role:",
        "",
        *_regex_list(patterns.poisoning_markers),
        "",
        "A description that one of these file requests matches gets it that role by itself:",
        "",
        *_regex_list(patterns.file_requests),
    ]
    for role in patterns.roles:
        lines += ["", *_role(role)]
    return lines


def _argument(rule: ArgumentRule) -> list[str]:
    return [
        f"### {rule.id}",
        "",
        f"- Labels: {_labels(rule.labels)}",
        f"- Tools: {_globs(rule.tools)}",
        f"- Path keys: {_globs(rule.keys)}",
        f"- Command-line keys: {_globs(rule.word_keys)}",
        f"- Path globs: {md.codes(g.pattern for g in rule.path_globs.globs)}",
        f"- Value regexes: {md.codes(r.pattern for r in rule.value_regexes)}",
        f"- Command regexes (every command of a command line): "
        f"{md.codes(r.pattern for r in rule.command_regexes)}",
        f"- Locator regexes (which records, not data): "
        f"{md.codes(r.pattern for r in rule.locator_regexes)}",
        f"- Values left out: {md.codes(r.pattern for r in rule.except_regexes)}",
        f"- Instructions only: {'yes' if rule.instruction_only else 'no'}; spares the"
        f" variable's own service: {'yes' if rule.spares_own_service else 'no'}",
    ]


def _arguments(patterns: Patterns) -> list[str]:
    lines = ["## Argument rules", "", "A call gets the rule's labels when an argument points at"]
    lines.append("a path that matches one of its path globs, or holds a value that one of its")
    lines.append("value regexes matches, or a command line whose every command one of its")
    lines.append("command regexes matches whole.")
    for rule in patterns.arguments:
        lines += ["", *_argument(rule)]
    return lines


def _egress(patterns: Patterns) -> list[str]:
    egress = patterns.egress
    return [
        "## Egress",
        "",
        f"- Allowed hosts: {_globs(egress.allow_hosts)}",
        f"- URL keys: {_globs(egress.url_keys)}",
        f"- Labels of a call with a URL to another host: {_labels(egress.url_labels)}",
        f"- Destination keys: {_globs(egress.destination_keys)}, but not under sender keys: "
        f"{_globs(egress.sender_keys)}",
        f"- Network programs in command lines: {md.codes(sorted(egress.network_commands))}; "
        f"name lookups: {md.codes(sorted(egress.lookup_commands))}; "
        f"web clients: {md.codes(sorted(egress.web_commands))}",
        "- Clients of one service: "
        + (", ".join(f"`{p}` ({h})" for p, h in sorted(egress.service_commands.items())) or "none"),
        "- A resource read reaches its URI's host with: "
        + md.codes(sorted(egress.resource_schemes)),
    ]


def _regex_list(regexes: Iterable[SafeRegex]) -> list[str]:
    return md.numbered(regex.pattern for regex in regexes)


def _markers(patterns: Patterns) -> list[str]:
    return [
        "## Untrusted markers",
        "",
        "A result that matches one of these regexes (RE2) is untrusted, whatever tool made it.",
        "",
        *_regex_list(patterns.untrusted_markers),
        "",
        "These count in results too, not in a tool's description (written for the agent, it may",
        "address it):",
        "",
        *_regex_list(patterns.address_markers),
        "",
        "A result that matches one of these is untrusted by its server's own word (a boundary",
        "it wraps around what others wrote); it addresses no one:",
        "",
        *_regex_list(patterns.untrusted_boundaries),
        "",
        "A result whose every text matches one of these whole is no private data (made to be",
        "given away), unless a secret rule finds a secret in it:",
        "",
        *_regex_list(patterns.public_texts),
        "",
        "A browser's result that says it is on a page whose URL matches one of these shows the",
        "signed-in user's own data (private):",
        "",
        *_regex_list(patterns.private_pages),
        "",
        "A result that is JSON throughout, whose every author is an insider by one of these keys,",
        "is no untrusted content (markers still count):",
        "",
        *[f"- `{key}`: {md.codes(sorted(v))}" for key, v in sorted(patterns.insiders.items())],
        "",
        "## Requests",
        "",
        "An untrusted result that matches one of these asks its reader for the verb it marks; it",
        "counts as an instruction for a privileged call whose tool's verb is that verb or in a",
        "verb group with it.",
        "",
        *_regex_list(patterns.request_markers),
    ]


def _settings_table(settings: ProvenanceSettings | LeakSettings | Limits) -> list[str]:
    rows = [
        (f"`{f.name}`", md.number(getattr(settings, f.name)))
        for f in dataclasses.fields(settings)
        if isinstance(getattr(settings, f.name), int | float)
    ]
    return md.table(("setting", "value"), rows)


def _high_value(rule: HighValueRule) -> tuple[str, ...]:
    steers = "yes" if rule.steers else ""
    return (
        f"`{rule.id}`",
        check_name(rule.check),
        steers,
        str(rule.min_piece or ""),
        md.code(rule.regex.pattern, in_table=True),
    )


def _provenance(patterns: Patterns) -> list[str]:
    prov = patterns.provenance
    glob_settings = (  # each [provenance] glob list, and what its items are
        ("Private-value keys (their values link whole)", prov.private_value_keys),
        ("Quantity keys (a privileged call's amounts: they steer nothing)", prov.quantity_keys),
        ("Write tools (their texts stay in the files they name)", prov.write_tools),
        ("Push tools (they publish what was written under the directory named)", prov.push_tools),
        (
            "Stage tools (a private file named goes out with a push of its directory)",
            prov.stage_tools,
        ),
        ("Site keys (a private record's site: its credentials typed there log in)", prov.site_keys),
        ("Credential keys (what such a record's login types)", prov.credential_keys),
        ("Shared hosts (anyone publishes pages there: a site only if named)", prov.shared_hosts),
    )
    lines = ["## Provenance", "", *_settings_table(prov), ""]
    lines += [f"Opaque id keys: {_globs(prov.opaque_id_keys)}", "", "Opaque id patterns:", ""]
    lines += _regex_list(prov.opaque_ids)
    lines += [
        "",
        "Labelled values (a private text's value its label names in prose; it links whole):",
        "",
    ]
    lines += _regex_list(prov.labelled_values)
    for caption, globs in glob_settings:
        lines += ["", f"{caption}: {_globs(globs)}"]
    lines += ["", "### High-value rules", ""]
    rows = [_high_value(rule) for rule in prov.high_value]
    return lines + md.table(("id", "check", "steers", "min_piece", "regex"), rows)


def _leak(patterns: Patterns) -> list[str]:
    return ["## Leaked bytes", "", *_settings_table(patterns.leak)]


def _flow(flow: FlowClass, policy: FlowPolicy) -> tuple[str, ...]:
    untrusted = str(policy.require_untrusted).lower() if flow is FlowClass.SECRET_EGRESS else ""
    only = ", ".join(f"`{glob}`" for glob in policy.instruction_only_tools.patterns)
    chosen = ", ".join(f"`{glob}`" for glob in policy.instruction_only_sources.patterns)
    return (
        f"`{flow.value}`",
        policy.action.value,
        str(policy.require_data_edges).lower(),
        str(policy.instructions_as_data).lower(),
        untrusted,
        only,
        chosen,
    )


def _flows(patterns: Patterns) -> list[str]:
    header = (
        "flow",
        "action",
        "require_data_edges",
        "instructions_as_data",
        "require_untrusted",
        "instruction_only_tools",
        "instruction_only_sources",
    )
    rows = [_flow(flow, patterns.flows[flow]) for flow in FlowClass if flow in patterns.flows]
    return ["## Flow policies", "", *md.table(header, rows)]


def _controls(patterns: Patterns) -> list[str]:
    c = patterns.controls
    d = c.destinations
    lines = [
        "## Per-call controls",
        "",
        "Each call is checked on its own before it reaches a server; it gets the strictest action",
        "of its flows and controls (allow < flag < redact < ask < deny). See `docs/controls.md`.",
        "",
        *md.table(
            ("control", "setting"),
            [
                ("secret rules (default action)", c.secret_action.value),
                ("secret rules with their own action", str(len(c.secret_actions))),
                ("destination allow list", _globs(d.allow, in_table=True) if d.allow else "none"),
                ("destination deny list", _globs(d.deny, in_table=True) if d.deny else "none"),
                ("destination action", d.action.value),
                ("SSRF guard", f"{'on' if d.ssrf_guard else 'off'} ({d.ssrf_action.value})"),
                ("path scopes", str(len(c.paths)) if c.paths else "none"),
                ("rate limits", str(len(c.rates)) if c.rates else "none"),
                ("rate and budget action", c.rate_action.value),
                ("egress budget (bytes per destination)", str(c.egress_budget_bytes or "none")),
                ("breaker (denials)", str(c.breaker_denials or "off")),
                ("changed tools (pinning)", c.pinning_action.value),
                ("tool rules", str(len(c.tools)) if c.tools else "none"),
            ],
        ),
    ]
    for scope in c.paths:
        lines += [
            "",
            f"Path scope for servers {_globs(scope.servers)}: roots {md.codes(scope.roots)} "
            f"({scope.outside_action.value} outside), sensitive "
            f"{md.codes(g.pattern for g in scope.sensitive.globs)} "
            f"({scope.sensitive_action.value}), "
            f"path keys {_globs(scope.keys)}.",
        ]
    for tool_rule in c.tools:
        lines += [
            "",
            f"Tool rule `{tool_rule.id}`: {tool_rule.action.value} every call of tools "
            f"{_globs(tool_rule.tools)} on servers {_globs(tool_rule.servers)}.",
        ]
    for rate in c.rates:
        per = "per session" if rate.per_session else "per tool"
        lines += [
            "",
            f"Rate limit `{rate.id}`: {rate.calls} calls per {md.number(rate.seconds)} s {per}, "
            f"servers {_globs(rate.servers)}, tools {_globs(rate.tools)}.",
        ]
    return lines


def _limits(patterns: Patterns) -> list[str]:
    return ["## Limits", "", *_settings_table(patterns.limits)]


def patterns_markdown(patterns: Patterns) -> str:
    """The Markdown reference of ``patterns``: the same patterns always give the same text."""
    sections = [
        _overview,
        _roles,
        _arguments,
        _egress,
        _markers,
        poisoning_section,
        _provenance,
        _leak,
        _flows,
        _controls,
        _limits,
        secrets_section,
    ]
    lines = [
        "# Detection patterns",
        "",
        f"_Generated from patterns.toml by `{REGENERATE}`; do not edit it, edit patterns.toml._",
    ]
    for section in sections:
        lines += ["", *section(patterns)]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.buffer.write(patterns_markdown(load_patterns()).encode("utf-8"))


if __name__ == "__main__":
    main()
