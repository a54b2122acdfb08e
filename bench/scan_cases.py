"""A seeded generator of host configurations for `cyclops scan`, with expected routes and cuts.

Each case is a tools snapshot (servers and the tools they list) plus what a correct scan must
report. The expectations come from this file alone, not from cyclops: every template tool carries
the labels a reader of patterns.toml gives it, and the expected cut is computed in closed form —
with one context hub a cut must revoke every read grant on a route or every write grant, so the
minimum is the cheaper side; on equal cost fewer grants win, then fewer broken tasks, then the
write side. cyclops computes it with a maximum flow; the two must agree.

Categories (51 cases at the default seed):

- ``planted`` (12): 3–5 servers with at least one untrusted, one sensitive and one egress tool;
  some servers hold two legs (a mailbox reads and sends).
- ``hub_only`` (10): every server holds one leg only: the leaks exist only through the context.
- ``clean`` (10): a leg is missing (no untrusted content, no private data, no sink), or only
  privileged tools.
- ``tie`` (8): equal-cost cuts: a full tie (write side), fewer grants, fewer broken tasks (each
  side).
- ``tasks`` (4): declared tasks make the cheaper side dear: the cut moves.
- ``self_contained`` (2): a computer-use tool: a route inside one tool, no static cut.
- ``inferred`` (4): servers no rule covers, labelled from their annotations and arguments.
- ``chain40`` (1): 40 tools on 10 servers chaining through the hub (the timing case).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CATALOG", "Case", "ExpectedCut", "TaskSpec", "ToolT", "generate", "sized_config"]

U, S, E, P = "untrusted", "sensitive", "egress", "privileged"


@dataclass(frozen=True)
class ToolT:
    name: str
    labels: frozenset[str]
    annotations: dict[str, bool] | None = None
    args: tuple[str, ...] = ()

    def raw(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "name": self.name,
            "description": f"{self.name} (generated)",
            "inputSchema": {
                "type": "object",
                "properties": {a: {"type": "string"} for a in self.args},
            },
        }
        if self.annotations is not None:
            raw["annotations"] = dict(self.annotations)
        return raw


def t(
    name: str, *labels: str, annotations: dict[str, bool] | None = None, args: tuple[str, ...] = ()
) -> ToolT:
    return ToolT(name, frozenset(labels), annotations, args)


CLOSED = {"openWorldHint": False, "readOnlyHint": True}
OPEN_WRITE = {"openWorldHint": True, "readOnlyHint": False, "destructiveHint": False}

CATALOG: dict[str, tuple[tuple[str, ...], tuple[ToolT, ...]]] = {
    # kind: (server names users give it, tools with the labels patterns.toml gives them)
    "filesystem": (
        ("filesystem", "fs", "files"),
        (
            t("read_text_file", S),
            t("read_multiple_files", S),
            t("list_directory", S),
            t("search_files", S),
            t("directory_tree", S),
            t("get_file_info", S),
            t("move_file", P),
        ),
    ),
    "git": (
        ("git", "mcp-server-git"),
        (
            t("git_status", S),
            t("git_diff", S),
            t("git_log", S),
            t("git_show", S),
            t("git_branch", S),
            t("git_reset", P),
            t("git_checkout", P),
        ),
    ),
    "memory": (
        ("memory", "knowledge-graph"),
        (t("read_graph", S), t("search_nodes", S), t("open_nodes", S), t("delete_entities", P)),
    ),
    "database": (
        ("postgres", "sqlite"),
        (t("query", S), t("list_tables", S), t("describe_table", S), t("drop_table", P)),
    ),
    "fetch": (("fetch",), (t("fetch", U, E),)),
    "web": (("web",), (t("fetch_page", U, E),)),
    "search": (("brave-search", "tavily"), (t("brave_web_search", U), t("brave_local_search", U))),
    "github_read": (
        ("github",),
        (
            t("get_issue", U),
            t("list_issues", U),
            t("get_pull_request", U),
            t("search_repositories", U),
        ),
    ),
    "github_private": (
        ("github-enterprise",),
        (t("get_file_contents", U, S), t("search_code", U, S)),
    ),
    "github_write": (
        ("gh",),
        (
            t("create_issue", E),
            t("add_issue_comment", E),
            t("create_pull_request", E),
            t("merge_pull_request", P),
        ),
    ),
    "slack": (
        ("slack",),
        (
            t("slack_get_channel_history", U, S),
            t("slack_get_thread_replies", U, S),
            t("slack_list_channels", S),
            t("slack_post_message", E),
            t("slack_reply_to_thread", E),
        ),
    ),
    "mail": (
        ("gmail", "mail"),
        (
            t("read_email", U, S),
            t("search_emails", U, S),
            t("list_emails", U, S),
            t("send_email", E),
            t("delete_email", P),
        ),
    ),
    "notify": (
        ("notify", "webhook-relay"),
        (t("send_message", E), t("post_update", E), t("publish_note", E)),
    ),
    "shell": (("shell", "terminal"), (t("run_command", P),)),
    "computer": (("computer-use", "screen"), (t("computer", U, S, E), t("click", P))),
    "acme": (
        ("acme-crm", "ledger"),
        (
            t("lookup_customer", S, annotations=CLOSED),
            t("customer_notes", S, annotations=CLOSED, args=("customer",)),
            t("export_report", U, E, annotations=OPEN_WRITE),
            t("render_invoice", S, U, E, annotations=CLOSED, args=("template_url",)),
        ),
    ),
}

UNTRUSTED_KINDS = ("fetch", "web", "search", "github_read", "github_private", "slack", "mail")
SENSITIVE_KINDS = ("filesystem", "git", "memory", "database", "github_private", "slack", "mail")
EGRESS_KINDS = ("fetch", "web", "github_write", "slack", "mail", "notify")
READ_ONLY_KINDS = ("filesystem", "git", "memory", "database")  # one leg: sensitive
SEND_ONLY_KINDS = ("notify", "github_write")  # one leg: egress
SEE_ONLY_KINDS = ("search", "github_read")  # one leg: untrusted


@dataclass(frozen=True)
class TaskSpec:
    name: str
    tools: tuple[str, ...]
    """server/tool names."""
    weight: int = 10


@dataclass(frozen=True)
class ExpectedCut:
    side: str
    """read, write or none."""
    tie_break: str
    grants: tuple[str, ...]
    """``server/tool (read|write)``, sorted."""


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    servers: tuple[tuple[str, tuple[ToolT, ...]], ...]
    tasks: tuple[TaskSpec, ...] = ()
    routes: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    self_contained: tuple[str, ...] = ()
    labels: dict[str, frozenset[str]] = field(default_factory=dict)
    cut: ExpectedCut = ExpectedCut("none", "no_routes", ())

    def snapshot(self) -> dict[str, Any]:
        return {
            "cyclops_tools_snapshot": 1,
            "servers": [
                {"name": name, "roles": [], "tools": [tool.raw() for tool in tools]}
                for name, tools in self.servers
            ],
        }

    def tasks_toml(self) -> str:
        lines = []
        for task in self.tasks:
            tools = ", ".join(f'"{x}"' for x in task.tools)
            lines += [
                "[[task]]",
                f'name = "{task.name}"',
                f"tools = [{tools}]",
                f"weight = {task.weight}",
                "",
            ]
        return "\n".join(lines)

    @property
    def tool_count(self) -> int:
        return sum(len(tools) for _, tools in self.servers)


def expect(
    name: str,
    category: str,
    servers: Sequence[tuple[str, Sequence[ToolT]]],
    tasks: Sequence[TaskSpec] = (),
) -> Case:
    """The oracle: routes, self-contained tools and the cut from the templates' labels."""
    labels = {f"{s}/{tool.name}": tool.labels for s, tools in servers for tool in tools}
    untrusted = any(U in ls for ls in labels.values())
    readers = sorted(k for k, ls in labels.items() if S in ls)
    writers = sorted(k for k, ls in labels.items() if E in ls)
    routes = frozenset((r, w) for r in readers for w in writers) if untrusted else frozenset()
    selfish = tuple(sorted(k for k, ls in labels.items() if {U, S, E} <= ls))
    return Case(
        name=name,
        category=category,
        servers=tuple((s, tuple(tools)) for s, tools in servers),
        tasks=tuple(tasks),
        routes=routes,
        self_contained=selfish,
        labels=labels,
        cut=_expected_cut(readers, writers, tasks)
        if routes
        else ExpectedCut("none", "no_routes", ()),
    )


