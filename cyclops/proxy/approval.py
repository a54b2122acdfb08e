"""Asking the user: an ``ask`` decision becomes an MCP elicitation on the host.

The message names the tool, where the call sends data, what it carries and why cyclops asks —
rule ids, flow classes, argument names and byte counts, never the values. Only an explicit yes
lets the call through: a decline, a cancel, a host without elicitation, a broken channel or no
answer within the timeout all deny it.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError

from ..core.types import ControlKind, Decision

__all__ = ["Answer", "approval_message", "ask_user"]

log = logging.getLogger("cyclops.proxy")

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allow": {
            "type": "boolean",
            "title": "Allow this call",
            "description": "Yes lets this one call through; no (or no answer) blocks it.",
            "default": False,
        }
    },
    "required": ["allow"],
}


class Answer(StrEnum):
    APPROVED = "approved"
    REFUSED = "refused"
    UNAVAILABLE = "unavailable"
    """The host cannot elicit, the channel broke, or no answer came in time."""


async def ask_user(
    peer: ServerSession | None,
    decision: Decision,
    related_request: types.RequestId | None,
    timeout: float,
) -> Answer:
    if peer is None or not _can_elicit(peer):
        return Answer.UNAVAILABLE
    message = approval_message(decision)
    with anyio.move_on_after(timeout):
        try:
            result = await peer.elicit_form(message, _SCHEMA, related_request_id=related_request)
        except (MCPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            log.warning("asking the user failed: %s", type(exc).__name__)
            return Answer.UNAVAILABLE
        content = result.content or {}
        if result.action == "accept" and content.get("allow") is True:
            return Answer.APPROVED
        return Answer.REFUSED
    log.warning("no answer from the user within %g s", timeout)
    return Answer.UNAVAILABLE


def _can_elicit(peer: ServerSession) -> bool:
    capabilities = peer.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def approval_message(decision: Decision) -> str:
    call = decision.call
    lines = [f"cyclops holds a call to {call.server}/{call.tool} until you decide."]
    destinations = sorted({f.destination for f in decision.flows if f.destination})
    destinations += sorted(
        {c.detail for c in decision.controls if c.kind is ControlKind.DESTINATION and c.detail}
    )
    if destinations:
        lines.append(f"Destination: {', '.join(dict.fromkeys(destinations))}.")
    for flow in decision.flows:
        chain = " -> ".join(str(link.capability) for link in flow.chain)
        carried = ", ".join(flow.evidence.sensitive_arguments) or "its arguments"
        lines.append(
            f"Why: {flow.flow_class.value} ({flow.owasp.code}): {chain}; "
            f"{flow.leaked_bytes} private bytes in {carried}."
        )
    for control in decision.controls:
        where = f" in {control.argument}" if control.argument else ""
        lines.append(f"Why: {control.kind.value} rule {control.rule}{where}.")
    lines.append("Allow it only if you asked for this.")
    return "\n".join(lines)
