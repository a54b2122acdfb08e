"""The capability graph of a set of MCP servers.

Pure: no I/O, no clock, no logging. Rules:

1. **Nodes.** One ``PRIVATE_STORE`` per server with a sensitive tool (the data behind it), one
   ``UNTRUSTED_SOURCE`` per server with an untrusted tool (what third parties write there), one
   ``READER`` per tool that is sensitive or untrusted, one ``WRITER`` per egress tool, one
   ``PUBLIC_SINK`` per server with an egress tool, and the agent's ``CONTEXT``: one hub, because
   whatever any tool returns may end up in whatever any tool is sent.
2. **Edges.** store → reader and untrusted source → reader (the tool returns that content),
   reader → context (a *read grant*: the tool's results reach the agent), context → writer (a
   *write grant*: the agent may fill the tool's arguments), writer → sink. Only grants can be
   revoked; a tool with two roles has two grants.
3. Its leak routes are :mod:`cyclops.scan.routes`'s; its minimum cut is
   :mod:`cyclops.scan.cut`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from ..core.types import Capability, Label

__all__ = [
    "CONTEXT",
    "DEFAULT_MAX_SEGMENT",
    "CapabilityGraph",
    "Direction",
    "Edge",
    "Grant",
    "Node",
    "NodeKind",
    "build_graph",
]

DEFAULT_MAX_SEGMENT = 4
"""Edges allowed on each side of the hub (the graph built here needs 2)."""


class NodeKind(StrEnum):
    UNTRUSTED_SOURCE = "untrusted_source"
    PRIVATE_STORE = "private_store"
    READER = "reader"
    CONTEXT = "context"
    WRITER = "writer"
    PUBLIC_SINK = "public_sink"


class Direction(StrEnum):
    READ = "read"
    """Results reach the agent's context."""
    WRITE = "write"
    """The agent's context reaches the tool's arguments, and through them the outside."""


@dataclass(frozen=True, order=True)
class Node:
    kind: NodeKind
    server: str = ""
    tool: str = ""

    def __str__(self) -> str:
        if self.kind is NodeKind.CONTEXT:
            return "context"
        return f"{self.server}/{self.tool}" if self.tool else f"{self.server} ({self.kind.value})"


CONTEXT = Node(NodeKind.CONTEXT)


@dataclass(frozen=True, order=True)
class Grant:
    """What a cut revokes: one tool's read or write grant."""

    capability: Capability
    direction: Direction

    def __str__(self) -> str:
        return f"{self.capability} ({self.direction.value})"


@dataclass(frozen=True)
class Edge:
    source: Node
    target: Node
    grant: Grant | None = None


@dataclass(frozen=True)
class CapabilityGraph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    _out: Mapping[Node, tuple[Edge, ...]] = field(init=False, repr=False, compare=False)
    _in: Mapping[Node, tuple[Edge, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        out: dict[Node, list[Edge]] = {node: [] for node in self.nodes}
        into: dict[Node, list[Edge]] = {node: [] for node in self.nodes}
        for edge in self.edges:
            out[edge.source].append(edge)
            into[edge.target].append(edge)
        object.__setattr__(self, "_out", {n: tuple(es) for n, es in out.items()})
        object.__setattr__(self, "_in", {n: tuple(es) for n, es in into.items()})

    def out_edges(self, node: Node) -> tuple[Edge, ...]:
        return self._out.get(node, ())

    def in_edges(self, node: Node) -> tuple[Edge, ...]:
        return self._in.get(node, ())

    @property
    def grants(self) -> tuple[Grant, ...]:
        return tuple(sorted(e.grant for e in self.edges if e.grant is not None))

    def of_kind(self, kind: NodeKind) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind is kind)


def build_graph(tools: Iterable[tuple[Capability, frozenset[Label]]]) -> CapabilityGraph:
    """The graph of rules 1 and 2 for tools and their labels."""
    nodes: set[Node] = set()
    edges: set[Edge] = set()
    for capability, labels in tools:
        server, tool = capability.server, capability.tool
        if labels & {Label.SENSITIVE, Label.UNTRUSTED}:
            reader = Node(NodeKind.READER, server, tool)
            nodes |= {reader, CONTEXT}
            edges.add(Edge(reader, CONTEXT, Grant(capability, Direction.READ)))
            if Label.SENSITIVE in labels:
                store = Node(NodeKind.PRIVATE_STORE, server)
                nodes.add(store)
                edges.add(Edge(store, reader))
            if Label.UNTRUSTED in labels:
                source = Node(NodeKind.UNTRUSTED_SOURCE, server)
                nodes.add(source)
                edges.add(Edge(source, reader))
        if Label.EGRESS in labels:
            writer = Node(NodeKind.WRITER, server, tool)
            sink = Node(NodeKind.PUBLIC_SINK, server)
            nodes |= {writer, sink, CONTEXT}
            edges.add(Edge(CONTEXT, writer, Grant(capability, Direction.WRITE)))
            edges.add(Edge(writer, sink))
    ordered = sorted(edges, key=lambda e: (e.source, e.target))
    return CapabilityGraph(tuple(sorted(nodes)), tuple(ordered))
