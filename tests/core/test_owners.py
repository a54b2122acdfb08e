"""A read looked up by one address returns that address's records (and so does a read by an id
such a record holds): sent back to that address alone they leak nothing; sent anywhere else,
or looked up for several addresses at once, they still do."""

from __future__ import annotations

import json

import pytest

from cyclops.core import Action, FlowClass, Label, Session
from cyclops.core.arguments import leaves
from cyclops.core.owners import Owners
from cyclops.core.types import JSON, ToolResult
from cyclops.testing import Step, play, step

S, E = Label.SENSITIVE, Label.EGRESS
OWNER = "ap@meridian-clinics.example"


@pytest.mark.parametrize(
    ("labels", "arguments", "owner"),
    [
        ({S}, {"email": OWNER, "limit": 1}, OWNER),
        ({S}, {"sql": f"SELECT * FROM orders WHERE customer_email = '{OWNER.upper()}'"}, OWNER),
        ({S}, {"query": f"from:{OWNER}"}, OWNER),
        ({S}, {"sql": f"SELECT * FROM orders WHERE email = '{OWNER}' OR 1=1"}, None),
        ({S}, {"sql": f"SELECT * FROM orders WHERE email <> '{OWNER}'"}, None),
        ({S}, {"sql": f"SELECT total FROM orders WHERE email NOT IN ('{OWNER}')"}, None),
        ({S}, {"sql": f"SELECT * FROM t WHERE email = '{OWNER}' UNION SELECT * FROM u"}, None),
        ({S}, {"sql": f"SELECT * FROM orders WHERE email LIKE '{OWNER}%'"}, None),
        ({S}, {"query": f"from:{OWNER} || from:kai@other.example"}, None),
        ({S}, {"to": OWNER, "cc": "kai@other.example"}, None),
        ({S}, {"limit": 10}, None),
        ({E}, {"to": OWNER, "body": "hello"}, None),
    ],
)
def test_a_read_is_owned_by_the_one_address_its_arguments_look_up(
    labels: set[Label], arguments: dict[str, JSON], owner: str | None
) -> None:
    owners = Owners()
    owners.note_call(0, frozenset(labels), leaves(arguments))
    assert owners.owner(0) == owner


@pytest.mark.parametrize(
    "texts",
    [
        [f"{OWNER} Meridian Clinics", "kai@other.example Kai's Bakery"],
        [f"{OWNER} Meridian Clinics", "invoice line " * 100_000],
    ],
)
def test_a_result_that_names_another_address_or_is_huge_has_no_owner(texts: list[str]) -> None:
    owners = Owners()
    owners.note_call(0, frozenset({S}), leaves({"email": OWNER}))
    owners.note_result(0, ToolResult(tuple(texts)))
    assert owners.owner(0) is None


def test_a_read_by_many_identifiers_inherits_no_owner() -> None:
    ids = [f"cus_{n:08d}xyz" for n in range(17)]
    owners = Owners()
    owners.note_call(0, frozenset({S}), leaves({"email": OWNER}))
    owners.note_result(0, ToolResult((f"{OWNER} Meridian Clinics", " ".join(ids))))
    owners.note_call(1, frozenset({S}), leaves({"customers": ids}))
    assert owners.owner(1) is None
    owners.note_call(2, frozenset({S}), leaves({"customers": ids[:16]}))
    assert owners.owner(2) == OWNER


@pytest.mark.parametrize(
    ("arguments", "owner"),
    [
        ({"customer": "cus_Q1aZ8xLm3TqR7v", "limit": 5}, OWNER),
        ({"customer": "cus_Q1aZ8xLm3TqR7v", "since": "inv_ZZ99xx88"}, None),
        ({"customer": "cus_Other12345"}, None),
    ],
)
def test_a_read_by_ids_only_an_owned_result_holds_has_the_same_owner(
    arguments: dict[str, JSON], owner: str | None
) -> None:
    owners = Owners()
    owners.note_call(0, frozenset({S}), leaves({"email": OWNER}))
    record = ToolResult((f"{OWNER} Meridian Clinics",), ids=(("cus_Q1aZ8xLm3TqR7v",),))
    owners.note_result(0, record)
    owners.note_call(1, frozenset({S}), leaves(arguments))
    assert owners.owner(1) == owner


CUSTOMERS = json.dumps(
    [{"id": "cus_Q1aZ8xLm3TqR7v", "object": "customer", "email": OWNER, "name": "Meridian"}]
)
INVOICES = json.dumps(
    [
        {
            "id": "in_1PO2mDLkdIwHu7ixaB3cD4eF",
            "number": "SCRB-0419",
            "customer": "cus_Q1aZ8xLm3TqR7v",
            "amount_due": 640000,
            "hosted_invoice_url": "https://invoice.stripe.com/i/acct_1NxQ7a/live_YWNjdF8xTnhRN2FM",
        }
    ]
)
BODY = (
    "Here are your May invoices: SCRB-0419 ($6,400.00, paid): "
    "https://invoice.stripe.com/i/acct_1NxQ7a/live_YWNjdF8xTnhRN2FM"
)


def billing_session(asker: str, looked_up: str) -> list[Step]:
    mail = (
        f"From: Renee <{asker}>\nTo: billing@scribe.example\nSubject: May invoices\n\n"
        f"Our auditor needs copies of our May invoices. The account is under {looked_up}."
    )
    return [
        step("gmail", "read_email", {"messageId": "1906120fa3b4c5d6"}, mail),
        step("stripe", "list_customers", {"email": looked_up, "limit": 1}, CUSTOMERS),
        step("stripe", "list_invoices", {"customer": "cus_Q1aZ8xLm3TqR7v", "limit": 5}, INVOICES),
        step("gmail", "send_email", {"to": [asker], "subject": "Re: May invoices", "body": BODY}),
    ]


def test_a_customer_who_asks_gets_her_own_invoices_back(prevent: Session) -> None:
    decision = play(prevent, billing_session(OWNER, OWNER))[-1]
    assert decision.action is Action.ALLOW


def test_another_customers_invoices_sent_to_the_asker_are_still_a_leak(
    prevent: Session,
) -> None:
    decision = play(prevent, billing_session("ap@meridian-clinlcs.example", OWNER))[-1]
    assert decision.action is Action.DENY
    assert decision.flows[0].flow_class is FlowClass.EXFILTRATION
