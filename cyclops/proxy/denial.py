"""What the host sees when cyclops stops a call: an error result that explains itself.

It names the flow class, the chain of calls (server/tool), the evidence and the choke point, and
each per-call control with its rule; never an argument value or any content, so it cannot carry
the secret it protects.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..core.types import ControlFinding, ControlKind, Decision, Flow, Reason
from .downstream import DownstreamError

TOOLS_CALL = "tools/call"

__all__ = ["BLOCKED", "TOOLS_CALL", "denial_text", "denied_result", "unavailable_result"]


def denial_text(decision: Decision) -> str:
    call = decision.call
    if Reason.INTERNAL_ERROR in decision.reasons:
        return (
            f"cyclops could not check this call to {call.server}/{call.tool} and blocked it "
            "(it fails closed). The server never received it."
        )
    lines = [
        f"cyclops blocked this call to {call.server}/{call.tool}; the server never received it."
    ]
    lines += [_explain(flow) for flow in decision.flows]
    lines += [_explain_control(control) for control in decision.controls]
    answer = _ANSWERS.keys() & set(decision.reasons)
    lines += [_ANSWERS[reason] for reason in sorted(answer)]
    return "\n".join(lines)


_ANSWERS = {
    Reason.USER_REFUSED: "The user refused it when asked.",
    Reason.NO_ANSWER: "It needs the user's approval, and none came (the host cannot ask, or "
    "no answer in time).",
}
_CONTROL_WORDS = {
    ControlKind.SECRET: "a secret ({rule}) in {where}",
    ControlKind.DESTINATION: "destination {detail} ({rule}) in {where}",
    ControlKind.SSRF: "an address inside the network ({rule}) in {where}",
    ControlKind.PATH: "a path that is {rule} in {where}",
    ControlKind.RATE: "rate limit {rule} exceeded",
    ControlKind.BUDGET: "egress budget ({detail}) for this destination spent",
    ControlKind.BREAKER: "the session's breaker tripped after repeated denials; an operator "
    "can reset it (SIGUSR1)",
    ControlKind.PIN: "the tool changed since it was pinned ({rule}); approve it with "
    "`cyclops pins approve`",
    ControlKind.TOOL: "tool rule {rule} names this tool",
}


def _explain_control(control: ControlFinding) -> str:
    words = _CONTROL_WORDS[control.kind].format(
        rule=control.rule, detail=control.detail or "?", where=control.argument or "the call"
    )
    return f"Control {control.kind.value}: {words} ({control.action.value})."


def _explain(flow: Flow) -> str:
    chain = " → ".join(str(link.capability) for link in flow.chain)
    parts = [
        f"Toxic flow: {flow.flow_class.value} ({flow.owasp.value}), severity {flow.severity.value}."
    ]
    parts.append(f"Chain: {chain}.")
    evidence = flow.evidence
    if evidence.steered_arguments:
        parts.append(
            f"Untrusted content chose the destination ({', '.join(evidence.steered_arguments)})."
        )
    if evidence.sensitive_arguments:
        what = f"{flow.leaked_bytes} bytes of private data" if flow.leaked_bytes else "private data"
        parts.append(f"{what.capitalize()} in: {', '.join(evidence.sensitive_arguments)}.")
    if evidence.secret_rules:
        parts.append(f"Secrets recognised: {', '.join(evidence.secret_rules)}.")
    if flow.choke_point:
        parts.append(f"Choke point: remove {', '.join(str(c) for c in flow.choke_point)}.")
    return " ".join(parts)


BLOCKED = -32001
"""JSON-RPC error code (implementation-defined range) for a resource read cyclops denied."""


def denied_result(decision: Decision, method: str) -> dict[str, Any]:
    """A tool result with ``isError``; a resource read or a prompt has no such field, so it is
    an error."""
    text = denial_text(decision)
    if method != TOOLS_CALL:
        raise MCPError(BLOCKED, text)
    return {"content": [{"type": "text", "text": text}], "isError": True}


def unavailable_result(error: DownstreamError, method: str) -> dict[str, Any]:
    """A tool result with ``isError`` when the server is down, too slow, or went away."""
    text = f"cyclops could not reach the server: {error}."
    if method != TOOLS_CALL:
        raise MCPError(types.INTERNAL_ERROR, text)
    return {"content": [{"type": "text", "text": text}], "isError": True}
