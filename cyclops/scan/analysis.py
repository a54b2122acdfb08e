"""One scan, start to finish, without I/O: labels → graph → routes → cut → receipt.

The result says what needs doing (``warnings``: leak routes, tools that are a route by
themselves, tasks the cut breaks) apart from what is only explained (which labels were
inferred). A configuration with no leak route has an empty cut and no warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..core.patterns import Patterns
from ..core.types import Capability
from .cut import Cut, Task, minimum_cut
from .graph import CapabilityGraph, Direction, Grant, build_graph
from .labels import Labelling, label_tools
from .routes import RouteSearch, find_routes
from .snapshot import Snapshot

__all__ = [
    "DEFAULT_ROUTE_LIMIT",
    "RuntimeRule",
    "ScanResult",
    "ScanWarning",
    "WarningKind",
    "runtime_rule",
    "scan",
]

DEFAULT_ROUTE_LIMIT = 200


class WarningKind(StrEnum):
    LEAK_ROUTES = "leak_routes"
    """Private data can reach a public sink through the agent's context."""
    SELF_CONTAINED_ROUTE = "self_contained_route"
    """One tool is untrusted, sensitive and egress at once: no static cut closes it."""
    TASK_BROKEN = "task_broken"
    """The cut revokes a tool a declared task needs."""
    CUT_LEAVES_ROUTES = "cut_leaves_routes"
    """The receipt found routes with the cut applied (a bug: it should never fire)."""


class RuntimeRule(StrEnum):
    """What to do at run time about a grant or a tool."""

    DENY = "deny"
    """Deny the tool's calls: its results never reach the agent."""
    ASK_BEFORE_SEND = "ask_before_send"
    """Ask the user before a call sends anything (deny it when nobody answers)."""


def runtime_rule(grant: Grant) -> RuntimeRule:
    return RuntimeRule.DENY if grant.direction is Direction.READ else RuntimeRule.ASK_BEFORE_SEND


@dataclass(frozen=True, order=True)
class ScanWarning:
    kind: WarningKind
    subject: str
    """What it is about: a tool (server/tool), a task's name, or a count of routes."""


@dataclass(frozen=True)
class ScanResult:
    source: str
    patterns_source: str
    patterns_sha256: str
    snapshot: Snapshot
    labelling: Labelling
    tasks: tuple[Task, ...]
    graph: CapabilityGraph
    routes: RouteSearch
    self_contained: tuple[Capability, ...]
    cut: Cut
    receipt: RouteSearch
    """The route search again, with the cut's grants revoked."""
    warnings: tuple[ScanWarning, ...]

    @property
    def clean(self) -> bool:
        return not self.warnings


def scan(
    snapshot: Snapshot,
    patterns: Patterns,
    tasks: Sequence[Task] = (),
    *,
    source: str = "",
    limit: int = DEFAULT_ROUTE_LIMIT,
) -> ScanResult:
    labelling = label_tools(patterns, snapshot)
    graph = build_graph((t.capability, t.labels) for t in labelling.tools)
    routes = find_routes(graph, limit=limit)
    cut = minimum_cut(graph, routes, tasks)
    receipt = find_routes(graph, cut.grants, limit=limit)
    self_contained = tuple(sorted(t.capability for t in labelling.tools if t.self_contained))
    warnings: list[ScanWarning] = []
    if routes.count:
        warnings.append(ScanWarning(WarningKind.LEAK_ROUTES, str(routes.count)))
    warnings += [ScanWarning(WarningKind.SELF_CONTAINED_ROUTE, str(c)) for c in self_contained]
    warnings += [ScanWarning(WarningKind.TASK_BROKEN, t) for t in cut.chosen.tasks_broken]
    if receipt.count:
        warnings.append(ScanWarning(WarningKind.CUT_LEAVES_ROUTES, str(receipt.count)))
    return ScanResult(
        source=source,
        patterns_source=patterns.source,
        patterns_sha256=patterns.sha256,
        snapshot=snapshot,
        labelling=labelling,
        tasks=tuple(tasks),
        graph=graph,
        routes=routes,
        self_contained=self_contained,
        cut=cut,
        receipt=receipt,
        warnings=tuple(warnings),
    )
