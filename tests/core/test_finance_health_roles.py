"""Servers found by finance and health agents' traces: news and market data are written by
others, and a fax received is an inbox (written by whoever dialled in, holding patients'
records); a broker's accounts are private and its orders privileged; a patient portal's
messages are written by patients; delegates added, disputes accepted, records deleted act."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        # news, on any server
        ("yahoo-finance", "get_yahoo_finance_news", {"ticker": "NVDA"}, {U}),
        ("alpaca", "get_news", {"symbols": "NVDA"}, {U}),
        ("ibkr", "getNewsArticles", {"conid": 265598}, {U}),
        # market data: a token's description is its project's, a filing its issuer's
        ("coingecko", "get_id_coins", {"id": "orbit"}, {U}),
        ("polygon", "list_ticker_news", {"ticker": "SPY"}, {U}),
        ("sec-edgar", "get_filing", {"accession": "0000320193-24-000123"}, {U}),
        # a fax inbox, and a fax sent
        ("fax", "get_fax", {"fax_id": "f-88"}, {U, S}),
        ("efax", "list_inbox", {}, {U, S}),
        ("fax", "send_fax", {"to": "+15555550100", "document": "x"}, {E}),
        # a broker's and an exchange's accounts, and what moves money there
        ("alpaca", "get_account_info", {}, {S}),
        ("ibkr", "get_account_summary", {"account_id": "U123"}, {S}),
        ("alpaca", "get_positions", {}, {S}),
        ("alpaca", "close_all_positions", {"cancel_orders": True}, {S, P}),
        ("binance", "create_order", {"symbol": "NEIROUSDT", "side": "BUY"}, {P}),
        ("binance", "withdraw", {"coin": "ORBT", "address": "0xab"}, {P, E}),
        # a patient portal's messages, a prescription sent or cancelled, a record deleted
        ("patient-portal", "get_message", {"message_id": "m1"}, {U, S}),
        ("epic", "list_inbox_messages", {}, {U, S}),
        ("eprescribe", "send_prescription", {"patient_id": "p", "drug": "x"}, {S, P, E}),
        ("eprescribe", "cancel_prescription", {"rx_id": "r"}, {S, P}),
        ("fhir", "delete", {"resourceType": "Observation", "id": "o1"}, {P}),
        # on any server: a delegate added, a dispute accepted, a text message created
        ("firstharbor-bank", "add_delegate_user", {"email": "x@y.example"}, {P}),
        ("paypal", "accept_dispute_claim", {"dispute_id": "PP-D-1"}, {P}),
        ("twilio", "twilio_api_v2010--CreateMessage", {"To": "+1555", "Body": "b"}, {E}),
    ],
)
def test_news_market_data_and_faxes_are_labelled(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected


@pytest.mark.parametrize(
    ("server", "tool"),
    [("mailchimp", "create_newsletter"), ("beehiiv", "list_newsletters")],
)
def test_a_newsletter_is_no_news(patterns: Patterns, server: str, tool: str) -> None:
    assert Label.UNTRUSTED not in labels_before_running(patterns, server, tool, {})
