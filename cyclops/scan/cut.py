"""The minimum cut of the capability graph's leak routes: the fewest, cheapest grants to revoke.

Pure. Rules:

1. The flow network runs from every private store to every public sink. A grant's capacity is
   the cost of revoking it: 1, plus the weight of every declared task that needs the tool; every
   other edge is infinite. Untrusted sources are not cut: untrusted text reaches an agent through
   channels no label sees, so the cut closes the data path itself and never relies on keeping
   untrusted text out.
2. Both canonical minimum cuts come from one maximum flow (preflow-push): the one nearest the
   stores (the *read side*) and the one nearest the sinks (the *write side*). Fewer grants wins,
   then fewer broken tasks, then the write side — the agent keeps reading and loses only the
   publishing. Grants come out sorted: the same graph always gives the same cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import networkx as nx
from networkx.algorithms.flow import preflow_push

from ..core.chokepoint import residual_reachable
from ..core.types import Capability
from .graph import CapabilityGraph, Direction, Grant, Node, NodeKind
from .routes import RouteSearch

__all__ = [
    "Cut",
    "CutCandidate",
    "CutSide",
    "Task",
    "TieBreak",
    "grant_costs",
    "minimum_cut",
]


@dataclass(frozen=True)
class Task:
    """Something the user needs the agent to do; revoking a tool it needs breaks it."""

    name: str
    needs: frozenset[Capability]
    weight: int = 10


class CutSide(StrEnum):
    READ = "read"
    """Every grant cut is a read grant: the agent loses access to private data."""
    WRITE = "write"
    """Every grant cut is a write grant: the agent loses only the publishing."""
    MIXED = "mixed"
    NONE = "none"
    """Nothing to cut: no leak route."""


class TieBreak(StrEnum):
    UNIQUE = "unique"
    """Both canonical minimum cuts are the same."""
    FEWER_GRANTS = "fewer_grants"
    FEWER_TASKS = "fewer_tasks"
    WRITE_SIDE = "write_side"
    NO_ROUTES = "no_routes"


@dataclass(frozen=True)
class CutCandidate:
    grants: tuple[Grant, ...]
    capacity: int
    tasks_broken: tuple[str, ...]
    nearest: NodeKind
    """PRIVATE_STORE for the canonical cut nearest the stores, PUBLIC_SINK for the other."""

    @property
    def side(self) -> CutSide:
        directions = {g.direction for g in self.grants}
        if not directions:
            return CutSide.NONE
        if len(directions) == 2:
            return CutSide.MIXED
        return CutSide.READ if Direction.READ in directions else CutSide.WRITE


@dataclass(frozen=True)
class Cut:
    chosen: CutCandidate
    other: CutCandidate | None
    """The other canonical minimum cut, when it differs."""
    tie_break: TieBreak

    @property
    def grants(self) -> tuple[Grant, ...]:
        return self.chosen.grants


def grant_costs(graph: CapabilityGraph, tasks: Sequence[Task]) -> dict[Grant, int]:
    """Rule 4: 1, plus the weight of each declared task that needs the grant's tool."""
    return {
        grant: 1 + sum(t.weight for t in tasks if grant.capability in t.needs)
        for grant in graph.grants
    }


_SOURCE = Node(NodeKind.PRIVATE_STORE, "\x00source")
_SINK = Node(NodeKind.PUBLIC_SINK, "\x00sink")
_NO_CUT = CutCandidate((), 0, (), NodeKind.PUBLIC_SINK)


def minimum_cut(
    graph: CapabilityGraph,
    routes: RouteSearch,
    tasks: Sequence[Task] = (),
) -> Cut:
    """Rule 4. ``routes`` is the search over the uncut graph: no route, nothing to cut."""
    if routes.count == 0:
        return Cut(_NO_CUT, None, TieBreak.NO_ROUTES)
    costs = grant_costs(graph, tasks)
    network: nx.DiGraph[Node] = nx.DiGraph()
    for node in graph.nodes:
        network.add_node(node)
    for edge in graph.edges:
        if edge.grant is None:
            network.add_edge(edge.source, edge.target)  # no capacity: infinite
        else:
            network.add_edge(edge.source, edge.target, capacity=costs[edge.grant], grant=edge.grant)
    for store in graph.of_kind(NodeKind.PRIVATE_STORE):
        network.add_edge(_SOURCE, store)
    for sink in graph.of_kind(NodeKind.PUBLIC_SINK):
        network.add_edge(sink, _SINK)
    residual = preflow_push(network, _SOURCE, _SINK)
    near_stores = residual_reachable(residual, _SOURCE, forward=True)
    near_sinks = set(network) - residual_reachable(residual, _SINK, forward=False)
    read_side = _candidate(network, near_stores, costs, tasks, NodeKind.PRIVATE_STORE)
    write_side = _candidate(network, near_sinks, costs, tasks, NodeKind.PUBLIC_SINK)
    if read_side.grants == write_side.grants:
        return Cut(write_side, None, TieBreak.UNIQUE)
    if len(read_side.grants) != len(write_side.grants):
        best, other = sorted((read_side, write_side), key=lambda c: len(c.grants))
        return Cut(best, other, TieBreak.FEWER_GRANTS)
    if len(read_side.tasks_broken) != len(write_side.tasks_broken):
        best, other = sorted((read_side, write_side), key=lambda c: len(c.tasks_broken))
        return Cut(best, other, TieBreak.FEWER_TASKS)
    return Cut(write_side, read_side, TieBreak.WRITE_SIDE)


def _candidate(
    network: nx.DiGraph[Node],
    source_side: set[Node],
    costs: Mapping[Grant, int],
    tasks: Sequence[Task],
    nearest: NodeKind,
) -> CutCandidate:
    crossing = [
        data.get("grant")
        for u, v, data in network.edges(data=True)
        if u in source_side and v not in source_side
    ]
    if any(g is None for g in crossing):  # an infinite edge: the flow network is broken
        raise AssertionError("a minimum cut crossed an edge that is not a grant")
    grants = tuple(sorted(g for g in crossing if isinstance(g, Grant)))
    cut = {g.capability for g in grants}
    broken = tuple(sorted(t.name for t in tasks if t.needs & cut))
    return CutCandidate(grants, sum(costs[g] for g in grants), broken, nearest)
