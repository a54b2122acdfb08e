"""A scan, shown: the text report (with the Mermaid picture at its end) and JSON.

Pure: a :class:`~cyclops.scan.analysis.ScanResult` in, text out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..core.types import Capability, Label
from .analysis import RuntimeRule, ScanResult, runtime_rule
from .cut import Cut, CutCandidate, TieBreak
from .labels import RoleMatch, ToolLabels
from .picture import mermaid
from .routes import RouteSearch

__all__ = ["ORDER_NOTE", "SCAN_JSON_VERSION", "dumps", "text_report", "to_json"]

SCAN_JSON_VERSION = 1
ORDER_NOTE = "name order, which ranks nothing (the order shown is arbitrary)"
_ROUTE_LABELS = (Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS)
_WHY_CHOSEN = {
    TieBreak.UNIQUE: "the only minimum cut",
    TieBreak.FEWER_GRANTS: "fewer grants than the other minimum cut",
    TieBreak.FEWER_TASKS: "as many grants as the other minimum cut, fewer broken tasks",
    TieBreak.WRITE_SIDE: "a full tie with the read side: the agent keeps reading",
    TieBreak.NO_ROUTES: "nothing to cut",
}
_RULE_TEXT = {
    RuntimeRule.DENY: "deny its calls",
    RuntimeRule.ASK_BEFORE_SEND: "ask before it sends (or deny its calls)",
}


# -- text ------------------------------------------------------------------------------------------


def text_report(result: ScanResult, *, graph: bool = True) -> str:
    lines = list(_header(result))
    lines += ["", *_servers(result), "", *_labels(result), ""]
    lines += _routes(result.routes)
    lines += _self_contained(result)
    lines += ["", *_cut(result.cut, result.routes.count)]
    lines += ["", *_receipt(result)]
    if graph:
        lines += ["", "Capability graph (Mermaid; thick: on a leak route, red dashed: cut)"]
        lines += ["```mermaid", mermaid(result).rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def _header(result: ScanResult) -> Iterator[str]:
    yield f"cyclops scan of {result.source or 'a tools snapshot'}"
    yield f"patterns: {result.patterns_source} (sha256 {result.patterns_sha256[:12]})"
    snap = result.snapshot
    tasks = f"; {len(result.tasks)} declared tasks" if result.tasks else ""
    yield f"{len(snap.servers)} servers, {snap.tool_count} tools{tasks}"
    if result.clean:
        yield "RESULT: clean — no leak route, nothing to cut"
    else:
        kinds = ", ".join(sorted({w.kind.value for w in result.warnings}))
        yield (
            f"RESULT: {_plural(result.routes.count, 'leak route')}; "
            f"{len(result.self_contained)} self-contained (a route inside one tool); cut "
            f"{_plural(len(result.cut.grants), 'grant')}; {result.receipt.count} routes left "
            f"after the cut (warnings: {kinds})"
        )


def _servers(result: ScanResult) -> Iterator[str]:
    yield "Servers"
    width = max((len(s.name) for s in result.snapshot.servers), default=0)
    for server in result.snapshot.servers:
        roles = [m for m in result.labelling.roles.get(server.name, ()) if m.role != "any"]
        shown = ", ".join(_role(m) for m in roles) or "none (only the tool names every role shares)"
        yield f"  {server.name:<{width}}  {_plural(len(server.tools), 'tool'):>9}  roles: {shown}"


def _role(match: RoleMatch) -> str:
    if match.detail:
        return f"{match.role} ({match.reason.value} {match.detail!r})"
    return f"{match.role} ({match.reason.value})"


def _labels(result: ScanResult) -> Iterator[str]:
    yield "Labels (tools that are untrusted, sensitive or egress)"
    labelled = [t for t in result.labelling.tools if t.route_labels]
    width = max((len(str(t.capability)) for t in labelled), default=0)
    for tool in labelled:
        names = ", ".join(label.value for label in _ROUTE_LABELS if label in tool.labels)
        yield f"  {tool.capability!s:<{width}}  {names:<28}  {_why(tool)}"
    inferred = [t for t in result.labelling.tools if t.inferred]
    if inferred:
        yield (
            f"  {len(inferred)} tools no rule covers got the riskier reading of their "
            'annotations and arguments ("inferred"); a role rule in patterns.toml replaces it'
        )
    others = [str(t.capability) for t in result.labelling.tools if not t.route_labels]
    if others:
        yield f"  on no route (privileged or unlabelled): {', '.join(others)}"


def _why(tool: ToolLabels) -> str:
    if tool.rules:
        return "rule " + "; ".join(f'roles.{r.role}.tools."{r.glob}"' for r in tool.rules)
    parts = []
    for item in tool.inferred:
        if item.label in _ROUTE_LABELS:
            arg = f" `{item.argument}`" if item.argument else ""
            parts.append(f"{item.label.value}: {item.inference.explanation}{arg}")
    return "inferred — " + "; ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _routes(routes: RouteSearch) -> list[str]:
    if routes.count == 0:
        if routes.untrusted:
            return ["Leak routes: none (no private store reaches a public sink)"]
        return ["Leak routes: none (no untrusted content reaches the agent's context)"]
    lines = [
        "Untrusted content reaches the agent's context through: "
        + ", ".join(map(str, routes.untrusted)),
        f"Leak routes: {routes.count}, through the agent's context — each reader of a private "
        "store with each writer to a public sink",
        "  private stores, and the tools that read them into the context:",
    ]
    readers = {g.store.server: g.readers for g in routes.groups}
    writers = {g.sink.server: g.writers for g in routes.groups}
    lines += [f"    {server}: {_tools(tools)}" for server, tools in sorted(readers.items())]
    lines.append("  public sinks, and the tools that send the context there:")
    lines += [f"    {server}: {_tools(tools)}" for server, tools in sorted(writers.items())]
    lines.append("  routes by store → sink:")
    lines += [
        f"    {g.store.server} → {g.sink.server}: {g.count} "
        f"({_plural(len(g.readers), 'reader')} × {_plural(len(g.writers), 'writer')})"
        for g in routes.groups
    ]
    if routes.truncated:
        lines.append(
            f"  ({routes.count} routes counted, not listed one by one; --json lists the first "
            f"{routes.shown} in {ORDER_NOTE})"
        )
    return lines


def _tools(tools: tuple[Capability, ...]) -> str:
    return f"{len(tools)} — " + ", ".join(c.tool for c in tools)


def _self_contained(result: ScanResult) -> list[str]:
    if not result.self_contained:
        return []
    lines = ["", "Routes inside one tool (no static cut exists: the route never leaves the tool)"]
    for capability in result.self_contained:
        lines.append(
            f"  {capability}: untrusted, sensitive and egress at once — runtime rule: "
            f"{_RULE_TEXT[RuntimeRule.ASK_BEFORE_SEND]}"
        )
    return lines


def _cut(cut: Cut, routes: int) -> list[str]:
    if routes == 0:
        return ["Minimum cut: nothing to cut"]
    chosen = cut.chosen
    lines = [
        f"Minimum cut: revoke {_plural(len(chosen.grants), 'grant')} ({chosen.side.value} side, "
        f"cost {chosen.capacity}; {_WHY_CHOSEN[cut.tie_break]})"
    ]
    width = max(len(str(g.capability)) for g in chosen.grants)
    for grant in chosen.grants:
        rule = _RULE_TEXT[runtime_rule(grant)]
        lines.append(f"  {grant.capability!s:<{width}}  {grant.direction.value:<5}  {rule}")
    if chosen.tasks_broken:
        lines.append("  breaks declared tasks: " + ", ".join(chosen.tasks_broken))
    else:
        lines.append("  breaks no declared task")
    if cut.other is not None:
        lines.append("  the other canonical minimum cut: " + _candidate_summary(cut.other))
    return lines


def _candidate_summary(candidate: CutCandidate) -> str:
    tasks = f", breaks {', '.join(candidate.tasks_broken)}" if candidate.tasks_broken else ""
    grants = ", ".join(str(g) for g in candidate.grants)
    return (
        f"{candidate.side.value} side, {len(candidate.grants)} grants, cost {candidate.capacity}"
        f"{tasks}: {grants}"
    )


def _receipt(result: ScanResult) -> list[str]:
    before, after = result.routes.count, result.receipt.count
    if before == 0:
        return ["Receipt: the route search finds no route; nothing was cut"]
    line = (
        f"Receipt: with the {_plural(len(result.cut.grants), 'grant')} revoked, the same route "
        f"search finds {_plural(after, 'route')} (was {before})"
    )
    if result.self_contained:
        line += (
            f"; the {len(result.self_contained)} self-contained remain (they need the runtime "
            "rule above)"
        )
    return [line]


# -- JSON ------------------------------------------------------------------------------------------


def to_json(result: ScanResult) -> dict[str, Any]:
    return {
        "cyclops_scan": SCAN_JSON_VERSION,
        "source": result.source,
        "patterns": {"source": result.patterns_source, "sha256": result.patterns_sha256},
        "servers": [
            {
                "name": s.name,
                "tools": len(s.tools),
                "roles": [
                    {"role": m.role, "reason": m.reason.value, "detail": m.detail}
                    for m in result.labelling.roles.get(s.name, ())
                ],
            }
            for s in result.snapshot.servers
        ],
        "tools": [_tool_json(t) for t in result.labelling.tools],
        "tasks": [
            {"name": t.name, "weight": t.weight, "needs": sorted(map(str, t.needs))}
            for t in result.tasks
        ],
        "routes": _routes_json(result.routes),
        "self_contained": [
            {"tool": str(c), "runtime_rule": RuntimeRule.ASK_BEFORE_SEND.value}
            for c in result.self_contained
        ],
        "cut": _cut_json(result.cut),
        "receipt": {
            "revoked": [str(g) for g in result.cut.grants],
            "routes_before": result.routes.count,
            "routes_after": result.receipt.count,
        },
        "warnings": [{"kind": w.kind.value, "subject": w.subject} for w in result.warnings],
        "mermaid": mermaid(result),
    }


def _tool_json(tool: ToolLabels) -> dict[str, Any]:
    return {
        "server": tool.capability.server,
        "tool": tool.capability.tool,
        "labels": sorted(label.value for label in tool.labels),
        "covered": tool.covered,
        "rules": [
            {"role": r.role, "glob": r.glob, "labels": [x.value for x in r.labels]}
            for r in tool.rules
        ],
        "inferred": [
            {"label": i.label.value, "inference": i.inference.value, "argument": i.argument}
            for i in tool.inferred
        ],
    }


def _routes_json(routes: RouteSearch) -> dict[str, Any]:
    return {
        "untrusted": [str(c) for c in routes.untrusted],
        "count": routes.count,
        "readers": {g.store.server: [str(c) for c in g.readers] for g in routes.groups},
        "writers": {g.sink.server: [str(c) for c in g.writers] for g in routes.groups},
        "groups": [
            {"store": g.store.server, "sink": g.sink.server, "count": g.count}
            for g in routes.groups
        ],
        "shown": [
            {
                "reader": str(r.reader),
                "writer": str(r.writer),
                "path": [str(n) for n in (*r.into_context, *r.out_of_context[1:])],
            }
            for r in routes.routes()
        ],
        "order": ORDER_NOTE,
    }


def _cut_json(cut: Cut) -> dict[str, Any]:
    def candidate(c: CutCandidate) -> dict[str, Any]:
        return {
            "side": c.side.value,
            "capacity": c.capacity,
            "grants": [
                {
                    "tool": str(g.capability),
                    "direction": g.direction.value,
                    "runtime_rule": runtime_rule(g).value,
                }
                for g in c.grants
            ],
            "tasks_broken": list(c.tasks_broken),
        }

    return {
        **candidate(cut.chosen),
        "tie_break": cut.tie_break.value,
        "other": candidate(cut.other) if cut.other is not None else None,
    }


def dumps(result: ScanResult) -> str:
    return json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n"
