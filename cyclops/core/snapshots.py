"""A browser's page snapshot read as the page's words.

Playwright's MCP server (and others built on its ARIA snapshots) shows a page as YAML, one
element per line: ``- paragraph [ref=e8]: 4417 Juniper Hollow Road``; Chrome DevTools' as
``uid=2_4 StaticText "4417 Juniper Hollow Road"``. An address, a table row
or a list the page shows over several lines then has ``paragraph``, ``ref`` and the element's
id between its words, and a copy of it, which the agent writes on one line, holds no run of
words the snapshot holds. Blanking that markup (each character a space, so that every offset
into the text stays where it was) leaves the page's words next to each other.
"""

from __future__ import annotations

import re

__all__ = ["page_words"]

_SNAPSHOT = re.compile(r"\[ref=e?\d|^[ \t]*uid=\d+_\d+ ", re.M)
# An element's role at the start of its line (``- paragraph``, ``- cell "..."``; Chrome
# DevTools' ``uid=2_4 StaticText``), and its attributes (``[ref=e8]``, ``[level=1]``,
# ``[checked]``, ``[cursor=pointer]``; ``level="1"``).
_MARKUP = re.compile(
    r"(?m)^[ \t]*(?:- [a-z]+|uid=\d+_\d+ [A-Za-z]+)(?=[ :]|$)"
    r"|\[(?:ref|level|cursor|checked|disabled|expanded|selected|pressed|active)"
    r"(?:=[^\]\n]{0,40})?\]|\blevel=\"\d+\""
)


def page_words(text: str) -> str:
    """``text`` with a page snapshot's markup blanked out, if it is one; else ``text``."""
    if ("[ref=" in text or "uid=" in text) and _SNAPSHOT.search(text):
        return _MARKUP.sub(lambda m: " " * len(m.group()), text)
    return text
