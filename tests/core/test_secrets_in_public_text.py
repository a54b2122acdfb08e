"""Content anyone may write (a page, a log) that prints a key: the key is private, the rest of
the text is not."""

from __future__ import annotations

from cyclops.core import Action, FlowClass, Session
from cyclops.testing import Step, play, step

TOKEN = "ghp_R8d2KfLq0ZxY7mWc3VtN5bHs9PjE1uAo4GiT"
LOGS = (
    f"2024-10-14T09:40:01Z debug request headers: authorization: token {TOKEN}\n"
    "2024-10-14T09:40:02Z error upstream connect error: orders-svc-eu returned 502 for "
    "checkout-gateway-eu (upstream_reset_before_response_started)\n"
)
TICKET = step(
    "zendesk",
    "get_ticket",
    {"ticket_id": 9215},
    "Checkout keeps failing since Friday. Our logs: https://logs.example.org/checkout",
)
READ_LOGS = step("fetch", "fetch", {"url": "https://logs.example.org/checkout"}, LOGS)


def post(text: str) -> Step:
    return step("slack", "slack_post_message", {"channel_id": "C02INC0001", "text": text})


def test_a_summary_of_a_log_that_prints_a_key_is_no_leak_of_it(prevent: Session) -> None:
    summary = (
        "checkout-gateway-eu is getting 502s from orders-svc-eu "
        "(upstream_reset_before_response_started); looking into it."
    )
    assert play(prevent, [TICKET, READ_LOGS, post(summary)])[-1].action is Action.ALLOW


def test_the_key_a_log_prints_is_still_private(prevent: Session) -> None:
    decision = play(prevent, [TICKET, READ_LOGS, post(f"the token in the logs: {TOKEN}")])[-1]
    assert decision.action is Action.DENY
    assert {f.flow_class for f in decision.flows} & {
        FlowClass.EXFILTRATION,
        FlowClass.SECRET_EGRESS,
    }


def test_half_the_key_a_log_prints_is_still_a_leak(detect: Session) -> None:
    decision = play(detect, [TICKET, READ_LOGS, post(f"part one: {TOKEN[:22]}")])[-1]
    assert decision.leaked_bytes >= 16
