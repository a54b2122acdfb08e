"""The audience of a message: the addresses it was from and to.

Rules:

1. A result is one message when it holds exactly one sender field (``From:``, ``"sender":``);
   a listing of several messages has no audience.
2. Fields are read where a mail server puts them: the top-level keys of a result that is a
   JSON object (``ToolResult.fields``), else the lines of a header block before its first
   blank line (``From: Bob <bob@x.example>``, ``sender: ...`` in YAML). A ``To:`` line in a
   body is no field.
3. The audience is every e-mail address on those fields, case-folded.
4. Who asked for a ticket may sit deeper in its JSON (Zendesk's ``via.source.from.address``,
   the address an e-mailed ticket came from): a dotted path is followed, key by key (names
   case-folded), in a result that is one JSON object only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache

from .arguments import emails_in

__all__ = ["addresses_at", "message_audience", "ticket_requesters"]

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


def addresses_at(documents: Sequence[object], paths: Collection[str]) -> frozenset[str]:
    """The e-mail addresses at dotted ``paths`` (case-folded names) of a result that is one
    JSON object (rule 4); empty for anything else."""
    if len(documents) != 1 or not isinstance(documents[0], Mapping):
        return frozenset()
    found: set[str] = set()
    for path in paths:
        value = _at_path(documents[0], path.split("."))
        if isinstance(value, str):
            found |= emails_in(value)
    return frozenset(found)


def _at_path(value: object, names: Sequence[str]) -> object:
    """The value under ``names`` (case-folded), key by key; None where one is missing."""
    for name in names:
        if not isinstance(value, Mapping):
            return None
        value = next((v for k, v in value.items() if str(k).casefold() == name), None)
    return value


def ticket_requesters(
    texts: Sequence[str],
    fields: Sequence[tuple[str, str]],
    documents: Sequence[object],
    requester_fields: Collection[str],
) -> frozenset[str]:
    """Who asked, in a result that is one ticket: the addresses on its ``requester_fields``,
    top-level fields as a message's senders (rule 1) or dotted paths into its JSON (rule 4)."""
    names = [name for name in requester_fields if "." not in name]
    paths = [name for name in requester_fields if "." in name]
    return message_audience(texts, fields, names, ()) | addresses_at(documents, paths)
