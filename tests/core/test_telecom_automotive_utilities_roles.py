"""Found by telecom, automotive and utility agents' traces: telematics know where vehicles
are and can stop them; fuel cards move money; a dealer system's repair orders hold what
customers said; monitoring silenced and routers reconfigured act on a network."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        ("samsara", "get_vehicle_locations", {"vehicleIds": ["281474977"]}, {S}),
        ("samsara", "update_route", {"id": "r-88", "stops": ["Dock 4"]}, {P}),
        ("passtime", "enable_starter", {"device_id": "PT-4471"}, {P}),
        ("smartcar", "disconnect_vehicle", {"vehicle_id": "v-1"}, {P}),
        ("wex-fleet", "list_cards", {}, {S}),
        ("wex-fleet", "update_card_limits", {"card": "7071", "daily": 5000}, {P}),
        ("cdk-dms", "get_repair_order", {"ro": "6021847"}, {U, S}),
        ("cdk-dms", "void_repair_order", {"ro": "6021847"}, {P}),
        ("reynolds-dms", "ro_get", {"ro": "6021847"}, {U, S}),
        ("zabbix", "maintenance_create", {"name": "transit", "hostids": ["10084"]}, {P}),
        ("zabbix", "host_get", {"hostids": ["10084"]}, set()),
        ("genieacs", "set_parameter_values", {"device": "x", "values": []}, {P}),
        ("genieacs", "get_device", {"device": "x"}, set()),
    ],
)
def test_telematics_fuel_card_dealer_monitoring_and_router_servers_get_their_roles(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("7shifts", "list_roles", {S}),
        ("7shifts", "get_wages", {S}),
        ("toast", "get_company", {U, S}),
        ("guidewire", "get_reserves", {S}),
        ("guidewire", "list_endorsements", {S}),
        ("guidewire", "process_endorsement", {P}),
        ("remote-access", "get_access_grants", {U, S}),
        ("samsara", "get_starter_status", {S}),
        ("wex-fleet", "get_shipping_address", {S}),
        ("steamworks", "get_published_builds", set()),
        ("laserfiche", "get_disposition_certificate", {U, S}),
        ("genieacs", "get_tasks", {U, S}),
        ("genieacs", "get_firmware_version", set()),
        ("mercury", "list_beneficiaries", {S}),
        ("buildium", "get_bank_accounts", {S}),
        ("buildium", "list_owner_draws", {S}),
        ("buildium", "list_disbursements", {S}),
    ],
)
def test_a_read_named_after_a_privileged_act_is_no_privileged_call(
    patterns: Patterns, server: str, tool: str, expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, {}) == expected
