"""Leak routes through a capability graph (:mod:`cyclops.scan.graph`), counted, not listed.

Pure: no I/O, no clock, no logging. A leak route is a path private store ⇝ context ⇝ public sink
whose two segments have at most ``max_segment`` edges each, in a graph where some untrusted
source still reaches the context (the lethal trifecta: without untrusted content nothing steers
the agent). Routes are grouped by (store, sink). They are *counted* by dynamic programming over
the DAG — never by listing them — and only the first ``limit`` are materialised, in name order,
which ranks nothing. The receipt of a cut is this search run again with its grants revoked.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from ..core.types import Capability
from .graph import (
    CONTEXT,
    DEFAULT_MAX_SEGMENT,
    CapabilityGraph,
    Direction,
    Edge,
    Grant,
    Node,
    NodeKind,
)

__all__ = ["Route", "RouteGroup", "RouteSearch", "find_routes", "route_edges"]

_Live: TypeAlias = Callable[[Edge], bool]
"""Whether an edge is still there (its grant not revoked)."""


@dataclass(frozen=True)
class Route:
    """private store ⇝ reader → context → writer ⇝ public sink."""

    into_context: tuple[Node, ...]
    """From the store to the context, both included."""
    out_of_context: tuple[Node, ...]
    """From the context to the sink, both included."""

    @property
    def store(self) -> Node:
        return self.into_context[0]

    @property
    def sink(self) -> Node:
        return self.out_of_context[-1]

    @property
    def reader(self) -> Capability:
        node = self.into_context[-2]
        return Capability(node.server, node.tool)

    @property
    def writer(self) -> Capability:
        node = self.out_of_context[1]
        return Capability(node.server, node.tool)

    @property
    def grants(self) -> tuple[Grant, Grant]:
        return Grant(self.reader, Direction.READ), Grant(self.writer, Direction.WRITE)


@dataclass(frozen=True)
class RouteGroup:
    """Every route from one store to one sink: each of ``readers`` with each of ``writers``
    (through longer segments, each path to the hub with each path from it)."""

    store: Node
    sink: Node
    count: int
    readers: tuple[Capability, ...]
    """The tools that carry the store's data into the context."""
    writers: tuple[Capability, ...]
    """The tools that carry the context out to the sink."""
    shown: tuple[Route, ...]


@dataclass(frozen=True)
class RouteSearch:
    untrusted: tuple[Capability, ...]
    """Tools through which untrusted content still reaches the context."""
    count: int
    groups: tuple[RouteGroup, ...]
    limit: int

    @property
    def shown(self) -> int:
        return sum(len(g.shown) for g in self.groups)

    @property
    def truncated(self) -> bool:
        return self.shown < self.count

    def routes(self) -> Iterator[Route]:
        for group in self.groups:
            yield from group.shown


def find_routes(
    graph: CapabilityGraph,
    revoked: Iterable[Grant] = (),
    *,
    limit: int = 200,
    max_segment: int = DEFAULT_MAX_SEGMENT,
) -> RouteSearch:
    """Rule 3: count every route, list the first ``limit``."""
    gone = frozenset(revoked)

    def live(edge: Edge) -> bool:
        return edge.grant is None or edge.grant not in gone

    entering = sorted(
        {
            tool
            for source in graph.of_kind(NodeKind.UNTRUSTED_SOURCE)
            for tool in _hub_neighbours(graph, source, max_segment, live, into=True)
        }
    )
    if not entering:
        return RouteSearch((), 0, (), limit)
    stores = graph.of_kind(NodeKind.PRIVATE_STORE)
    sinks = graph.of_kind(NodeKind.PUBLIC_SINK)
    into = {s: _count_paths(graph, s, CONTEXT, max_segment, live) for s in stores}
    out = _count_paths_from(graph, CONTEXT, sinks, max_segment, live)
    readers = {s: _hub_neighbours(graph, s, max_segment, live, into=True) for s in stores}
    writers = {k: _hub_neighbours(graph, k, max_segment, live, into=False) for k in sinks}
    groups: list[RouteGroup] = []
    room = limit
    total = 0
    for store in stores:
        for sink in sinks:
            count = into[store] * out[sink]
            if count == 0:
                continue
            total += count
            shown = tuple(_listed(graph, store, sink, bound=max_segment, live=live, room=room))
            room -= len(shown)
            groups.append(RouteGroup(store, sink, count, readers[store], writers[sink], shown))
    return RouteSearch(tuple(entering), total, tuple(groups), limit)


def _hub_neighbours(
    graph: CapabilityGraph, end: Node, bound: int, live: _Live, *, into: bool
) -> tuple[Capability, ...]:
    """The tools next to the hub on some path ``end`` ⇝ hub (``into``) or hub ⇝ ``end``, found
    by a bounded search over nodes, never by listing paths."""
    if into:
        near = _within(graph, end, bound - 1, live, forward=True)
        found = {
            e.source for n in near for e in graph.out_edges(n) if e.target == CONTEXT and live(e)
        }
    else:
        near = _within(graph, end, bound - 1, live, forward=False)
        found = {
            e.target for n in near for e in graph.in_edges(n) if e.source == CONTEXT and live(e)
        }
    return tuple(sorted(Capability(n.server, n.tool) for n in found if n.tool))


