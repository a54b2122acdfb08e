"""A key presented to the service that issued it: authentication, not data sent.

Rules:

1. A secret rule may name the hosts its secrets are meant for (``hosts``: a GitHub token is
   for ``github.com``). A secret that a call presents as a credential, and only to such hosts,
   is no secret sent and no leak: ``curl -H "Authorization: Bearer ghp_..."
   https://api.github.com/user`` is how the token is used.
2. Presented means where a credential goes, not where data goes: under a key that names one
   (``Authorization``, ``api_key``, ``token``), after a word that does in the same value
   (``Authorization: Bearer``, ``-u``, ``PRIVATE-TOKEN:``, ``?key=``), or as a URL's user
   information (``https://x-access-token:<token>@github.com/...``). The same token in a gist's
   body, a message or a query of another name is data: it stays a secret sent.
3. Every host the call reaches must be one of the rule's: a call that also reaches another host
   may carry the key there.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from .arguments import ArgLeaf
from .regex import GlobSet
from .secretscan import SecretFinding

__all__ = ["CREDENTIAL_KEY", "presented_credentials", "presented_in"]

CREDENTIAL_KEY = re.compile(
    r"(?i)^(?:authorization|proxy-authorization|x-[a-z-]*(?:key|token|auth)|(?:api|access|auth|"
    r"private|bearer)?[_-]?(?:key|token)|apikey|password|auth|credentials?)$"
)
_CREDENTIAL_BEFORE = re.compile(
    r"(?i)(?:authorization|bearer|token|basic|api[_-]?key|x-[a-z-]*(?:key|token)|private-token|"
    r"password|-u|--user|--oauth2-bearer|/bot|[?&](?:key|api_?key|access_token|token|auth))"
    r"[\"']?\s*[:=]?\s*[\"']?(?:[\w.-]*:)?$"
)
_LOOK_BACK = 40


def presented_credentials(
    leaf: ArgLeaf,
    found: Collection[SecretFinding],
    rule_hosts: Mapping[str, GlobSet],
    call_hosts: Collection[str],
) -> list[SecretFinding]:
    """Of the secrets ``found`` in ``leaf``, those presented as credentials to the hosts their
    rules name, when every host of the call (``call_hosts``) is one of them."""
    if not call_hosts:
        return []
    presented = []
    for finding in found:
        hosts = rule_hosts.get(finding.rule_id)
        if hosts is None or not all(map(hosts.matches, call_hosts)):
            continue
        if CREDENTIAL_KEY.match(leaf.key) or presented_in(leaf.value, finding.secret):
            presented.append(finding)
    return presented


def presented_in(value: str, secret: str) -> bool:
    """Whether each place ``secret`` appears in ``value`` is a credential's place."""
    start = value.find(secret) if secret else -1
    if start < 0:
        return False
    while start >= 0:
        before = value[max(0, start - _LOOK_BACK) : start]
        after = value[start + len(secret) : start + len(secret) + 1]
        userinfo = after == "@" and "://" in before
        if not (userinfo or _CREDENTIAL_BEFORE.search(before)):
            return False
        start = value.find(secret, start + len(secret))
    return True
