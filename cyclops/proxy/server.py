"""The MCP server the host talks to: it aggregates the downstreams and taps every call.

Every handler moves messages and asks the core; it decides nothing itself. Requests and results
are forwarded as raw JSON, so fields cyclops does not know (``_meta``, vendor fields,
``structuredContent``, every content block type) pass through untouched.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

from .. import __version__, guard
from ..config import DEFAULT_ASK_TIMEOUT
from ..core.types import GET_PROMPT, READ_RESOURCE, Action, Decision, ToolCall
from ..trace import CallContext
from .approval import Answer, ask_user
from .catalog import Catalog
from .denial import TOOLS_CALL, denied_result, unavailable_result
from .downstream import Downstream, DownstreamError
from .pinning import PinStore
from .sessions import Sessions, UpstreamSession
from .wire import NOTIFICATION, RESULT_TYPES, fitted, typed_request, without_envelope

__all__ = ["ProxyServer", "Tap"]

log = logging.getLogger("cyclops.proxy")

_LIST_CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "resourceTemplates"),
    "notifications/prompts/list_changed": ("prompts",),
}
_PEER_GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, MCPError)


class ProxyServer(Server[Any]):
    """A low-level server that always advertises list changes (the HTTP session manager
    builds its initialization options without arguments)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        changes = NotificationOptions(
            prompts_changed=True, resources_changed=True, tools_changed=True
        )
        return super().create_initialization_options(changes, experimental_capabilities, extensions)