def _within(
    graph: CapabilityGraph, start: Node, steps: int, live: _Live, *, forward: bool
) -> set[Node]:
    """Nodes at most ``steps`` edges from ``start`` (after it, or before it), not through the hub
    or a sink."""
    seen = {start}
    frontier = [start]
    for _ in range(steps):
        following = []
        for node in frontier:
            if forward:
                if not _passes(node, start):
                    continue
                nexts = [e.target for e in graph.out_edges(node) if live(e)]
            else:
                nexts = [
                    e.source for e in graph.in_edges(node) if live(e) and _passes(e.source, start)
                ]
            for other in nexts:
                if other not in seen:
                    seen.add(other)
                    following.append(other)
        frontier = following
    return seen


def _listed(
    graph: CapabilityGraph, store: Node, sink: Node, *, bound: int, live: _Live, room: int
) -> Iterator[Route]:
    """Routes from ``store`` to ``sink`` in name order, lazily: at most ``room`` are made."""
    if room <= 0:
        return
    for first in _paths(graph, store, CONTEXT, bound, live):
        for second in _paths(graph, CONTEXT, sink, bound, live):
            yield Route(first, second)
            room -= 1
            if room == 0:
                return


def _passes(node: Node, start: Node) -> bool:
    """Whether a path may go on through ``node``: the hub and the sinks end it."""
    return node == start or node.kind not in (NodeKind.CONTEXT, NodeKind.PUBLIC_SINK)


def _paths(
    graph: CapabilityGraph, start: Node, goal: Node, bound: int, live: _Live
) -> Iterator[tuple[Node, ...]]:
    """Every path start ⇝ goal of at most ``bound`` edges that does not pass the hub on the way."""
    stack: list[tuple[Node, tuple[Node, ...]]] = [(start, (start,))]
    while stack:
        node, path = stack.pop()
        if node == goal and len(path) > 1:
            yield path
            continue
        if len(path) > bound or not _passes(node, start):
            continue
        for edge in reversed(graph.out_edges(node)):  # popped in name order
            if live(edge) and edge.target not in path:
                stack.append((edge.target, (*path, edge.target)))


def _count_paths(graph: CapabilityGraph, start: Node, goal: Node, bound: int, live: _Live) -> int:
    return _count_paths_from(graph, start, (goal,), bound, live)[goal]


def _count_paths_from(
    graph: CapabilityGraph, start: Node, goals: Sequence[Node], bound: int, live: _Live
) -> dict[Node, int]:
    """Paths start ⇝ each goal of at most ``bound`` edges, counted length by length (the graph is
    a DAG, so every walk is a path); the hub and the sinks end a path, as in :func:`_paths`."""
    counts = dict.fromkeys(goals, 0)
    frontier: dict[Node, int] = {start: 1}
    for _ in range(bound):
        following: dict[Node, int] = {}
        for node, ways in frontier.items():
            if not _passes(node, start):
                continue
            for edge in graph.out_edges(node):
                if live(edge):
                    following[edge.target] = following.get(edge.target, 0) + ways
        for node, ways in following.items():
            if node in counts:
                counts[node] += ways
        frontier = following
    return counts


def route_edges(
    graph: CapabilityGraph, revoked: Iterable[Grant] = (), max_segment: int = DEFAULT_MAX_SEGMENT
) -> frozenset[Edge]:
    """The edges that lie on at least one leak route (for the picture); none without routes.

    An edge u → v before the hub is on a route when the nearest store is d₁ edges before u and
    the hub d₂ edges after v with d₁ + 1 + d₂ ≤ ``max_segment`` (in a DAG the two shortest paths
    and the edge make a path); after the hub likewise, with the nearest sink."""
    if find_routes(graph, revoked, limit=0, max_segment=max_segment).count == 0:
        return frozenset()
    gone = frozenset(revoked)

    def live(edge: Edge) -> bool:
        return edge.grant is None or edge.grant not in gone

    stores = graph.of_kind(NodeKind.PRIVATE_STORE)
    sinks = graph.of_kind(NodeKind.PUBLIC_SINK)
    from_store = _distances(graph, stores, live, forward=True)
    to_hub = _distances(graph, (CONTEXT,), live, forward=False)
    from_hub = _distances(graph, (CONTEXT,), live, forward=True)
    to_sink = _distances(graph, sinks, live, forward=False)
    on: set[Edge] = set()
    for edge in graph.edges:
        if not live(edge):
            continue
        u, v = edge.source, edge.target
        before = from_store.get(u, max_segment) + 1 + to_hub.get(v, max_segment)
        after = from_hub.get(u, max_segment) + 1 + to_sink.get(v, max_segment)
        if before <= max_segment or after <= max_segment:
            on.add(edge)
    return frozenset(on)


def _distances(
    graph: CapabilityGraph, starts: Sequence[Node], live: _Live, *, forward: bool
) -> dict[Node, int]:
    """Fewest edges from (or, against the edges, to) the nearest of ``starts``; the hub and the
    sinks end a path as in :func:`_paths`."""
    distance = dict.fromkeys(starts, 0)
    ends = (NodeKind.CONTEXT, NodeKind.PUBLIC_SINK)
    queue = deque(starts)
    while queue:
        node = queue.popleft()
        if forward:
            if distance[node] > 0 and node.kind in ends:
                continue
            nexts = [e.target for e in graph.out_edges(node) if live(e)]
        else:
            nexts = [e.source for e in graph.in_edges(node) if live(e)]
            nexts = [n for n in nexts if n.kind not in ends]
        for other in nexts:
            if other not in distance:
                distance[other] = distance[node] + 1
                queue.append(other)
    return distance
