"""Roles for notebooks, data platforms, infrastructure as code, CI, alerting, edge hosting,
design tools, Box, Google Sheets, boards, the Hugging Face Hub, package registries and secret
writes: each real server's tools get the labels their data and actions call for."""

from __future__ import annotations

import pytest

from cyclops.core import Label, Patterns
from cyclops.core.types import JSON
from cyclops.testing import labels_before_running

U, S, E, P = Label.UNTRUSTED, Label.SENSITIVE, Label.EGRESS, Label.PRIVILEGED


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        # Jupyter's MCP server: a cell is code run with the user's keys and network
        ("jupyter", "append_execute_code_cell", {"cell_source": "df.head()"}, {P}),
        ("jupyter", "read_all_cells", {}, set()),
        ("e2b", "run_code", {"code": "print(1)"}, {P}),
        # Databricks: the company's notebooks and tables; clusters and jobs are production
        ("databricks", "export_notebook", {"path": "/Repos/etl/daily"}, {S}),
        ("databricks", "list_clusters", {}, {S}),
        ("databricks", "run_job", {"job_id": 12}, {P}),
        ("databricks", "terminate_cluster", {"cluster_id": "0612-abc"}, {P}),
        # Terraform's MCP server: the registry is anyone's, a run changes production
        ("terraform", "search_modules", {"module_query": "vpc"}, {U}),
        ("terraform", "get_module_details", {"module_id": "x/vpc/aws/5.0.0"}, {U}),
        ("terraform", "list_workspaces", {"terraform_org_name": "acme"}, set()),
        ("terraform", "list_runs", {"workspace": "prod"}, set()),
        ("terraform", "create_run", {"workspace": "prod", "auto_apply": True}, {P}),
        ("terraform", "list_workspace_variables", {"workspace": "prod"}, {S}),
        # CircleCI: a build's output prints what the code under test wrote
        ("circleci", "get_build_failure_logs", {"projectSlug": "gh/acme/api"}, {U}),
        ("circleci", "get_latest_pipeline_status", {"projectSlug": "gh/acme/api"}, set()),
        ("circleci", "run_rollback_pipeline", {"projectSlug": "gh/acme/api"}, {P}),
        # PagerDuty: alerts come from whatever integration sends them
        ("pagerduty", "get_incident", {"incident_id": "Q1"}, {U}),
        ("pagerduty", "manage_incidents", {"incident_ids": ["Q1"], "status": "resolved"}, {P}),
        ("pagerduty", "list_oncalls", {}, set()),
        # Cloudflare and Vercel: visitors' requests show in logs; deploys change production
        ("cloudflare-observability", "query_worker_observability", {"query": {}}, {U}),
        ("cloudflare", "kv_put", {"key": "allowlist", "value": "1.2.3.4"}, {P}),
        ("vercel", "list_deployments", {"projectId": "p"}, set()),
        ("vercel", "get_deployment_build_logs", {"idOrUrl": "d"}, {U}),
        # Figma: comments are the file's collaborators'
        ("figma", "get_comments", {"file_key": "k"}, {U}),
        ("figma", "post_comment", {"file_key": "k", "message": "ok"}, {E}),
        # Box and Google Sheets are document stores; a collaborator added is a share
        ("box", "box_read_tool", {"file_id": "1"}, {S}),
        ("mcp-server-box", "box_search_tool", {"query": "invoice"}, {S}),
        ("box", "box_collaboration_folder_user_by_user_login_tool", {"folder_id": "2"}, {E}),
        ("google-sheets", "get_sheet_data", {"spreadsheet_id": "s"}, {S}),
        ("google-sheets", "share_spreadsheet", {"spreadsheet_id": "s"}, {E, S}),  # by reference
        # Trello's cards are a board's, guests included
        ("trello", "get_card", {"cardId": "c"}, {U}),
        ("trello", "add_comment", {"cardId": "c", "text": "done"}, {E}),
        # the Hugging Face Hub's cards are written by anyone
        ("huggingface", "hub_repo_details", {"repo_ids": ["org/model"]}, {U}),
        ("hf", "dataset_search", {"query": "sentiment"}, {U}),
        # an order cancelled on any server; a discount made, a plan changed
        ("travel", "cancel_order", {"order_id": "ord_0000AqT"}, {P}),
        ("stripe", "create_coupon", {"percent_off": 100, "duration": "forever"}, {P}),
        ("stripe", "update_subscription", {"subscription": "sub_1", "items": []}, {P}),
        ("gdrive", "gsheets_read", {"spreadsheetId": "1JVW"}, {S}),
        # a mail to a whole list; records written in bulk
        ("sendgrid", "send_to_list", {"list_id": "l1", "subject": "Invoice"}, {P, E}),
        ("salesforce", "salesforce_dml_records", {"operation": "insert", "records": []}, {P}),
        ("hubspot", "hubspot-batch-update-objects", {"inputs": []}, set()),
        # a value that starts with a URL reaches a host only over the web: a secret
        # reference, an object id, name the server's own data
        ("1password", "password_read", {"reference": "op://Engineering/svc/password"}, {S}),
        ("shopify", "get-order-by-id", {"orderId": "gid://shopify/Order/5829104730382"}, {S}),
        ("notion", "notion-search", {"query": "https://evil.example/c?d=x"}, {S, U, E}),
        # a home: a service called unlocks, disarms, turns cameras off
        ("home-assistant", "call_service_tool", {"domain": "lock", "service": "unlock"}, {P}),
        ("home-assistant", "search_entities_tool", {"query": "gate"}, set()),
        # health records and trackers; a refill acts on the user's care
        ("patient-portal", "get_lab_results", {}, {S}),
        ("strava", "get-activity-details", {"activityId": 1}, {S}),
        ("patient-portal", "request_refill", {"rx": "1"}, {P}),
        # identity and devices
        ("okta", "list_groups", {}, {S}),
        ("okta", "add_user_to_group", {"groupId": "g", "userId": "u"}, {P}),
        ("jamf", "sendComputerMDMCommand", {"command": "EraseDevice"}, {P, E}),
        ("jamf", "getFileVaultRecoveryKey", {"id": "7"}, {S}),
        # HR and recruiting: a candidate's application is theirs
        ("greenhouse", "get_candidate", {"id": 3}, {U, S}),
        ("workday", "update_payment_elections", {"worker": "w"}, {P}),
        ("rippling", "terminate_employee", {"id": "e"}, {P}),
        # accounting and cards
        ("quickbooks", "search_bills", {}, {S}),
        ("quickbooks", "create_bill_payment", {"bill": "b"}, {P}),
        ("netsuite", "ns_runCustomSuiteQL", {"query": "select 1"}, {S}),
        ("brex", "update_card", {"limit": 50000}, {P}),
        # contracts: an envelope sent reaches its signers; a signer replaced binds
        ("docusign", "create_envelope", {"subject": "s"}, {E}),
        ("docusign", "update_envelope_recipients", {"envelopeId": "e"}, {P}),
        # personal money apps
        ("venmo", "pay_request", {"request_id": "r"}, {P, E}),
        ("monarch-money", "get_accounts", {}, {S}),
        # money spent, the address orders go to
        ("instacart", "checkout", {"notes": "ring"}, {P}),
        ("amazon", "update_default_address", {"address": "a"}, {P}),
        ("ms365", "get-drive-item-content", {"driveId": "d", "itemId": "i"}, {S}),
        # registries: a package's README, an image's description are its publisher's
        ("dockerhub", "getRepositoryInfo", {"namespace": "acme", "repository": "x"}, {U, S}),
        ("docker-hub", "listRepositoryTags", {"namespace": "acme", "repository": "x"}, {U, S}),
        ("package-registry", "get-npm-package-details", {"name": "left-pad"}, {U}),
        ("pypi", "get_package_info", {"package_name": "requests"}, {U}),
        ("dockerhub", "createRepository", {"namespace": "acme", "name": "x"}, {U, P}),
        # a generic API tool changes by its method (Lokka's Microsoft Graph tool)
        ("lokka", "Lokka-Microsoft", {"apiType": "graph", "method": "get", "path": "/u"}, set()),
        ("lokka", "Lokka-Microsoft", {"apiType": "graph", "method": "post", "path": "/x"}, {P}),
        # access given on any server: a file shared, a member added, a role assigned
        ("gdrive", "create_permission", {"fileId": "f", "role": "writer"}, {P}),
        ("drive", "update_sharing_settings", {"fileId": "f", "anyone": True}, {P}),
        ("teams", "add_channel_member", {"channelId": "c", "userId": "u"}, {P}),
        ("auth0", "assign_roles_to_user", {"id": "u", "roles": ["admin"]}, {P}),
        # a secret written changes what services log in with
        ("vault", "read_secret", {"path": "kv/payments"}, {S}),
        ("vault", "write_secret", {"path": "kv/payments", "data": {"k": "v"}}, {S, P}),
    ],
)
def test_each_servers_tools_get_the_labels_of_their_data_and_actions(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: set[Label]
) -> None:
    assert labels_before_running(patterns, server, tool, args) == expected
