"""The wire between a host and the downstreams: what must change when a message crosses.

- A result goes to the host in the host's protocol generation: downstreams are spoken to with
  the handshake protocol, whose results lack what 2026-07-28 requires.
- A request goes downstream without the host hop's 2026 envelope.
- A downstream's request to the host (sampling, elicitation, roots) is typed for the SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter

__all__ = ["NOTIFICATION", "RESULT_TYPES", "Handler", "fitted", "typed_request", "without_envelope"]

NOTIFICATION: TypeAdapter[types.ServerNotification] = TypeAdapter(types.ServerNotification)
_ELICIT_PARAMS: TypeAdapter[types.ElicitRequestParams] = TypeAdapter(types.ElicitRequestParams)
RESULT_TYPES: dict[str, Any] = {
    "sampling/createMessage": types.CreateMessageResult,
    "elicitation/create": types.ElicitResult,
    "roots/list": types.ListRootsResult,
}


_CACHEABLE = {
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "resources/read",
}
Handler = Callable[[Any, Any], Awaitable[dict[str, Any]]]


def fitted(method: str, handler: Handler) -> Handler:
    """``handler`` whose results also satisfy a 2026-07-28 host.

    Downstreams are spoken to with the handshake protocol, whose results lack the fields the
    2026 protocol requires: every result's ``resultType``, and the caching directives of lists and
    reads (set to "do not cache": cyclops cannot vouch for a downstream's freshness).
    """

    async def fitted(ctx: Any, params: Any) -> dict[str, Any]:
        result = await handler(ctx, params)
        if getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
            return result
        result = {"resultType": "complete", **result}
        if method in _CACHEABLE:
            result = {"ttlMs": 0, "cacheScope": "private", **result}
        return result

    return fitted


_ENVELOPE_PREFIX = "io.modelcontextprotocol/"


def without_envelope(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request's params without the host hop's 2026 envelope (protocol version, client info
    and capabilities in ``_meta``): they describe the host's connection to cyclops, and a
    handshake-era downstream refuses requests that carry them."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not any(k.startswith(_ENVELOPE_PREFIX) for k in meta):
        return params
    kept = {k: v for k, v in meta.items() if not k.startswith(_ENVELOPE_PREFIX)}
    rest = {k: v for k, v in params.items() if k != "_meta"}
    return {**rest, "_meta": kept} if kept else rest


def typed_request(method: str, params: dict[str, Any]) -> Any:
    if method == "sampling/createMessage":
        return types.CreateMessageRequest(
            params=types.CreateMessageRequestParams.model_validate(params)
        )
    if method == "elicitation/create":
        return types.ElicitRequest(params=_ELICIT_PARAMS.validate_python(params))
    if method == "roots/list":
        return types.ListRootsRequest()
    raise MCPError(types.METHOD_NOT_FOUND, f"Method not found: {method}")
