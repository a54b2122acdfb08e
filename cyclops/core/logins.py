"""Credentials typed into the site they are for: a login, not a leak (see also
:mod:`.credentials`: a key presented to the API that issued it).

A password manager's item (or a private file such as ``login.json``) names the site its login
is for. An agent that signs in for the user reads the item, opens the site in a browser and
types the username and password into its page: the private values reach the very site that
issued them, which knew them already. The same values typed into any other page (a look-alike
domain, a form on someone else's site) are the phish this proxy is for.

Rules:

1. A credential record is a JSON object of a private result that names one or more hosts,
   under a ``site_keys`` key (``uri``, ``urls``, ``website``...) or as an ``http(s)://`` URL
   under any key of its own (``"portal": "https://..."``), and holds values under
   ``credential_keys`` keys (``username``, ``password``, ``totp``...) anywhere inside it, or
   in ``{"label": "password", "value": ...}`` pairs (1Password's fields).
2. A call whose arguments name a record's ``id``, or that of the object holding it (``get``
   of ``password`` for a vault item), and returns a short private text that is no JSON
   fetched one of the record's values: that text is a value of a record for its hosts.
3. A browser server has a page open: the host its last forwarded call was sent to, or the
   page URL its result reports (``Page URL: ...``, ``Navigated to ...``: a click may leave the
   site).
4. An egress call that names no destination of its own (typing, filling a form) types into
   that page. A private piece it carries is dropped when it is one of a credential record's
   values and the page's host is one of the record's hosts, or a subdomain of one (or the
   other way round) that is none of the ``shared_hosts``, where anyone publishes pages:
   ``secure.chase.com`` for ``https://chase.com``, not ``sites.google.com`` for
   ``https://google.com``, nor ``docs.google.com`` for ``accounts.google.com``.
5. A private text of ``NAME=value`` lines only (a ``.env`` file) is one record too: the hosts
   of its ``http(s)://`` values, and the values of the variables whose name ends in a
   credential key (``E2E_BASE_URL``, ``E2E_USER``, ``E2E_PASSWORD``: the test account of the
   site the tests run against).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .canon import clean, matchable, squeezed
from .destinations import host_of, names_no_destination
from .fingerprints import FingerprintIndex
from .hits import Hit
from .pages import page_address
from .regex import GlobSet
from .rules import ProvenanceSettings
from .types import JSON, Capability, Label, ToolResult

__all__ = ["CredentialRecord", "Logins", "credential_records", "environment_records"]

_MAX_RECORDS = 64  # per result: a vault listing's first items
_MAX_CALLS = 64  # results whose records are kept, the latest
_MAX_VALUE = 256  # a fetched value (a password alone) is short
_LABEL_KEYS = ("label", "id", "name", "purpose", "type")
_WEB = ("http://", "https://")
_ASSIGNMENT = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)")


@dataclass(frozen=True)
class CredentialRecord:
    hosts: frozenset[str]
    values: frozenset[str]
    """The record's credential values, canonical (``matchable``) and squeezed (as a high
    value's hit holds them)."""
    ids: frozenset[str] = frozenset()
    """The ``id`` of the record and of the object holding it (a vault item's): a call that
    names one fetches one of the item's values (rule 2)."""


def credential_records(
    documents: Iterable[JSON], site_keys: GlobSet, credential_keys: GlobSet
) -> list[CredentialRecord]:
    """The credential records of a private result's JSON ``documents`` (rule 1)."""
    found: list[CredentialRecord] = []
    for document in documents:
        for record, parent in _objects(document, None):
            named = (
                text
                for key, value in record.items()
                for text in (_strings(value) if site_keys.matches_name(key) else _urls(value))
            )
            hosts = frozenset(h for h in map(host_of, named) if h and "." in h)
            if not hosts:
                continue
            values = _forms(_credentials(record, credential_keys))
            ids = frozenset(
                o["id"] for o in (record, parent) if o is not None and isinstance(o.get("id"), str)
            )
            if values:
                found.append(CredentialRecord(hosts, values, ids))
            if len(found) >= _MAX_RECORDS:
                return found
    return found


def environment_records(texts: Iterable[str], credential_keys: GlobSet) -> list[CredentialRecord]:
    """The credential records of a private result's ``NAME=value`` texts (rule 5)."""
    found: list[CredentialRecord] = []
    for text in texts:
        lines = [line.strip() for line in text.splitlines()]
        assignments = [_ASSIGNMENT.fullmatch(line) for line in lines if line and line[0] != "#"]
        if len(assignments) < 2 or not all(assignments):
            continue
        pairs = [(m[1], m[2].strip().strip("'\"")) for m in assignments if m is not None]
        hosts = frozenset(
            h for _, value in pairs if value.startswith(_WEB) and (h := host_of(value)) and "." in h
        )
        values = _forms(
            value for name, value in pairs if credential_keys.matches_name(name.rsplit("_", 1)[-1])
        )
        if hosts and values:
            found.append(CredentialRecord(hosts, values))
    return found


class Logins:
    """Pages open per browser server and the credential records of private results."""

    def __init__(self, settings: ProvenanceSettings) -> None:
        self._site_keys = settings.site_keys
        self._credential_keys = settings.credential_keys
        self._shared_hosts = settings.shared_hosts
        self._pages: dict[str, tuple[str, str | None]] = {}  # host, and the URL if known
        self._going: dict[int, tuple[str, str | None]] = {}  # host, and the URL if given
        self._fetching: dict[int, frozenset[str]] = {}
        self._records: dict[int, list[CredentialRecord]] = {}

    def sent(self, index: int, hosts: Sequence[str], values: Iterable[str]) -> None:
        """Call ``index`` is sent to ``hosts`` (once it has run, its server's page is open
        there, at the URL an argument gives) with argument ``values`` (an item's id: it
        fetches one of the item's values)."""
        host = host_of(hosts[0]) if hosts else None
        if not (host or self._records):
            return
        values = tuple(values)
        if host:
            urls = (v for v in values if v.startswith(_WEB) and host_of(v) == host)
            _put(self._going, index, (host, next(urls, None)))
        if self._records:
            named = set(values)
            for records in self._records.values():
                for record in records:
                    if record.ids & named:
                        _put(self._fetching, index, record.hosts)

    def ran(self, index: int, server: str, result: ToolResult, labels: frozenset[Label]) -> None:
        """Call ``index`` to ``server`` returned ``result``, labelled ``labels`` (a private one
        may hold credential records)."""
        going, url = self._going.pop(index, (None, None))
        if going or server in self._pages:  # a browser's result: it may say where it is now
            address = page_address(result.texts) or url
            host = address and host_of(address)
            if host:
                self._pages[server] = (host, address)
            elif going:
                self._pages[server] = (going, None)
        fetched = self._fetching.pop(index, None)
        if Label.SENSITIVE not in labels or not (self._site_keys and self._credential_keys):
            return
        records = credential_records(result.documents, self._site_keys, self._credential_keys)
        records += environment_records(result.texts, self._credential_keys)
        if fetched and not result.documents and sum(map(len, result.texts)) <= _MAX_VALUE:
            records.append(CredentialRecord(fetched, _forms(t.strip() for t in result.texts)))
        if records:
            _put(self._records, index, records)

    def address(self, server: str) -> str | None:
        """The URL of the page browser ``server`` last said it is on (or was sent to)."""
        return self._pages.get(server, (None, None))[1]

    def typed_elsewhere(
        self, capability: Capability, destination: str, hits: list[Hit], index: FingerprintIndex
    ) -> list[Hit]:
        """The private ``hits`` of an egress call to ``destination`` (see
        :func:`.destination_name`), without the credential values it types into the page of
        their own site (rule 4)."""
        if not hits or not self._records or not names_no_destination(destination, capability):
            return hits
        page = self._pages.get(capability.server, (None, None))[0]
        if page is None:
            return hits
        return [h for h in hits if not self._own_site(page, h, index)]

    def _own_site(self, page: str, hit: Hit, index: FingerprintIndex) -> bool:
        records = self._records.get(hit.call)
        if not records:
            return False
        piece = index.piece(hit)
        shared = self._shared_hosts.matches(page)
        return bool(piece) and any(
            (page in record.hosts or (not shared and _related(page, record.hosts)))
            and any(piece in v for v in record.values)
            for record in records
        )


_V = TypeVar("_V")


def _put(table: dict[int, _V], index: int, value: _V) -> None:
    """Keep ``value`` for call ``index``, forgetting the oldest beyond ``_MAX_CALLS``."""
    table[index] = value
    while len(table) > _MAX_CALLS:
        del table[next(iter(table))]


def _forms(values: Iterable[str]) -> frozenset[str]:
    forms = [matchable(clean(v)) for v in values]
    return frozenset(forms).union(map(squeezed, forms)) - {""}


def _related(page: str, hosts: Iterable[str]) -> bool:
    """Whether ``page`` is a subdomain of one of ``hosts``, or one of them of ``page``."""
    return any(page.endswith("." + host) or host.endswith("." + page) for host in hosts)


def _objects(
    value: JSON, parent: dict[str, JSON] | None
) -> Iterator[tuple[dict[str, JSON], dict[str, JSON] | None]]:
    """Every JSON object inside ``value``, outermost first, with the object holding it."""
    if isinstance(value, dict):
        yield value, parent
        for child in value.values():
            yield from _objects(child, value)
    elif isinstance(value, list):
        for child in value:
            yield from _objects(child, parent)


def _strings(value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for child in value.values():
            yield from _strings(child)
    elif isinstance(value, list):
        for child in value:
            yield from _strings(child)


def _urls(value: JSON) -> Iterator[str]:
    if isinstance(value, str) and value.startswith(("https://", "http://")):
        yield value


def _credentials(record: dict[str, JSON], keys: GlobSet) -> Iterator[str]:
    """The values under credential ``keys`` anywhere in ``record``, and those of
    ``{"label": "password", "value": ...}`` pairs."""
    for obj, _ in _objects(record, None):
        for key, value in obj.items():
            if isinstance(value, str) and keys.matches_name(key):
                yield value
        labelled = obj.get("value")
        if isinstance(labelled, str) and any(
            isinstance(obj.get(k), str) and keys.matches_name(str(obj[k])) for k in _LABEL_KEYS
        ):
            yield labelled
