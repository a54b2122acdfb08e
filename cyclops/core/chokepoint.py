"""The choke point (C5): the fewest capabilities whose removal breaks every toxic route.

A route runs from an untrusted source through (for exfiltration) a sensitive read to a sink.
The capability graph layers each capability by the role it plays (a mailbox is both an
untrusted source and a sensitive read), splits every node into in → out with capacity 1, and
gives every other edge infinite capacity; a minimum s-t cut is then a minimum set of
(capability, role) nodes, i.e. of grants to revoke.

Of the two canonical minimum cuts — the one nearest the sources and the one nearest the sinks —
the one naming fewer distinct capabilities wins; on a tie the sink side does, so the agent
keeps reading and loses only the publishing. Capabilities come out sorted.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import networkx as nx
from networkx.algorithms.flow import edmonds_karp

from .types import Capability, Label

__all__ = ["Route", "choke_point", "residual_reachable"]

_SOURCE = ("source",)
_SINK = ("sink",)
Node = tuple[object, ...]
N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True)
class Route:
    """One toxic route between capabilities."""

    sources: frozenset[Capability]
    """Untrusted capabilities whose content reached the route (empty: the agent's own prompt)."""
    via: Capability | None
    """The sensitive read, for exfiltration."""
    sink: Capability


def choke_point(routes: Iterable[Route]) -> tuple[Capability, ...]:
    graph = _capability_graph(routes)
    if graph.number_of_nodes() == 0:
        return ()
    residual = edmonds_karp(graph, _SOURCE, _SINK)
    source_side = residual_reachable(residual, _SOURCE, forward=True)
    sink_side = residual_reachable(residual, _SINK, forward=False)
    near_sources = _cut_capabilities(graph, source_side)
    near_sinks = _cut_capabilities(graph, set(graph) - sink_side)
    best = near_sinks if len(near_sinks) <= len(near_sources) else near_sources
    return tuple(sorted(best))


def _capability_graph(routes: Iterable[Route]) -> nx.DiGraph[Node]:
    graph: nx.DiGraph[Node] = nx.DiGraph()
    for route in routes:
        sink = _split(graph, route.sink, Label.EGRESS)
        graph.add_edge(("out", *sink), _SINK)
        hop = _split(graph, route.via, Label.SENSITIVE) if route.via is not None else sink
        if route.via is not None:
            graph.add_edge(("out", *hop), ("in", *sink))
        if not route.sources:
            graph.add_edge(_SOURCE, ("in", *hop))
        for source in route.sources:
            node = _split(graph, source, Label.UNTRUSTED)
            graph.add_edge(_SOURCE, ("in", *node))
            if node != hop:
                graph.add_edge(("out", *node), ("in", *hop))
    return graph


def _split(graph: nx.DiGraph[Node], capability: Capability, role: Label) -> Node:
    node = (capability.server, capability.tool, role.value)
    graph.add_edge(("in", *node), ("out", *node), capacity=1)
    return node


def residual_reachable(residual: nx.DiGraph[N], start: N, *, forward: bool) -> set[N]:
    """Nodes reachable from ``start`` along edges with residual capacity (against them if not
    ``forward``): the source side of the cut nearest the sources, or the sink side of the cut
    nearest the sinks."""
    seen = {start}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        edges = (
            residual.out_edges(node, data=True) if forward else residual.in_edges(node, data=True)
        )
        for u, v, data in edges:
            other = v if forward else u
            if other not in seen and data["capacity"] - data["flow"] > 0:
                seen.add(other)
                queue.append(other)
    return seen


def _cut_capabilities(graph: nx.DiGraph[Node], source_side: set[Node]) -> set[Capability]:
    """Capabilities whose in → out edge crosses from ``source_side`` to the rest."""
    return {
        Capability(str(u[1]), str(u[2]))
        for u, v in graph.edges
        if u[0] == "in"
        and v[0] == "out"
        and u[1:] == v[1:]
        and u in source_side
        and v not in source_side
    }
