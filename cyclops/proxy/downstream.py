"""One downstream MCP server: connected, listed, restarted when it dies.

A :class:`Downstream` is run by one holder task for its whole life (anyio cancel scopes must be
entered and left in the same task). The holder connects (stdio child or HTTP), does the
initialize handshake, lists every page of tools, resources, templates and prompts, then waits
until the connection ends; then it backs off and starts again. Requests go through
:meth:`Downstream.request`, which fails fast with a clear error while the server is down and
times out a call that hangs; the other downstreams are never affected.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientRequestContext, ClientSession, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from pydantic import BaseModel, RootModel, TypeAdapter, ValidationError

from .. import __version__
from .config import ServerConfig, Transport
from .liblog import quiet_library_logs

__all__ = ["Callbacks", "Connect", "Downstream", "DownstreamError", "Listing", "State"]

log = logging.getLogger("cyclops.downstream")
quiet_library_logs()  # the SDK's clients (and the HTTP libraries) log what they carry

BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0
CONNECT_TIMEOUT = 60.0
MAX_RELAYING = 64
"""Log messages and progress notifications of one server being relayed to the host at once;
past it, more are dropped. The SDK starts a task for every notification it reads: a server
that floods them would otherwise pile up tasks (memory) without bound, and every answer to the
host would wait behind them."""
_DROPPABLE = frozenset({"notifications/message", "notifications/progress"})
LIST_METHODS = {
    "tools": "tools/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
    "prompts": "prompts/list",
}


Connect = Callable[[], AbstractAsyncContextManager[TransportStreams]]
"""Opens a connection to a server some other way than its transport (in-process, in tests)."""


class State(StrEnum):
    STARTING = "starting"
    READY = "ready"
    DOWN = "down"
    STOPPED = "stopped"


class DownstreamError(Exception):
    """A downstream could not answer: down, timed out, or the connection broke mid-call."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"downstream server {server!r} {reason}")
        self.server = server
        self.reason = reason


class RawRequest(types.Request[Any, str]):
    """Any request, its params passed through untouched (unknown fields and ``_meta`` kept)."""

    method: str
    params: dict[str, Any] | None = None


class RawResult(RootModel[dict[str, Any]]):
    """Any result, as the server sent it."""


@dataclass
class Listing:
    """What a server offers, as raw JSON (every field forwarded as it came)."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    resourceTemplates: list[dict[str, Any]] = field(default_factory=list)  # the wire name
    prompts: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Callbacks:
    """How a downstream reaches the proxy: server→client requests and notifications."""

    request: Callable[[Downstream, str, dict[str, Any]], Awaitable[dict[str, Any]]]
    """A request from the server to its client (sampling, elicitation, roots)."""
    notification: Callable[[Downstream, str, dict[str, Any]], Awaitable[None]]
    """A notification (list changed, resource updated, log message)."""
    listed: Callable[[Downstream], Awaitable[None]]
    """The server (re)connected, or its lists changed, and :attr:`Downstream.listing` is new."""


class _WatchedDispatcher(JSONRPCDispatcher[Any]):
    """A dispatcher that says when its receive loop has ended (the server went away)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ended = anyio.Event()

    async def run(self, *args: Any, **kwargs: Any) -> None:
        try:
            await super().run(*args, **kwargs)
        finally:
            self.ended.set()


