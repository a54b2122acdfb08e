"""Found by nonprofits', creators' and popular servers' traces: volunteers, applicants, donors,
viewers and listeners write what their platforms return; a statement that deletes rows is
privileged on any server; a number that says how much a privileged call moves is no sign that
untrusted content steered it."""

from __future__ import annotations

import json

import pytest

from cyclops.core import Action, FlowClass, Label, Patterns, Session
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running, play, step

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        ("volunteerhub", "get_event_registrations", {"event_id": 88}, {U, S}),
        ("galaxy-digital", "update_need", {"need_id": 4, "description": "x"}, {E}),
        ("submittable", "get_submission", {"submission_id": 7}, {U, S}),
        ("foundant", "update_request_status", {"request_id": 7, "status": "Approved"}, {P}),
        ("fluxx", "update_request_transaction", {"id": 3, "state": "paid"}, {P}),
        ("twitch", "get_recent_chat", {"channel": "theo"}, {U}),
        ("twitch", "add_channel_moderator", {"user_id": "991"}, {P}),
        ("twitch", "get_stream_key", {"broadcaster_id": "1"}, {S}),
        ("spotify-podcasters", "list_qa_responses", {"episode_id": "e1"}, {U}),
        ("apple-podcasts-connect", "update_episode", {"id": "e150", "state": "live"}, {P, E}),
        ("riverside", "get_transcript", {"recording_id": "r58"}, {U}),
        ("donorbox", "list_donations", {"campaign": "gala"}, {U, S}),
        ("classy", "update_fundraising_page", {"page_id": 5, "body": "x"}, {U, S, E}),
        ("youtube", "analytics_query", {"metrics": "estimatedRevenue"}, {U, S}),
        ("vimeo", "edit_video", {"video_id": "1", "privacy": {"view": "anybody"}}, {P}),
        ("vimeo", "edit_video", {"video_id": "1", "privacy": {"view": "password"}}, set()),
    ],
)
def test_volunteer_grant_streaming_podcast_and_donation_servers_get_their_roles(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected


RECEIPT = json.dumps(
    {"fields": {"merchant": "Shell 57441", "total": 212.77}, "invoice": "INV-20931"}
)


@pytest.mark.parametrize(
    ("tool", "arguments", "action"),
    [
        ("create_purchase", {"Line": [{"Amount": 212.77}], "Memo": "fuel"}, Action.ALLOW),
        ("create_purchase", {"Line": [{"Amount": "$212.77"}]}, Action.ALLOW),
        ("delete_invoice", {"invoice": "INV-20931"}, Action.FLAG),
    ],
)
def test_an_amount_copied_from_untrusted_content_does_not_steer_a_privileged_call(
    patterns: Patterns, tool: str, arguments: dict[str, JSON], action: Action
) -> None:
    session = Session(patterns)
    *_, call = play(
        session,
        [
            step("docscan", "get_extraction", {"document_id": "doc_1"}, RECEIPT),
            step("quickbooks", tool, arguments),
        ],
    )
    assert call.action is action
    if action is Action.FLAG:
        assert call.flows[0].flow_class is FlowClass.EXCESSIVE_AGENCY
