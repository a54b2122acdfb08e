"""The audience of a message: the addresses it was from and to.

Rules:

1. A result is one message when it holds exactly one sender field (``From:``, ``"sender":``);
   a listing of several messages has no audience.
2. Fields are read where a mail server puts them: the top-level keys of a result that is a
   JSON object (``ToolResult.fields``), else the lines of a header block before its first
   blank line (``From: Bob <bob@x.example>``, ``sender: ...`` in YAML). A ``To:`` line in a
   body is no field.
3. The audience is every e-mail address on those fields, case-folded.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from .arguments import emails_in

__all__ = ["message_audience"]

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
_MAX_CHARS = 65536  # a message's fields are near its start; a huge result is not read whole


def message_audience(
    texts: Sequence[str],
    fields: Sequence[tuple[str, str]],
    senders: Collection[str],
    recipients: Collection[str],
) -> frozenset[str]:
    """The addresses of a result that is one message, by its ``senders`` and ``recipients``
    fields (names case-folded): its JSON ``fields`` (see ``ToolResult.fields``) when it is a
    JSON object, else the field lines of its ``texts``. Empty if it is no single message."""
    if not senders:
        return frozenset()
    if fields:
        sender_count, values = _json_fields(fields, senders, recipients)
    else:
        sender_count, values = _header_fields("\n".join(texts)[:_MAX_CHARS], senders, recipients)
    if sender_count != 1:
        return frozenset()
    return frozenset(address for value in values for address in emails_in(value))


def _json_fields(
    fields: Sequence[tuple[str, str]], senders: Collection[str], recipients: Collection[str]
) -> tuple[int, list[str]]:
    """Sender count and field values among a JSON object's top-level keys."""
    keys = {key.casefold(): value for key, value in fields}
    wanted = [*senders, *recipients]
    return sum(1 for name in senders if name in keys), [keys[n] for n in wanted if n in keys]


def _header_fields(
    text: str, senders: Collection[str], recipients: Collection[str]
) -> tuple[int, list[str]]:
    """Sender lines in the whole text, and the values of the field lines of its header block."""
    pattern = _field_lines(tuple(senders), tuple(recipients))
    fields = list(pattern.finditer(text))
    blank = _BLANK_LINE.search(text)
    head_end = blank.start() if blank else len(text)
    count = sum(1 for m in fields if m["sender"])
    return count, [m["value"] for m in fields if m.start() < head_end]


@lru_cache(maxsize=64)
def _field_lines(senders: tuple[str, ...], recipients: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(map(re.escape, senders))
    others = "|".join(map(re.escape, recipients)) or "(?!)"
    return re.compile(
        rf"""(?im)^[ \t]*["']?(?:(?P<sender>{names})|{others})["']?[ \t]*[:=](?P<value>.*)$"""
    )
