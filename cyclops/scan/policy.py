"""``cyclops scan --emit-policy FILE``: a patterns.toml fragment that carries the scan to run time.

What it holds — only tables the strict patterns loader accepts today, so that the fragment can be
appended to any patterns.toml (``cat patterns.toml scan-policy.toml > mine.toml``):

- one role per server, ``[roles."cyclops-scan-<server>"]``, matching exactly that server's name,
  whose tool table pins the labels the scan used for (a) every tool whose labels were *inferred*
  (no rule covered it: at run time it would otherwise have none) and (b) every tool the cut names.
  With it the proxy labels those tools as the scan did, and in ``--mode prevent`` the exfiltration
  rule denies every call through them that would complete a toxic flow;
- one ``[[controls.tools]]`` rule per grant of the cut — ``deny`` for a read grant (its results
  never reach the agent), ``ask`` for a write grant (the user approves each send) — and ``ask``
  for every tool that is a route by itself: the cut, enforced on every call.

Pure: a :class:`~cyclops.scan.analysis.ScanResult` in, TOML text out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..core.types import Capability
from .analysis import RuntimeRule, ScanResult, runtime_rule
from .labels import ToolLabels

__all__ = ["ROLE_PREFIX", "policy_fragment"]

ROLE_PREFIX = "cyclops-scan-"
_RULES = {
    RuntimeRule.DENY: "deny every call",
    RuntimeRule.ASK_BEFORE_SEND: "ask before it sends (deny when nobody answers)",
}
_ACTIONS = {RuntimeRule.DENY: "deny", RuntimeRule.ASK_BEFORE_SEND: "ask"}


def policy_fragment(result: ScanResult) -> str:
    lines = list(_preamble(result))
    pinned = _pinned(result)
    for server in sorted({t.capability.server for t in pinned}):
        role = json.dumps(ROLE_PREFIX + server)
        lines += ["", f"[roles.{role}]", f"servers = [{json.dumps(server)}]"]
        lines.append(f"[roles.{role}.tools]")
        for tool in (t for t in pinned if t.capability.server == server):
            why = "inferred" if tool.inferred else "cut"
            labels = ", ".join(json.dumps(label.value) for label in sorted(tool.labels))
            lines.append(f"{json.dumps(_literal_glob(tool.capability.tool))} = [{labels}]  # {why}")
    for capability, rule in _enforced(result):
        lines += [
            "",
            "[[controls.tools]]",
            f"id = {json.dumps(f'scan-{capability.server}-{capability.tool}')}",
            f"servers = [{json.dumps(_literal_glob(capability.server))}]",
            f"tools = [{json.dumps(_literal_glob(capability.tool))}]",
            f'action = "{_ACTIONS[rule]}"  # {_RULES[rule]}',
        ]
    return "\n".join(lines) + "\n"


def _enforced(result: ScanResult) -> list[tuple[Capability, RuntimeRule]]:
    """The cut's grants and the self-contained routes, each with its run-time rule."""
    rules = {grant.capability: runtime_rule(grant) for grant in result.cut.grants}
    for capability in result.self_contained:
        rules.setdefault(capability, RuntimeRule.ASK_BEFORE_SEND)
    return sorted(rules.items())


def _preamble(result: ScanResult) -> Iterator[str]:
    yield f"# cyclops scan policy for {result.source or 'a tools snapshot'}"
    yield f"# (patterns sha256 {result.patterns_sha256[:12]}). Append it to your patterns.toml and"
    yield "# serve with --patterns pointing at the result and --mode prevent."
    yield "#"
    if not result.cut.grants:
        yield "# The minimum cut is empty: no leak route."
    else:
        chosen = result.cut.chosen
        yield (
            f"# The minimum cut ({chosen.side.value} side): revoke these "
            f"{len(chosen.grants)} grants and no leak route remains."
        )
        yield "# The [[controls.tools]] rules at the end enforce it on every call (in --mode"
        yield "# prevent); better still, also revoke them at the host or the server."
        for grant in chosen.grants:
            rule = _RULES[runtime_rule(grant)]
            yield f"#   {grant.capability} ({grant.direction.value} grant): {rule}"
    if result.self_contained:
        yield "# Tools that are a leak route by themselves (no static cut exists):"
        for capability in result.self_contained:
            yield f"#   {capability}: {_RULES[RuntimeRule.ASK_BEFORE_SEND]}"
    yield "#"
    yield "# The roles below pin the labels the scan used, for tools no rule covered (inferred)"
    yield "# and for the cut's tools, so that the proxy labels them as the scan did; the"
    yield "# [[controls.tools]] rules after them hold back the cut's tools."


def _pinned(result: ScanResult) -> list[ToolLabels]:
    cut: set[Capability] = {g.capability for g in result.cut.grants}
    return [t for t in result.labelling.tools if t.labels and (t.capability in cut or t.inferred)]


def _literal_glob(name: str) -> str:
    """A tool name as a glob that matches only it: ``*``, ``?`` and ``[`` in brackets."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
