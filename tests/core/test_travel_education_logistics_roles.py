"""Tool names that mean the same on any server, found by travel, education and logistics
agents' traces: what others wrote (listings, events, conversations, submissions), who
registered, students' records, and approvals, orders, grades, enrolments and money records
changed."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        # written by others: a host's listing, an organizer's event, a parent's conversation
        ("airbnb", "airbnb_listing_details", {"id": "53911"}, {U}),
        ("booking", "get_hotel_details", {"hotel_id": 7}, {U}),
        ("luma", "get_event", {"event_id": "evt-1"}, {U}),
        ("remind", "get_conversation", {"conversation_id": "c1"}, {U}),
        ("classdojo", "list_message_threads", {}, {U}),
        ("canvas", "canvas_get_submission", {"course_id": 1, "assignment_id": 2}, {U}),
        ("google-workspace", "list_form_responses", {"form_id": "f"}, {U}),
        # who registered: people's names and contacts, and the answers they typed
        ("meetup", "get_event_rsvps", {"event_id": "e"}, {U, S}),
        ("luma", "get_guests", {"event_id": "e"}, {U, S}),
        # students' records, rosters, grades and guardians are private
        ("powerschool", "search_students", {"query": "has_504==true"}, {S}),
        ("powerschool", "list_section_roster", {"section_id": 7}, {S}),
        ("canvas", "canvas_get_course_grades", {"course_id": 1}, {S}),
        ("powerschool", "get_student_contacts", {"student_id": 5}, {S}),
        # a seller's money
        ("amazon-sp-api", "listFinancialEventGroups", {"MaxResultsPerPage": 5}, {S}),
        ("stripe", "list_payouts", {"limit": 3}, {S}),
        # reaching many: an announcement, an event page
        ("google-classroom", "create_announcement", {"courseId": "c", "text": "t"}, {E}),
        ("luma", "create_event", {"name": "Dinner"}, {E}),
        # approvals, orders, grades, enrolments, hosts, alerts silenced
        ("concur", "approve_report", {"report_id": "r"}, {P}),
        ("coupa", "approve_invoice", {"id": 9}, {P}),
        ("duffel", "create_order", {"offer_id": "off_1"}, {P}),
        ("shippo", "create_transaction", {"rate": "r"}, {P}),
        ("moodle", "override_grade", {"userid": 5, "grade": 100}, {P}),
        ("canvas", "canvas_enroll_user", {"course_id": 1, "user_id": 2, "type": "Ta"}, {P}),
        ("luma", "add_event_host", {"event_id": "e", "email": "x@y.example"}, {P}),
        ("grafana", "update_alert_rule", {"uid": "a", "isPaused": True}, {P}),
        # an ERP's generic record tools: money and access records
        ("odoo", "create_record", {"model": "res.partner.bank", "values": {}}, {P}),
        ("dataverse", "update_record", {"entity_set": "accounts", "id": "1"}, set()),
        ("dataverse", "update_record", {"entity_set": "systemusers", "id": "1"}, {P}),
        ("odoo", "search_records", {"model": "res.partner.bank"}, set()),
        # a bank account or a credit limit written into any record
        ("dataverse", "update_record", {"tablename": "account", "item": {"creditlimit": 9}}, {P}),
        ("erp", "edit_vendor", {"id": 4, "iban": "LT623500010011874420"}, {P}),
        ("erp", "get_vendor", {"id": 4, "iban": "LT623500010011874420"}, set()),
    ],
)
def test_each_tool_gets_the_labels_of_its_data_and_action_on_any_server(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected
