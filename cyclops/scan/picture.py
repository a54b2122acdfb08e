"""The capability graph as a picture: Mermaid text, or Graphviz DOT for an SVG.

Edges on a leak route are thick; the cut's grants are red and dashed, labelled ``cut``. Pure: a
:class:`~cyclops.scan.analysis.ScanResult` in, text out (running ``dot`` is the caller's job).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .graph import Edge, Node, NodeKind
from .routes import route_edges

if TYPE_CHECKING:
    from .analysis import ScanResult

__all__ = ["dot", "mermaid"]

_SHAPES = {
    NodeKind.PRIVATE_STORE: ('[("', '")]'),
    NodeKind.UNTRUSTED_SOURCE: ('(["', '"])'),
    NodeKind.READER: ('["', '"]'),
    NodeKind.CONTEXT: ('{{"', '"}}'),
    NodeKind.WRITER: ('["', '"]'),
    NodeKind.PUBLIC_SINK: ('[/"', '"/]'),
}
_CAPTIONS = {
    NodeKind.PRIVATE_STORE: "private data",
    NodeKind.UNTRUSTED_SOURCE: "untrusted content",
    NodeKind.PUBLIC_SINK: "public sink",
}
_FILL = {
    NodeKind.PRIVATE_STORE: "#fde68a",
    NodeKind.UNTRUSTED_SOURCE: "#fecaca",
    NodeKind.READER: "#e0e7ff",
    NodeKind.CONTEXT: "#d1d5db",
    NodeKind.WRITER: "#e0e7ff",
    NodeKind.PUBLIC_SINK: "#bbf7d0",
}


def _caption(node: Node) -> str:
    if node.kind is NodeKind.CONTEXT:
        return "agent context"
    if node.tool:
        grant = "read" if node.kind is NodeKind.READER else "write"
        return f"{node.server}/{node.tool} ({grant})"
    return f"{node.server}: {_CAPTIONS[node.kind]}"


def _ids(result: ScanResult) -> dict[Node, str]:
    return {node: f"n{i}" for i, node in enumerate(result.graph.nodes)}


def _marks(result: ScanResult) -> tuple[frozenset[Edge], frozenset[Edge]]:
    on_route = route_edges(result.graph)
    revoked = set(result.cut.grants)
    cut = frozenset(e for e in result.graph.edges if e.grant in revoked)
    return on_route, cut


def mermaid(result: ScanResult) -> str:
    ids = _ids(result)
    on_route, cut = _marks(result)
    lines = ["flowchart LR"]
    for kind, fill in _FILL.items():
        lines.append(f"  classDef {kind.value} fill:{fill},stroke:#374151")
    for node in result.graph.nodes:
        left, right = _SHAPES[node.kind]
        text = _caption(node).replace('"', "#quot;")
        lines.append(f"  {ids[node]}{left}{text}{right}:::{node.kind.value}")
    styled: list[str] = []
    for index, edge in enumerate(result.graph.edges):
        a, b = ids[edge.source], ids[edge.target]
        if edge in cut:
            lines.append(f"  {a} -. cut .-> {b}")
            styled.append(f"  linkStyle {index} stroke:#dc2626,stroke-width:3px")
        elif edge in on_route:
            lines.append(f"  {a} ==> {b}")
        else:
            lines.append(f"  {a} --> {b}")
    return "\n".join(lines + styled) + "\n"


def dot(result: ScanResult) -> str:
    ids = _ids(result)
    on_route, cut = _marks(result)
    shapes = {
        NodeKind.PRIVATE_STORE: "cylinder",
        NodeKind.UNTRUSTED_SOURCE: "box",
        NodeKind.READER: "box",
        NodeKind.CONTEXT: "hexagon",
        NodeKind.WRITER: "box",
        NodeKind.PUBLIC_SINK: "parallelogram",
    }
    lines = [
        "digraph capabilities {",
        "  rankdir=LR;",
        '  node [style="filled,rounded", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for node in result.graph.nodes:
        caption = json.dumps(_caption(node))
        lines.append(
            f"  {ids[node]} [label={caption}, shape={shapes[node.kind]}, "
            f'fillcolor="{_FILL[node.kind]}"];'
        )
    for edge in result.graph.edges:
        a, b = ids[edge.source], ids[edge.target]
        if edge in cut:
            lines.append(
                f'  {a} -> {b} [color="#dc2626", style=dashed, penwidth=2.5, label="cut"];'
            )
        elif edge in on_route:
            lines.append(f"  {a} -> {b} [penwidth=2.5];")
        else:
            lines.append(f'  {a} -> {b} [color="#9ca3af"];')
    lines.append("}")
    return "\n".join(lines) + "\n"
