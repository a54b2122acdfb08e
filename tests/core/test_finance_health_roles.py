"""Servers found by finance and health agents' traces: news and market data are written by
others, and a fax received is an inbox (written by whoever dialled in, holding patients'
records)."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, E = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS


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
