"""The page a browser has open, and what it says about a call.

A browser's result says where it is (``Page URL: ...``, ``Navigated to ...``, a list of pages
with one ``[selected]``, a snapshot's root with its ``url``). A page of the signed-in user's
own account (``[results] private_pages``) shows private data, as a mail server's read does. A
page where acting changes who can get in or where data goes (a role's ``admin_pages``:
webhooks, members, API keys, mail forwarding, payees) makes the role's ``page_actions``
(typing, clicking) on it privileged calls, as the service's own API tools for the same
change are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .regex import SafeRegex
from .rules import Role

__all__ = ["acts_on_admin_page", "on_private_page", "page_address"]

# Playwright's `- Page URL: ...`, Puppeteer's `Navigated to ...`, Chrome DevTools' list of
# pages (`## Pages` / `0: https://... [selected]`) and its snapshot's root (`uid=1_0
# RootWebArea "Title" url="https://..."`).
_PAGE_URL = re.compile(
    r"(?im)^\W{0,4}(?:page url|navigated to|successfully navigated to)\s*:?\s*(\S+)"
    r"|^\d+: (\S+) \[selected\]"
    r"|^\s*uid=\d+_\d+ RootWebArea\b[^\n]{0,300}? url=\"([^\"\s]+)\""
)


def page_address(texts: Sequence[str]) -> str | None:
    """The URL of the page a browser's result says it is on, if it says."""
    for text in texts:
        match = _PAGE_URL.search(text[:4096])
        if match:
            return match.group(1) or match.group(2) or match.group(3)
    return None


def on_private_page(texts: Sequence[str], private_pages: Sequence[SafeRegex]) -> bool:
    """Whether a result says it is on a page of the user's own account."""
    address = page_address(texts) if private_pages else None
    return address is not None and any(p.search(address) for p in private_pages)


def acts_on_admin_page(roles: Iterable[Role], names: Sequence[str], address: str | None) -> bool:
    """Whether a call of a tool named ``names`` acts on the page at ``address`` (the page its
    browser has open), and that page is one of its roles' admin pages."""
    if address is None:
        return False
    return any(
        any(map(role.page_actions.matches_name, names))
        and any(p.search(address) for p in role.admin_pages)
        for role in roles
    )
