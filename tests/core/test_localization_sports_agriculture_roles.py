"""Found by translators', sports clubs' and farms' traces: on any server, who may act for a
team or a project (a member made manager, a contributor made admin, a volunteer cleared), what
a registration owes, and money released from escrow or withdrawn is privileged."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

P = Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "privileged"),
    [
        ("teamsnap", "update_member", {"member_id": 7, "is_manager": True}, True),
        ("lokalise", "update_contributor", {"contributor_id": 3, "is_admin": True}, True),
        ("sportsengine", "update_member_clearance", {"member_id": "m1", "status": "ok"}, True),
        ("leagueapps", "update_registration", {"registration_id": 9, "paid": True}, True),
        ("upwork", "release_milestone", {"milestone_id": "ms-1"}, True),
        ("broker", "request_withdrawal", {"amount": 50000, "to": "acct-2"}, True),
        # reading them is not
        ("teamsnap", "list_members", {"team_id": 1}, False),
        ("upwork", "list_milestones", {"contract_id": "c1"}, False),
    ],
)
def test_team_roles_clearances_registrations_escrow_and_withdrawals_are_privileged(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], privileged: bool
) -> None:
    assert (P in labels_before_running(patterns, server, tool, args)) is privileged