def _expected_cut(readers: list[str], writers: list[str], tasks: Sequence[TaskSpec]) -> ExpectedCut:
    def cost(tool: str) -> int:
        return 1 + sum(task.weight for task in tasks if tool in task.tools)

    def broken(tools: Iterable[str]) -> int:
        chosen = set(tools)
        return sum(1 for task in tasks if chosen & set(task.tools))

    read = ExpectedCut("read", "", tuple(f"{r} (read)" for r in readers))
    write = ExpectedCut("write", "", tuple(f"{w} (write)" for w in writers))
    read_cost, write_cost = sum(map(cost, readers)), sum(map(cost, writers))
    if read_cost != write_cost:
        best = read if read_cost < write_cost else write
        return ExpectedCut(best.side, "unique", best.grants)
    if len(readers) != len(writers):
        best = read if len(readers) < len(writers) else write
        return ExpectedCut(best.side, "fewer_grants", best.grants)
    if broken(readers) != broken(writers):
        best = read if broken(readers) < broken(writers) else write
        return ExpectedCut(best.side, "fewer_tasks", best.grants)
    return ExpectedCut("write", "write_side", write.grants)


# -- categories ----------------------------------------------------------------------------------


class _Picker:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def server(
        self, kind: str, tools: Sequence[ToolT] | None = None
    ) -> tuple[str, tuple[ToolT, ...]]:
        names, catalog = CATALOG[kind]
        name = next((n for n in self.rng.sample(names, len(names)) if n not in self.used), None)
        if name is None:
            name = f"{names[0]}-{len(self.used)}"
        self.used.add(name)
        if tools is None:
            size = self.rng.randint(1, len(catalog))
            tools = sorted(self.rng.sample(catalog, size), key=lambda x: x.name)
        return name, tuple(tools)

    def having(self, kind: str, label: str) -> tuple[str, tuple[ToolT, ...]]:
        """A server of ``kind`` whose random tools include one with ``label``."""
        catalog = CATALOG[kind][1]
        must = self.rng.choice([x for x in catalog if label in x.labels])
        rest = [x for x in catalog if x is not must]
        extra = self.rng.sample(rest, self.rng.randint(0, len(rest)))
        return self.server(kind, sorted([must, *extra], key=lambda x: x.name))


