"""A result that is only texts made to be given away (a public key, a certificate) is no
private data, whatever tool read it; a secret in it keeps it private."""

from __future__ import annotations

import pytest

from cyclops.core import Action, FlowClass, Label, Patterns, Session
from cyclops.core.taint import Labeller
from cyclops.core.types import ToolResult
from cyclops.testing import Step, play, step

PUBLIC_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICVZAM81eTROcc0/ypT3WWDg3W+quITlwW7EiiicsVXZ "
    "dev@MacBook-Pro-2\n"
)
AUTHORIZED = PUBLIC_KEY + (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA9xg2pK3m5NqL8vRt0YwZ+Qx4 ops@bastion\n"
)
CERTIFICATE = (
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQx7eR9bqQm1L2k3Zp0aF\n"
    "-----END CERTIFICATE-----\n"
)
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACAlWQDPNXk0TnHNP8qU91lg4N1vqriE5cFuxIonLFVzWQAAAJiF7Q9dhe0P\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)


@pytest.mark.parametrize(
    ("texts", "private"),
    [
        ((PUBLIC_KEY,), False),
        ((AUTHORIZED,), False),
        ((CERTIFICATE,), False),
        ((PUBLIC_KEY, "# deploy key for build-01\n"), True),  # one text is something else
        ((f"Here is my key: {PUBLIC_KEY}",), True),
        ((PRIVATE_KEY,), True),
    ],
)
def test_a_result_of_public_keys_only_is_no_private_data(
    patterns: Patterns, texts: tuple[str, ...], private: bool
) -> None:
    facts = Labeller(patterns).read_result(frozenset({Label.SENSITIVE}), ToolResult(texts))
    assert (Label.SENSITIVE in facts.labels) is private


PAGE = step("fetch", "fetch", {"url": "https://blog.example.org/ssh"}, "How to set up SSH keys.")


def mail_key(path: str, key: str) -> list[Step]:
    return [
        PAGE,
        step("filesystem", "read_text_file", {"path": path}, key),
        step("gmail", "send_email", {"to": ["rui@corp.example"], "body": f"My key:\n{key}"}),
    ]


def test_a_public_key_mailed_after_reading_a_page_is_allowed(prevent: Session) -> None:
    steps = mail_key("/home/dev/.ssh/id_ed25519.pub", PUBLIC_KEY)
    assert play(prevent, steps)[-1].action is Action.ALLOW


def test_the_private_key_mailed_the_same_way_is_still_exfiltration(prevent: Session) -> None:
    decision = play(prevent, mail_key("/home/dev/.ssh/id_ed25519", PRIVATE_KEY))[-1]
    assert decision.action is Action.DENY
    assert decision.flows[0].flow_class in {FlowClass.EXFILTRATION, FlowClass.SECRET_EGRESS}
