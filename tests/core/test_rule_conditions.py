"""What a privileged rule applies to (a mail filter's ``criteria``) is no sign that untrusted
content steered it: what it does, and where it forwards, are."""

from __future__ import annotations

from cyclops.core import Action, FlowClass, Session
from cyclops.testing import Step, play, step

RECEIPT = (
    "From: Stripe <receipts@stripe.example>\nTo: dana@home.example\nSubject: Your receipt #2291\n\n"
    "Amount paid: $49.00. Questions? Reply to billing-help@stripe.example."
)
READ = step("gmail", "read_email", {"messageId": "18c2f"}, RECEIPT)


def forwarding_filter(sender: str, to: str) -> Step:
    criteria = {"from": sender, "subject": "receipt"}
    action = {"addLabelIds": ["Label_3"], "forward": to}
    return step("gmail", "create_filter", {"criteria": criteria, "action": action})


def test_a_filter_matching_the_sender_of_a_mail_read_is_no_excessive_agency(
    prevent: Session,
) -> None:
    rule = forwarding_filter("receipts@stripe.example", "books@accountant.example")
    assert play(prevent, [READ, rule])[-1].action is Action.ALLOW


def test_a_filter_forwarding_where_the_mail_said_is_still_steered(prevent: Session) -> None:
    rule = forwarding_filter("receipts@stripe.example", "billing-help@stripe.example")
    decision = play(prevent, [READ, rule])[-1]
    assert decision.action is Action.DENY
    assert decision.flows[0].flow_class is FlowClass.EXCESSIVE_AGENCY