class Tap:
    """The handlers: forwarding, routing and the detection tap."""

    def __init__(
        self,
        sessions: Sessions,
        session_key: Callable[[Any], str],
        *,
        observer: Callable[[str, Decision], None] | None = None,
        detection: bool = True,
        pins: PinStore | None = None,
        ask_timeout: float = DEFAULT_ASK_TIMEOUT,
    ) -> None:
        self._observer = observer
        self._detection = detection
        self._pins = pins
        self._ask_timeout = ask_timeout
        self.downstreams: dict[str, Downstream] = {}
        self._order: list[Downstream] = []
        self.sessions = sessions
        self.catalog = Catalog()
        self._session_key = session_key
        self._inflight: dict[str, list[tuple[ServerSession, types.RequestId | None]]] = {}

    def server(self) -> ProxyServer:
        server = ProxyServer("cyclops", version=__version__, instructions=self.instructions())
        handlers = [
            ("tools/list", types.PaginatedRequestParams, self._list_tools),
            (TOOLS_CALL, types.CallToolRequestParams, self._call_tool),
            ("resources/list", types.PaginatedRequestParams, self._list_resources),
            ("resources/templates/list", types.PaginatedRequestParams, self._list_templates),
            ("resources/read", types.ReadResourceRequestParams, self._read_resource),
            ("resources/subscribe", types.SubscribeRequestParams, self._subscribe),
            ("resources/unsubscribe", types.UnsubscribeRequestParams, self._unsubscribe),
            ("prompts/list", types.PaginatedRequestParams, self._list_prompts),
            ("prompts/get", types.GetPromptRequestParams, self._get_prompt),
            ("completion/complete", types.CompleteRequestParams, self._complete),
            ("logging/setLevel", types.SetLevelRequestParams, self._set_level),
        ]
        for method, params_type, handler in handlers:
            # Raw handlers: they receive the request's params untouched (``ctx.params``) and
            # return the downstream's result as it came (fitted to the host's protocol).
            server.add_request_handler(method, params_type, fitted(method, handler))
        return server

    def attach(self, downstreams: list[Downstream]) -> None:
        self._order = list(downstreams)
        self.downstreams = {d.name: d for d in downstreams}

    def instructions(self) -> str | None:
        parts = [f"[{d.name}] {d.instructions}" for d in self._order if d.instructions]
        return "\n\n".join(parts) or None

    # -- sessions ----------------------------------------------------------------------------

    def _upstream(self, ctx: Any) -> UpstreamSession:
        upstream = self.sessions.get(self._session_key(ctx))
        upstream.peer = ctx.session
        return upstream

    # -- lists -------------------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        return {"tools": self.catalog.tools}

    async def _list_resources(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        return {"resources": self.catalog.resources}

    async def _list_templates(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        return {"resourceTemplates": self.catalog.templates}

    async def _list_prompts(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        return {"prompts": self.catalog.prompts}

    async def rebuild(self) -> None:
        """The downstreams' lists changed: new catalog, new tool names for role detection,
        pins checked (a changed tool is quarantined)."""
        self.catalog = Catalog.build(self._order)
        for downstream in self._order:
            self.sessions.declare_tools(
                downstream.name, [t["name"] for t in downstream.listing.tools]
            )
            if self._detection:
                tools, instructions = downstream.listing.tools, downstream.instructions
                self.sessions.declare_listing(downstream.name, tools, instructions)
            self._review_pins(downstream)

    def _review_pins(self, downstream: Downstream) -> None:
        if self._pins is not None and downstream.listing.tools:
            changed = self._pins.review(downstream.name, downstream.listing.tools)
            self.sessions.set_quarantined(downstream.name, changed)

    # -- tapped calls ------------------------------------------------------------------------

    async def _call_tool(self, ctx: Any, params: Any) -> dict[str, Any]:
        upstream = self._upstream(ctx)
        raw = dict(ctx.params or {})
        name = raw.get("name")
        route = self.catalog.tool_routes.get(name) if isinstance(name, str) else None
        if route is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")
        call = ToolCall(route.server, route.name, raw.get("arguments") or {}, at=time.time())
        return await self._tapped(ctx, upstream, call, TOOLS_CALL, {**raw, "name": route.name})

    async def _read_resource(self, ctx: Any, params: Any) -> dict[str, Any]:
        upstream = self._upstream(ctx)
        raw = dict(ctx.params or {})
        uri = str(raw.get("uri", ""))
        server = self.catalog.resource_server(uri)
        if server is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri}")
        call = ToolCall(server, READ_RESOURCE, {"uri": uri}, at=time.time())
        return await self._tapped(ctx, upstream, call, READ_RESOURCE, raw)

    async def _get_prompt(self, ctx: Any, params: Any) -> dict[str, Any]:
        upstream = self._upstream(ctx)
        raw = dict(ctx.params or {})
        route = self.catalog.prompt_routes.get(str(raw.get("name")))
        if route is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {raw.get('name')}")
        arguments = {"name": route.name, "arguments": raw.get("arguments") or {}}
        call = ToolCall(route.server, GET_PROMPT, arguments, at=time.time())
        return await self._tapped(ctx, upstream, call, GET_PROMPT, {**raw, "name": route.name})

    async def _tapped(
        self,
        ctx: Any,
        upstream: UpstreamSession,
        call: ToolCall,
        method: str,
        forward: dict[str, Any],
    ) -> dict[str, Any]:
        """Decide, then forward (or not), then show the result to the core: one at a time."""
        downstream = self.downstreams[call.server]
        if not self._detection:  # --mode off: a plain proxy (for comparison, and debugging)
            return await self._forward(ctx, downstream, method, forward)
        async with upstream.lock:
            upstream.read_results()
            context = self._context(upstream, call)
            decision = guard.decide(upstream.core, call)
            if decision.action is Action.ASK:
                _log_decision(upstream.key, decision)
                answer = await ask_user(upstream.peer, decision, ctx.request_id, self._ask_timeout)
                approved = answer is Answer.APPROVED
                context = dataclasses.replace(context, approved=approved)
                answered = answer is not Answer.UNAVAILABLE
                decision = guard.answer(upstream.core, decision, approved, answered=answered)
            _log_decision(upstream.key, decision)
            if self._observer is not None:
                self._observer(upstream.key, decision)
            if not decision.forwards:
                self.sessions.finished(upstream, decision, None, context)
                return denied_result(decision, method)
            if decision.redacted_arguments is not None:
                forward = _redacted(forward, method, decision.redacted_arguments)
            try:
                result = await self._forward(ctx, downstream, method, forward)
            except DownstreamError as exc:
                self.sessions.finished(upstream, decision, None, context)
                return unavailable_result(exc, method)
            except MCPError:
                self.sessions.finished(upstream, decision, None, context)
                raise
            upstream.unread.append((decision.index, result))
            self.sessions.read_soon(upstream)
            self.sessions.finished(upstream, decision, result, context)
            return result

    def _context(self, upstream: UpstreamSession, call: ToolCall) -> CallContext:
        """What the proxy knows about the call besides its arguments (recorded for replay)."""
        quarantined = self.sessions.is_quarantined(call.capability)
        if quarantined and self._pins is not None and self._pins.changed_on_disk(call.server):
            self._review_pins(self.downstreams[call.server])  # approved meanwhile?
        return CallContext(
            at=call.at,
            roles=upstream.core.roles_of(call.server),
            quarantined=self.sessions.is_quarantined(call.capability),
        )

    async def _forward(
        self, ctx: Any, downstream: Downstream, method: str, params: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Forward one request, relaying progress and routing the server's requests back."""
        token = (ctx.meta or {}).get("progress_token") if ctx.meta else None

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        inflight = self._inflight.setdefault(downstream.name, [])
        entry = (ctx.session, ctx.request_id)
        inflight.append(entry)
        try:
            relay = progress if token is not None else None
            return await downstream.request(method, without_envelope(params), relay)
        finally:
            inflight.remove(entry)

    # -- routed calls ------------------------------------------------------------------------

    async def _complete(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        raw = dict(ctx.params or {})
        ref = dict(raw.get("ref") or {})
        if ref.get("type") == "ref/prompt":
            route = self.catalog.prompt_routes.get(str(ref.get("name")))
            server = route.server if route else None
            if route is not None:
                ref["name"] = route.name
        else:
            server = self.catalog.resource_server(str(ref.get("uri", "")))
        if server is None:
            return {"completion": {"values": [], "hasMore": False}}
        return await self._plain(ctx, server, "completion/complete", {**raw, "ref": ref})

    async def _subscribe(self, ctx: Any, params: Any) -> dict[str, Any]:
        return await self._subscription(ctx, "resources/subscribe", add=True)

    async def _unsubscribe(self, ctx: Any, params: Any) -> dict[str, Any]:
        return await self._subscription(ctx, "resources/unsubscribe", add=False)

    async def _subscription(self, ctx: Any, method: str, add: bool) -> dict[str, Any]:
        upstream = self._upstream(ctx)
        raw = dict(ctx.params or {})
        uri = str(raw.get("uri", ""))
        server = self.catalog.resource_server(uri)
        if server is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri}")
        result = await self._plain(ctx, server, method, raw)
        (upstream.subscriptions.add if add else upstream.subscriptions.discard)(uri)
        return result

    async def _set_level(self, ctx: Any, params: Any) -> dict[str, Any]:
        self._upstream(ctx)
        raw = dict(ctx.params or {})
        for downstream in self._order:
            if downstream.capabilities is not None and downstream.capabilities.logging is not None:
                try:
                    await downstream.request("logging/setLevel", raw)
                except (DownstreamError, MCPError) as exc:
                    log.warning(
                        "%s: logging/setLevel failed: %s", downstream.name, type(exc).__name__
                    )
        return {}

    async def _plain(
        self, ctx: Any, server: str, method: str, params: Mapping[str, Any]
    ) -> dict[str, Any]:
        try:
            return await self._forward(ctx, self.downstreams[server], method, params)
        except DownstreamError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None

    # -- from the downstreams ----------------------------------------------------------------

    async def on_downstream_request(
        self, downstream: Downstream, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """Sampling, elicitation or roots from a downstream: ask the host whose call caused it."""
        request = typed_request(method, params)
        inflight = self._inflight.get(downstream.name)
        if inflight:
            peer, request_id = inflight[-1]
            metadata = (
                ServerMessageMetadata(related_request_id=request_id)
                if request_id is not None
                else None
            )
        else:
            # Outside a call, only a lone host session can be the one meant: with several, asking
            # one would hand a server's request (and the answer) to a client it may not serve.
            peers = [s.peer for s in self.sessions.all() if s.peer is not None]
            if len(peers) != 1:
                raise MCPError(types.INVALID_REQUEST, "no single host session to ask")
            peer, metadata = peers[0], None
        result = await peer.send_request(request, RESULT_TYPES[method], metadata=metadata)
        answer: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return answer

    async def on_downstream_notification(
        self, downstream: Downstream, method: str, params: dict[str, Any]
    ) -> None:
        if method in _LIST_CHANGED:
            try:
                await downstream.refresh(_LIST_CHANGED[method])
            except (DownstreamError, MCPError) as exc:
                log.warning("%s: re-listing failed: %s", downstream.name, exc)
                return
            await self.rebuild()
            await self._broadcast(method, {})
        elif method == "notifications/resources/updated":
            uri = params.get("uri")
            for upstream in self.sessions.all():
                if uri in upstream.subscriptions:
                    await self._notify(upstream, method, params)
        elif method == "notifications/message":
            logger = params.get("logger")
            await self._broadcast(
                method,
                {**params, "logger": f"{downstream.name}/{logger}" if logger else downstream.name},
            )

    async def _broadcast(self, method: str, params: dict[str, Any]) -> None:
        for upstream in self.sessions.all():
            await self._notify(upstream, method, params)

    async def _notify(self, upstream: UpstreamSession, method: str, params: dict[str, Any]) -> None:
        peer = upstream.peer
        if peer is None:
            return
        notification = NOTIFICATION.validate_python({"method": method, "params": params})
        try:
            await peer.send_notification(notification)
        except _PEER_GONE:
            upstream.peer = None  # the host session ended; it gets nothing more


def _log_decision(session: str, decision: Decision) -> None:
    call, classes = decision.call, ", ".join(f.flow_class.value for f in decision.flows)
    log.log(
        logging.WARNING if classes else logging.INFO,
        "%s #%d %s/%s: %s%s",
        *(session, decision.index, call.server, call.tool, decision.action.value),
        f" ({classes})" if classes else "",
    )


def _redacted(forward: dict[str, Any], method: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The request with the arguments the core redacted (a prompt's are under their own key in
    what the core saw: ``{"name": ..., "arguments": {...}}``)."""
    if method == GET_PROMPT:
        arguments = arguments.get("arguments") or {}
    return {**forward, "arguments": dict(arguments)}
