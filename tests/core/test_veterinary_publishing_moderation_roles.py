"""Found by veterinary clinics', publishers' and moderators' traces: on any server, who may take
part in a community (a ban lifted, a suspension, strikes cleared, a moderator invited) and what
a catalogue sells and at what price are privileged; a dispute is the counterparty's words."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, P = Label.UNTRUSTED, Label.SENSITIVE, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        ("modplatform", "unban_user", {"user_id": "u1"}, {P}),
        ("modplatform", "lift_suspension", {"user_id": "u1"}, {P}),
        ("modplatform", "clear_strikes", {"user_id": "u1"}, {P}),
        ("kdp", "unpublish_title", {"asin": "B0C1"}, {P}),
        ("kdp", "update_book_price", {"asin": "B0C1", "price": 0.99}, {P}),
        ("ingramspark", "update_title_pricing", {"isbn": "9781", "discount": 55}, {P}),
        ("royalties", "list_disputes", {"status": "open"}, {U, S}),
        ("royalties", "get_dispute", {"dispute_id": "d1"}, {U, S}),
    ],
)
def test_community_catalogue_and_dispute_tools_get_their_labels_on_any_server(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected


def test_a_moderator_invited_is_privileged(patterns: Patterns) -> None:
    labels = labels_before_running(patterns, "reddit", "invite_moderator", {"username": "x"})
    assert P in labels