def _planted(rng: random.Random, i: int) -> Case:
    pick = _Picker(rng)
    servers = [
        pick.having(rng.choice(UNTRUSTED_KINDS), U),
        pick.having(rng.choice(SENSITIVE_KINDS), S),
        pick.having(rng.choice(EGRESS_KINDS), E),
    ]
    for kind in rng.sample(
        ["filesystem", "memory", "notify", "shell", "search"], rng.randint(0, 2)
    ):
        servers.append(pick.server(kind))
    return expect(f"planted-{i:03d}", "planted", servers)


def _hub_only(rng: random.Random, i: int) -> Case:
    pick = _Picker(rng)
    servers = [pick.server(rng.choice(SEE_ONLY_KINDS))]
    servers += [pick.having(k, S) for k in rng.sample(READ_ONLY_KINDS, rng.randint(1, 2))]
    servers += [pick.having(k, E) for k in rng.sample(SEND_ONLY_KINDS, rng.randint(1, 2))]
    return expect(f"hub-only-{i:03d}", "hub_only", servers)


def _clean(rng: random.Random, i: int) -> Case:
    pick = _Picker(rng)
    variant = i % 4
    if variant == 0:  # no untrusted content
        kinds = ["filesystem", "memory", "notify", "github_write"]
    elif variant == 1:  # no private data
        kinds = ["fetch", "search", "notify", "github_read"]
    elif variant == 2:  # no sink
        kinds = ["filesystem", "search", "github_read", "github_private", "memory"]
    else:  # only privileged tools besides private reads
        kinds = ["shell", "filesystem", "git"]
    chosen = rng.sample(kinds, rng.randint(2, len(kinds)))
    return expect(f"clean-{i:03d}", "clean", [pick.server(k) for k in chosen])


def _readers(n: int, server: str = "filesystem") -> tuple[str, tuple[ToolT, ...]]:
    tools = [x for x in CATALOG["filesystem"][1] if S in x.labels][:n]
    return server, tuple(tools)


def _writers(n: int) -> tuple[str, tuple[ToolT, ...]]:
    return "notify", CATALOG["notify"][1][:n]