class Downstream:
    def __init__(
        self,
        config: ServerConfig,
        callbacks: Callbacks,
        errlog: TextIO | None = None,
        connect: Connect | None = None,
    ) -> None:
        self.config = config
        self._errlog = errlog or sys.stderr
        self._connect = connect
        self.name = config.name
        self.state = State.STARTING
        self.error: str | None = None
        self.listing = Listing()
        self.capabilities: types.ServerCapabilities | None = None
        self.instructions: str | None = None
        self._callbacks = callbacks
        self._session: ClientSession | None = None
        self._first_outcome = anyio.Event()  # the first start either worked or failed
        self._broken = anyio.Event()
        self.restarts = 0
        self._relaying = 0
        self.dropped_notifications = 0
        """Log and progress notifications dropped because the host could not keep up."""

    # -- life --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, serve, reconnect with back-off, until cancelled."""
        delay = BACKOFF_FIRST
        while True:
            try:
                await self._serve_once()
                delay = BACKOFF_FIRST  # it was up: the next failure starts a new back-off
            except (OSError, MCPError, DownstreamError, httpx2.HTTPError, RuntimeError) as exc:
                self._mark_down(_describe(exc))
            except BaseExceptionGroup as group:  # task groups wrap transport failures
                self._mark_down(_describe(group.exceptions[0]))
            else:
                self._mark_down("closed the connection")
            self.restarts += 1
            log.warning("%s is down (%s); restarting in %.1f s", self.name, self.error, delay)
            await anyio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    def _mark_down(self, reason: str) -> None:
        self.state = State.DOWN
        self.error = reason
        self._session = None
        self._first_outcome.set()

    async def _serve_once(self) -> None:
        self.state = State.STARTING
        self._broken = anyio.Event()
        async with self._transport() as (read, write):
            dispatcher = _WatchedDispatcher(read, write)
            session = ClientSession(
                dispatcher=dispatcher,
                # The handshake has CONNECT_TIMEOUT (a cold start is slow); each request after it
                # has the server's own timeout, passed in request().
                read_timeout_seconds=None,
                sampling_callback=self._on_sampling,
                elicitation_callback=self._on_elicitation,
                list_roots_callback=self._on_list_roots,
                message_handler=self._message_handler(),
                client_info=types.Implementation(name="cyclops", version=__version__),
            )
            async with session:
                with anyio.fail_after(CONNECT_TIMEOUT):
                    init = await session.initialize()
                self.capabilities = init.capabilities
                self.instructions = init.instructions
                self._session = session
                await self.refresh()
                self.state = State.READY
                self.error = None
                self._first_outcome.set()
                log.info("%s ready: %d tools", self.name, len(self.listing.tools))
                await self._callbacks.listed(self)
                async with anyio.create_task_group() as watch:
                    watch.start_soon(_set_when, dispatcher.ended, self._broken)
                    await self._broken.wait()
                    watch.cancel_scope.cancel()

    def _transport(self) -> AbstractAsyncContextManager[TransportStreams]:
        if self._connect is not None:
            return self._connect()
        config = self.config
        if config.transport is Transport.STDIO:
            params = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
                # The SDK's default ("strict") ends its reader at the first byte that is not
                # UTF-8, and the reader then waits, shielded, for the server to close its
                # stdout: every later call times out. Replaced, the line is just not JSON-RPC.
                encoding_error_handler="replace",
            )
            return stdio_client(params, errlog=self._errlog)
        client = httpx2.AsyncClient(headers=dict(config.headers), timeout=config.timeout)
        return streamable_http_client(config.url, http_client=client)

    async def settle(self, timeout: float) -> State:
        """Wait (at most ``timeout`` s) until the first start has worked or failed."""
        with anyio.move_on_after(timeout):
            await self._first_outcome.wait()
        return self.state

    # -- lists -------------------------------------------------------------------------------

    async def refresh(self, which: tuple[str, ...] = tuple(LIST_METHODS)) -> None:
        """Re-read every page of the given lists (only those the server's capabilities offer)."""
        for key in which:
            if self._offers(key):
                setattr(self.listing, key, await self._list_all(LIST_METHODS[key], key))

    def _offers(self, key: str) -> bool:
        caps = self.capabilities
        if caps is None:
            return False
        if key == "tools":
            return caps.tools is not None
        if key in ("resources", "resourceTemplates"):
            return caps.resources is not None
        return caps.prompts is not None

    async def _list_all(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(1000):  # a server that pages forever is cut off
            params = {"cursor": cursor} if cursor else None
            page = await self.request(method, params)
            items.extend(i for i in page.get(key, []) if isinstance(i, dict))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return items

    # -- requests ----------------------------------------------------------------------------

    async def request(
        self, method: str, params: Mapping[str, Any] | None, progress: ProgressFnT | None = None
    ) -> dict[str, Any]:
        """Send a request, raw in and raw out. Raises :class:`MCPError` for an error answer and
        :class:`DownstreamError` when the server is down, too slow, or drops the connection."""
        session = self._session
        if session is None:
            raise DownstreamError(self.name, f"is not available ({self.error or self.state.value})")
        request = RawRequest(method=method, params=dict(params) if params is not None else None)
        try:
            result = await session.send_request(
                request,
                RawResult,
                request_read_timeout_seconds=self.config.timeout,
                progress_callback=self._bounded(progress) if progress is not None else None,
            )
            return result.root
        except ValidationError:
            raise DownstreamError(
                self.name, f"answered {method} with a result that breaks the protocol"
            ) from None
        except MCPError as exc:
            if exc.error.code == types.REQUEST_TIMEOUT:
                raise DownstreamError(
                    self.name, f"did not answer {method} in {self.config.timeout:g} s"
                ) from None
            if exc.error.code == types.CONNECTION_CLOSED:
                self._broken.set()
                raise DownstreamError(self.name, f"closed the connection during {method}") from None
            raise
        except (httpx2.HTTPError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._broken.set()
            raise DownstreamError(self.name, f"broke the connection during {method}") from None

    # -- from the server ---------------------------------------------------------------------

    async def _on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        answer = await self._ask("sampling/createMessage", params)
        if isinstance(answer, types.ErrorData):
            return answer
        return _SAMPLING_RESULT.validate_python(answer)

    async def _on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        answer = await self._ask("elicitation/create", params)
        if isinstance(answer, types.ErrorData):
            return answer
        return types.ElicitResult.model_validate(answer)

    async def _on_list_roots(
        self, context: ClientRequestContext
    ) -> types.ListRootsResult | types.ErrorData:
        answer = await self._ask("roots/list", None)
        if isinstance(answer, types.ErrorData):
            return answer
        return types.ListRootsResult.model_validate(answer)

    async def _ask(self, method: str, params: BaseModel | None) -> dict[str, Any] | types.ErrorData:
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True) if params else {}
        try:
            return await self._callbacks.request(self, method, raw)
        except MCPError as exc:
            return exc.error

    def _message_handler(self) -> MessageHandlerFnT:
        async def handle(message: Any) -> None:
            if isinstance(message, Exception):
                log.warning("%s: transport error: %s", self.name, type(message).__name__)
                return
            method = message.method
            if method in _DROPPABLE and self._relaying >= MAX_RELAYING:
                self._drop(method)
                return
            self._relaying += 1
            try:
                data = message.model_dump(by_alias=True, mode="json", exclude_none=True)
                await self._callbacks.notification(self, method, data.get("params") or {})
            finally:
                self._relaying -= 1

        return handle

    def _bounded(self, callback: ProgressFnT) -> ProgressFnT:
        """``callback``, dropping notifications while too many are being relayed."""

        async def relay(progress: float, total: float | None, message: str | None) -> None:
            if self._relaying >= MAX_RELAYING:
                self._drop("notifications/progress")
                return
            self._relaying += 1
            try:
                await callback(progress, total, message)
            finally:
                self._relaying -= 1

        return relay

    def _drop(self, method: str) -> None:
        self.dropped_notifications += 1
        if self.dropped_notifications == 1 or self.dropped_notifications % 10_000 == 0:
            log.warning(
                "%s floods notifications faster than the host takes them: %d dropped so far (%s)",
                self.name,
                self.dropped_notifications,
                method,
            )


_SAMPLING_RESULT: TypeAdapter[types.CreateMessageResult | types.CreateMessageResultWithTools] = (
    TypeAdapter(types.CreateMessageResult | types.CreateMessageResultWithTools)
)


async def _set_when(source: anyio.Event, target: anyio.Event) -> None:
    await source.wait()
    target.set()


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # nested task groups
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"could not start: {exc.filename or 'command'} not found"
    if isinstance(exc, DownstreamError):
        return exc.reason
    if isinstance(exc, TimeoutError):
        return f"did not finish the handshake in {CONNECT_TIMEOUT:g} s"
    if isinstance(exc, MCPError):
        return f"answered with error {exc.error.code}"
    return type(exc).__name__
