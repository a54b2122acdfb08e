"""The capability graph, route counting and the minimum cut, as tables and properties."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cyclops.core.types import Capability, Label
from cyclops.scan.cut import CutSide, Task, TieBreak, grant_costs, minimum_cut
from cyclops.scan.graph import (
    CONTEXT,
    CapabilityGraph,
    Direction,
    Edge,
    Grant,
    Node,
    NodeKind,
    build_graph,
)
from cyclops.scan.routes import find_routes, route_edges

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


def tools(*specs: tuple[str, str, set[Label]]) -> list[tuple[Capability, frozenset[Label]]]:
    return [(Capability(server, tool), frozenset(labels)) for server, tool, labels in specs]


def read(server: str, tool: str) -> Grant:
    return Grant(Capability(server, tool), Direction.READ)


def write(server: str, tool: str) -> Grant:
    return Grant(Capability(server, tool), Direction.WRITE)


ATTACK = tools(
    ("fs", "read_file", {S}),
    ("web", "fetch", {U, E}),
    ("notify", "send", {E}),
)


@pytest.mark.parametrize(
    ("specs", "count"),
    [
        pytest.param(ATTACK, 2, id="one reader, two writers"),
        pytest.param(tools(("fs", "read", {S}), ("notify", "send", {E})), 0, id="no untrusted"),
        pytest.param(tools(("web", "fetch", {U, E}), ("notify", "send", {E})), 0, id="no store"),
        pytest.param(tools(("fs", "read", {S}), ("web", "search", {U})), 0, id="no sink"),
        pytest.param(tools(("mail", "read", {U, S}), ("mail", "send", {E})), 1, id="one server"),
        pytest.param(
            tools(("a", "r1", {S}), ("a", "r2", {S}), ("b", "w", {E}), ("c", "page", {U})),
            2,
            id="across servers",
        ),
        pytest.param(tools(("screen", "computer", {U, S, E})), 1, id="a tool with all three"),
        pytest.param(tools(("shell", "run", {P}), ("web", "fetch", {U, E})), 0, id="privileged"),
    ],
)
def test_routes_are_every_sensitive_reader_with_every_writer_once_untrusted_content_enters(
    specs: list[tuple[Capability, frozenset[Label]]], count: int
) -> None:
    search = find_routes(build_graph(specs))
    assert search.count == count
    assert len(list(search.routes())) == count


def test_a_route_runs_store_reader_context_writer_sink() -> None:
    route = next(find_routes(build_graph(ATTACK)).routes())
    assert [n.kind for n in (*route.into_context, *route.out_of_context[1:])] == [
        NodeKind.PRIVATE_STORE,
        NodeKind.READER,
        NodeKind.CONTEXT,
        NodeKind.WRITER,
        NodeKind.PUBLIC_SINK,
    ]
    assert route.grants == (read("fs", "read_file"), write("notify", "send"))


def test_routes_are_grouped_by_store_and_sink_with_their_readers_and_writers() -> None:
    graph = build_graph(
        tools(("a", "r1", {S}), ("a", "r2", {S}), ("b", "w1", {E}), ("b", "w2", {E}))
        + tools(("c", "page", {U, E}))
    )
    search = find_routes(graph)
    by_pair = {(g.store.server, g.sink.server): g for g in search.groups}
    assert sorted(by_pair) == [("a", "b"), ("a", "c")]
    assert by_pair["a", "b"].count == 4
    assert [c.tool for c in by_pair["a", "b"].readers] == ["r1", "r2"]
    assert [c.tool for c in by_pair["a", "b"].writers] == ["w1", "w2"]
    assert search.untrusted == (Capability("c", "page"),)


def test_a_listing_stops_at_the_limit_but_the_count_is_whole() -> None:
    specs = [(Capability("fs", f"read_{i}"), frozenset({S})) for i in range(30)]
    specs += [(Capability("out", f"send_{i}"), frozenset({E})) for i in range(30)]
    specs += tools(("web", "page", {U}))
    search = find_routes(build_graph(specs), limit=7)
    assert search.count == 900
    assert search.shown == 7
    assert search.truncated


@pytest.mark.parametrize(
    ("revoked", "count"),
    [
        pytest.param([write("notify", "send")], 1, id="one writer"),
        pytest.param([write("notify", "send"), write("web", "fetch")], 0, id="every writer"),
        pytest.param([read("fs", "read_file")], 0, id="the reader"),
        pytest.param([read("web", "fetch")], 0, id="the only untrusted entry"),
    ],
)
def test_revoked_grants_take_their_routes_away(revoked: list[Grant], count: int) -> None:
    assert find_routes(build_graph(ATTACK), revoked).count == count


# -- the cut --------------------------------------------------------------------------------------

RS = tools(("fs", "r1", {S}), ("fs", "r2", {S}), ("web", "page", {U}))


def writers(n: int) -> list[tuple[Capability, frozenset[Label]]]:
    return [(Capability("out", f"w{i}"), frozenset({E})) for i in range(1, n + 1)]


def task(name: str, weight: int, *needs: tuple[str, str]) -> Task:
    return Task(name, frozenset(Capability(s, t) for s, t in needs), weight)


@pytest.mark.parametrize(
    ("specs", "tasks", "side", "tie_break", "grants"),
    [
        pytest.param(RS + writers(1), [], CutSide.WRITE, TieBreak.UNIQUE, 1, id="fewer writers"),
        pytest.param(RS + writers(3), [], CutSide.READ, TieBreak.UNIQUE, 2, id="fewer readers"),
        pytest.param(
            RS + writers(2), [], CutSide.WRITE, TieBreak.WRITE_SIDE, 2, id="full tie: write side"
        ),
        pytest.param(
            RS + writers(1),
            [task("post", 10, ("out", "w1"))],
            CutSide.READ,
            TieBreak.UNIQUE,
            2,
            id="a task makes the writer dear",
        ),
        pytest.param(
            tools(("fs", "r1", {S}), ("web", "page", {U})) + writers(3),
            [task("read", 2, ("fs", "r1"))],
            CutSide.READ,
            TieBreak.FEWER_GRANTS,
            1,
            id="equal cost: fewer grants wins though it breaks a task",
        ),
        pytest.param(
            RS + writers(2),
            [
                task("t1", 1, ("fs", "r1")),
                task("t2", 1, ("fs", "r1")),
                task("t3", 2, ("out", "w1")),
            ],
            CutSide.WRITE,
            TieBreak.FEWER_TASKS,
            2,
            id="equal cost and grants: fewer broken tasks (write side)",
        ),
        pytest.param(
            RS + writers(2),
            [
                task("t1", 2, ("fs", "r1")),
                task("t2", 1, ("out", "w1")),
                task("t3", 1, ("out", "w2")),
            ],
            CutSide.READ,
            TieBreak.FEWER_TASKS,
            2,
            id="equal cost and grants: fewer broken tasks (read side)",
        ),
    ],
)
def test_the_cut_follows_cost_then_grants_then_tasks_then_the_write_side(
    specs: list[tuple[Capability, frozenset[Label]]],
    tasks: list[Task],
    side: CutSide,
    tie_break: TieBreak,
    grants: int,
) -> None:
    graph = build_graph(specs)
    routes = find_routes(graph)
    cut = minimum_cut(graph, routes, tasks)
    assert (cut.chosen.side, cut.tie_break, len(cut.grants)) == (side, tie_break, grants)
    assert find_routes(graph, cut.grants).count == 0
    assert list(cut.grants) == sorted(cut.grants)


def test_no_route_means_an_empty_cut() -> None:
    graph = build_graph(tools(("fs", "read", {S}), ("notify", "send", {E})))
    cut = minimum_cut(graph, find_routes(graph))
    assert (cut.grants, cut.tie_break, cut.chosen.side) == ((), TieBreak.NO_ROUTES, CutSide.NONE)


def test_a_task_that_needs_a_tool_raises_both_its_grants() -> None:
    graph = build_graph(tools(("screen", "computer", {U, S, E})))
    costs = grant_costs(graph, [task("demo", 4, ("screen", "computer"))])
    assert costs == {read("screen", "computer"): 5, write("screen", "computer"): 5}


def test_the_edges_on_routes_are_marked_and_those_off_routes_are_not() -> None:
    graph = build_graph(ATTACK + tools(("docs", "search", {U})))
    on = route_edges(graph)
    assert Edge(Node(NodeKind.READER, "fs", "read_file"), CONTEXT, read("fs", "read_file")) in on
    assert not any(e.source.server == "docs" for e in on)


# -- properties -----------------------------------------------------------------------------------

LABEL_SETS = st.sets(st.sampled_from([U, S, E, P]), max_size=3)


@st.composite
def configurations(draw: st.DrawFn) -> list[tuple[Capability, frozenset[Label]]]:
    n = draw(st.integers(1, 7))
    servers = draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    return [(Capability(s, f"t{i}"), frozenset(draw(LABEL_SETS))) for i, s in enumerate(servers)]


def closes(graph: CapabilityGraph, grants: Iterable[Grant]) -> bool:
    return find_routes(graph, grants).count == 0


ALWAYS_UNTRUSTED = (Capability("zz", "page"), frozenset({U}))


@settings(max_examples=300, deadline=None)
@given(configurations(), st.lists(st.integers(0, 3), min_size=3, max_size=3))
def test_the_cut_is_as_cheap_as_the_cheapest_set_of_grants_that_closes_every_data_path(
    specs: list[tuple[Capability, frozenset[Label]]], weights: list[int]
) -> None:
    # Untrusted content is always there (rule 4: the cut never relies on keeping it out), so a
    # closing set must break every store ⇝ context ⇝ sink path.
    graph = build_graph([*specs, ALWAYS_UNTRUSTED])
    capabilities = [c for c, _ in specs]
    tasks = [
        Task(f"t{i}", frozenset(capabilities[i :: len(weights)]), w) for i, w in enumerate(weights)
    ]
    cut = minimum_cut(graph, find_routes(graph), tasks)
    assert closes(graph, cut.grants)
    assert Grant(ALWAYS_UNTRUSTED[0], Direction.READ) not in cut.grants
    costs = grant_costs(graph, tasks)
    grants = [g for g in graph.grants if g.capability != ALWAYS_UNTRUSTED[0]]
    cheapest = min(
        sum(costs[g] for g in subset)
        for size in range(len(grants) + 1)
        for subset in itertools.combinations(grants, size)
        if closes(graph, subset)
    )
    assert cut.chosen.capacity == cheapest
    if cut.other is not None:
        assert cut.other.capacity == cheapest
        assert closes(graph, cut.other.grants)


@st.composite
def layered(draw: st.DrawFn) -> CapabilityGraph:
    """A DAG with longer segments than the builder makes: stores → readers → ... → context."""
    depth = draw(st.integers(1, 3))
    width = draw(st.integers(1, 3))
    layers_in = [[Node(NodeKind.PRIVATE_STORE, f"s{i}") for i in range(width)]]
    layers_in += [
        [Node(NodeKind.READER, f"L{d}", f"r{i}") for i in range(width)] for d in range(depth)
    ]
    layers_out = [
        [Node(NodeKind.WRITER, f"M{d}", f"w{i}") for i in range(width)] for d in range(depth)
    ]
    layers_out.append([Node(NodeKind.PUBLIC_SINK, f"k{i}") for i in range(width)])
    edges: set[Edge] = set()
    for upper, lower in itertools.pairwise([*layers_in, [CONTEXT], *layers_out]):
        for u in upper:
            for v in lower:
                if draw(st.booleans()):
                    grant = None
                    if v == CONTEXT:
                        grant = Grant(Capability(u.server, u.tool), Direction.READ)
                    elif u == CONTEXT:
                        grant = Grant(Capability(v.server, v.tool), Direction.WRITE)
                    edges.add(Edge(u, v, grant))
    source = Node(NodeKind.UNTRUSTED_SOURCE, "web")
    entry = Node(NodeKind.READER, "web", "page")
    edges |= {
        Edge(source, entry),
        Edge(entry, CONTEXT, Grant(Capability("web", "page"), Direction.READ)),
    }
    nodes = {n for layer in (*layers_in, *layers_out) for n in layer} | {CONTEXT, source, entry}
    return CapabilityGraph(
        tuple(sorted(nodes)), tuple(sorted(edges, key=lambda e: (e.source, e.target)))
    )


@settings(max_examples=200, deadline=None)
@given(layered(), st.integers(1, 5))
def test_counting_by_dynamic_programming_agrees_with_listing_every_route(
    graph: CapabilityGraph, bound: int
) -> None:
    search = find_routes(graph, limit=10**6, max_segment=bound)
    assert search.count == len(list(search.routes()))
    assert len({(r.into_context, r.out_of_context) for r in search.routes()}) == search.count
    assert all(len(r.into_context) - 1 <= bound for r in search.routes())


@settings(max_examples=100, deadline=None)
@given(layered())
def test_the_cut_of_a_deeper_graph_leaves_no_route(graph: CapabilityGraph) -> None:
    routes = find_routes(graph)
    cut = minimum_cut(graph, routes)
    assert find_routes(graph, cut.grants).count == 0
    assert (cut.grants == ()) == (routes.count == 0)
