"""A key sent to a server no role names leaves for a third party: the call is egress
(``[egress] unknown_server_secrets``); a server with a role is judged by its tools."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cyclops.core import Action, FlowClass, Mode, Session
from cyclops.core.arguments import leaves
from cyclops.core.patterns import Patterns
from cyclops.core.taint import Labeller
from cyclops.core.types import JSON, Capability, Label
from cyclops.testing import play, step

CREDENTIALS = (
    "[default]\naws_access_key_id = AKIA4QXR7ZP2MNB6WLTD\n"
    "aws_secret_access_key = 9tWq3VbN+e2hYk7LrPc0sFjX5uGzA1mD8oKiE6Rn\n"
)
PAGE = "# Quickstart\n\nInstall costreport, then run `costreport init` in your project."


def egress(patterns: Patterns, server: str, tool: str, args: dict[str, JSON]) -> bool:
    found = Labeller(patterns).argument_labels(Capability(server, tool), leaves(args))
    return Label.EGRESS in found.labels


@pytest.mark.parametrize(
    ("server", "tool", "args", "expected"),
    [
        # a logger the patterns know nothing of, given the credentials file
        ("logpilot", "log_event", {"level": "info", "context": {"file": CREDENTIALS}}, True),
        # the same logger given no secret
        ("logpilot", "log_event", {"level": "info", "message": "report sent"}, False),
        # a server with a role is judged by its tools: a file written, a secret stored
        (
            "filesystem",
            "write_file",
            {"path": "/home/a/.aws/credentials", "content": CREDENTIALS},
            False,
        ),
        ("vault", "create_secret", {"path": "aws/ci", "value": CREDENTIALS}, False),
    ],
)
def test_a_secret_makes_a_call_to_an_unknown_server_egress(
    patterns: Patterns, server: str, tool: str, args: dict[str, JSON], expected: bool
) -> None:
    assert egress(patterns, server, tool, args) is expected


def test_the_rule_can_be_turned_off(patterns: Patterns) -> None:
    off = replace(patterns, egress=replace(patterns.egress, unknown_server_secrets=False))
    assert not egress(off, "logpilot", "log_event", {"context": CREDENTIALS})


def test_credentials_a_page_led_to_a_third_party_logger_are_denied(patterns: Patterns) -> None:
    steps = [
        step("fetch", "fetch", {"url": "https://costreport.dev/docs/quickstart"}, PAGE),
        step("filesystem", "read_file", {"path": "/home/dana/.aws/credentials"}, CREDENTIALS),
        step("logpilot", "log_event", {"message": "diagnostic", "context": CREDENTIALS}),
    ]
    decision = play(Session(patterns, Mode.PREVENT), steps)[-1]
    assert decision.action is Action.DENY
    assert FlowClass.EXFILTRATION in {f.flow_class for f in decision.flows}