def _tie(rng: random.Random, i: int) -> Case:
    see = ("brave-search", (CATALOG["search"][1][0],))
    variant = i % 4
    n = rng.randint(2, 3)
    if variant == 0:  # full tie: n readers, n writers, no task
        return expect(f"tie-{i:03d}-full", "tie", [see, _readers(n), _writers(n)])
    if variant == 1:  # equal cost, fewer grants: 1 reader a task needs vs n writers
        task = TaskSpec("summarise", ("filesystem/read_text_file",), n - 1)
        return expect(f"tie-{i:03d}-fewer-grants", "tie", [see, _readers(1), _writers(n)], [task])
    # equal cost and grants (2 and 2), tasks differ
    readers, writers = _readers(2), _writers(2)
    r1 = f"filesystem/{readers[1][0].name}"
    w1 = f"notify/{writers[1][0].name}"
    if variant == 2:  # two light tasks on a reader, one heavy on a writer: the write side
        tasks = [TaskSpec("a", (r1,), 1), TaskSpec("b", (r1,), 1), TaskSpec("c", (w1,), 2)]
    else:  # the mirror: the read side
        tasks = [TaskSpec("a", (w1,), 1), TaskSpec("b", (w1,), 1), TaskSpec("c", (r1,), 2)]
    return expect(f"tie-{i:03d}-fewer-tasks", "tie", [see, readers, writers], tasks)


def _tasks(rng: random.Random, i: int) -> Case:
    see = ("fetch", CATALOG["fetch"][1])
    readers = _readers(rng.randint(2, 4))
    post = TaskSpec("post the daily summary", ("notify/send_message",), 10)
    if i % 2 == 0:  # one writer besides fetch, which a task needs: the read side
        return expect(
            f"tasks-{i:03d}",
            "tasks",
            [see, readers, _writers(1)],
            [post, TaskSpec("browse", ("fetch/fetch",), 10)],
        )
    read_all = TaskSpec("code review", tuple(f"filesystem/{x.name}" for x in readers[1]), 10)
    return expect(f"tasks-{i:03d}", "tasks", [see, readers, _writers(3)], [read_all])


def _self_contained(rng: random.Random, i: int) -> Case:
    pick = _Picker(rng)
    servers = [
        pick.server("computer", CATALOG["computer"][1]),
        pick.having("filesystem", S),
        pick.server("notify"),
    ]
    return expect(f"self-contained-{i:03d}", "self_contained", servers)


def _inferred(rng: random.Random, i: int) -> Case:
    pick = _Picker(rng)
    acme = CATALOG["acme"][1]
    tools = acme[:3] if i % 2 == 0 else acme  # the last one is a whole route by itself
    servers = [pick.server("acme", tools), pick.having(rng.choice(EGRESS_KINDS), E)]
    return expect(f"inferred-{i:03d}", "inferred", servers)


_CHAIN = {
    # tool names that still match their rule with a suffix (``read_*``, ``send_*``, ...)
    "search": ("brave-search", ("brave_web_search",), frozenset({U})),
    "filesystem": (
        "filesystem",
        ("read_text_file", "read_multiple_files", "list_directory", "get_file_info"),
        frozenset({S}),
    ),
    "memory": ("memory", ("read_graph", "search_nodes", "open_nodes"), frozenset({S})),
    "notify": ("notify", ("send_message", "post_update", "publish_note"), frozenset({E})),
}


def sized_config(tools: int, name: str = "chain") -> Case:
    """``tools`` tools on servers of four tools each, chaining through the hub: a quarter see
    untrusted content, half read private stores, a quarter send."""
    servers: list[tuple[str, tuple[ToolT, ...]]] = []
    for n in range(max(tools // 4, 1)):
        server, names, labels = _CHAIN[("search", "filesystem", "memory", "notify")[n % 4]]
        renamed = tuple(ToolT(f"{names[j % len(names)]}_{n}_{j}", labels) for j in range(4))
        servers.append((f"{server}-{n}", renamed))
    return expect(f"{name}-{tools}", f"chain{tools}", servers)


def generate(seed: int = 2026) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    cases += [_planted(rng, i) for i in range(12)]
    cases += [_hub_only(rng, i) for i in range(10)]
    cases += [_clean(rng, i) for i in range(10)]
    cases += [_tie(rng, i) for i in range(8)]
    cases += [_tasks(rng, i) for i in range(4)]
    cases += [_self_contained(rng, i) for i in range(2)]
    cases += [_inferred(rng, i) for i in range(4)]
    cases.append(sized_config(40))
    return cases
