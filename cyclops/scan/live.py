"""Listing the tools of live servers: start each one, list every page of its tools, stop it.

Each server is reached the way ``cyclops serve`` reaches it — the proxy's own
:class:`~cyclops.proxy.downstream.Downstream`, so the same transport, environment, handshake and
paging — all at once, each given ``timeout`` seconds to start. Their stderr is kept in a temporary
file and its last lines are shown if a server fails. A server that cannot be listed fails the
scan: a scan that skipped a server could call a leaky configuration clean.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..proxy.config import ServerConfig
from ..proxy.downstream import Callbacks, Downstream, State
from .snapshot import DEFAULT_START_TIMEOUT, ServerTools, Snapshot, ToolSpec

__all__ = ["DEFAULT_START_TIMEOUT", "ListingError", "list_live"]

log = logging.getLogger("cyclops.scan")

_STDERR_LINES = 5


class ListingError(Exception):
    """Some servers could not be started or listed; ``failures`` maps each to why."""

    def __init__(self, failures: dict[str, str]) -> None:
        self.failures = dict(sorted(failures.items()))
        detail = "; ".join(f"{name}: {why}" for name, why in self.failures.items())
        super().__init__(f"could not list the tools of {len(failures)} servers ({detail})")


async def _no_requests(downstream: Downstream, method: str, params: dict[str, Any]) -> Any:
    raise MCPError(types.METHOD_NOT_FOUND, f"cyclops scan does not answer {method}")


async def _ignore(*args: Any) -> None:
    return None


_CALLBACKS = Callbacks(request=_no_requests, notification=_ignore, listed=_ignore)


async def list_live(
    servers: Sequence[ServerConfig], timeout: float = DEFAULT_START_TIMEOUT
) -> Snapshot:
    listed: dict[str, ServerTools] = {}
    failures: dict[str, str] = {}

    async def one(config: ServerConfig) -> None:
        outcome = await _list_one(config, timeout)
        if isinstance(outcome, str):
            failures[config.name] = outcome
        else:
            listed[config.name] = outcome

    async with anyio.create_task_group() as tg:
        for config in servers:
            tg.start_soon(one, config)
    if failures:
        raise ListingError(failures)
    return Snapshot(tuple(listed[c.name] for c in servers))


async def _list_one(config: ServerConfig, timeout: float) -> ServerTools | str:
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        downstream = Downstream(config, _CALLBACKS, errlog)
        async with anyio.create_task_group() as tg:
            tg.start_soon(downstream.run)
            state = await downstream.settle(timeout)
            tg.cancel_scope.cancel()
        if state is not State.READY:
            why = downstream.error or f"did not start in {timeout:g} s"
            return why + _tail(errlog)
    tools: list[ToolSpec] = []
    seen: set[str] = set()
    for raw in downstream.listing.tools:
        name = raw.get("name")
        if not isinstance(name, str) or not name or name in seen:
            log.warning("%s listed a tool without a usable name, or twice: %r", config.name, name)
            continue
        seen.add(name)
        tools.append(ToolSpec(name, raw))
    log.info("%s: %d tools", config.name, len(tools))
    return ServerTools(config.name, tuple(tools), config.roles)


def _tail(errlog: Any) -> str:
    errlog.seek(0)
    lines = [line.rstrip() for line in errlog.read().splitlines() if line.strip()]
    if not lines:
        return ""
    return " — its stderr ended with: " + " | ".join(lines[-_STDERR_LINES:])
