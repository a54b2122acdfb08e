"""Declared tasks: what the agent must still be able to do after the cut.

A tasks file (``cyclops scan --tasks FILE``) is TOML::

    [[task]]
    name = "answer the support mailbox"
    tools = ["mail/read_email", "mail/send_email"]   # server/tool globs
    weight = 10                                       # optional (default 10)

Revoking a grant of a tool a task needs breaks the task, so that grant costs ``1 + weight``
instead of 1 in the minimum cut: with the default weight, the cut breaks a task only when every
cut that keeps it revokes more than ten extra grants. Loading is strict: an unknown key, a glob
without ``/`` or one that matches no scanned tool (a typo would silently protect nothing) is an
error naming the file, the key, the value and the fix. Pure: text in.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.regex import Glob, RegexError
from ..core.tomlreader import TableReader, parse_toml, refuse_duplicate_names
from ..core.types import Capability
from .cut import Task

__all__ = ["DEFAULT_WEIGHT", "parse_tasks"]

DEFAULT_WEIGHT = 10


def parse_tasks(text: str, source: str, tools: Sequence[Capability]) -> tuple[Task, ...]:
    data = parse_toml(text, source)
    top = TableReader(source, data)
    tasks = tuple(_task(t, tools) for t in top.tables("task"))
    top.finish()
    names = (task.name for task in tasks)
    refuse_duplicate_names(source, "task", names, "give every task its own name")
    return tasks


def _task(t: TableReader, tools: Sequence[Capability]) -> Task:
    name = t.string("name")
    globs = t.strings("tools")
    weight = t.integer("weight", DEFAULT_WEIGHT, minimum=0)
    needs: set[Capability] = set()
    for pattern in globs:
        server, slash, tool = pattern.partition("/")
        if not slash or not server or not tool:
            t.fail("tools", pattern, "not a server/tool glob", 'write it as "server/tool"')
        try:
            server_glob, tool_glob = Glob(server), Glob(tool)
        except RegexError as exc:
            t.fail("tools", pattern, f"bad glob: {exc}", "check [ ] pairs")
        matched = {c for c in tools if server_glob.matches(c.server) and tool_glob.matches(c.tool)}
        if not matched:
            t.fail(
                "tools",
                pattern,
                "matches no scanned tool",
                "check the server and tool names in the scan report",
            )
        needs |= matched
    t.finish()
    return Task(name, frozenset(needs), weight)
