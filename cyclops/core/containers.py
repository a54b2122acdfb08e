"""What a session knows of the containers (repositories) its calls read and write in: which
are public, and which the user works in.

A repository's files are private data by default: reading one, a server does not say whether
the repository is public. Some of its results do say: a repository search lists each
repository with its visibility (``{"full_name": "octo/tool", "private": false}``). Rules:

1. Only results of a role's ``public.listed_by`` tools are read: the server writes their JSON
   from its own records, and what anyone wrote there (a description) is only ever a string
   in it. A file's text that looks like such a listing says nothing: anyone can write one.
2. A JSON object there that names a container under one of ``name_fields`` and says it is
   public (``private_field`` false, ``visibility_field`` "public"; each that it has) makes
   that container public; one that says otherwise makes it private again. A container's name
   is its arguments' values joined by ``/`` in the order of their keys (``owner/name``).
3. A call of one of ``public.reads`` in a public container reads no private data: its tool's
   private label is dropped; it stays untrusted (anyone may have written what it reads). A
   private label from its arguments (a ``.env``) or from its content (a key) stays.
4. A result of those tools that shows containers, every one of them public (a code search
   whose hits all come from public repositories), is no private data either.
5. A local checkout of a container (a directory named as its ``checkout_keys`` say:
   ``~/work/cli`` for the repository ``cli``) is the container's, for a call that writes there,
   only once the session has read from that container (an issue, a file: the user works
   there). A name says nothing of the owner: ``mallory/cli`` is not where ``~/work/cli`` came
   from. A read names its container itself.
6. A result that is one ticket names who asked for it (a role's ``requester_fields``, fields
   or dotted paths into its JSON: an e-mailed Zendesk ticket's ``via.source.from.address``): a
   write into that ticket (a comment) goes to them, as a mail goes to its recipients, so what
   is theirs sent there only (a record whose audience they are) is no leak. A comment on a
   ticket not read in the session goes to no one known.
7. The latest ``MAX_KNOWN`` containers of each kind are kept; one forgotten is private again,
   and not worked in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, Literal

from .matches import CallShape
from .results import json_objects
from .rules import PublicListing
from .taint import Labeller
from .types import Capability, Container, Label, Place, ToolResult

__all__ = ["MAX_KNOWN", "Containers"]

MAX_KNOWN = 4096
_READS = frozenset({Label.UNTRUSTED, Label.SENSITIVE})


class Containers:
    def __init__(self, labeller: Labeller) -> None:
        self._labeller = labeller
        self._public: dict[tuple[str, str], None] = {}
        """(server, container name) of the public ones, oldest first."""
        self._read: dict[tuple[str, Container], None] = {}
        """(server, container) of those read from, oldest first."""
        self._requesters: dict[tuple[str, Container], frozenset[str]] = {}
        """(server, container) of tickets read → the addresses of who asked (rule 6)."""

    def settle(
        self, capability: Capability, labels: frozenset[Label], own: frozenset[Label], place: Place
    ) -> tuple[frozenset[Label], Place]:
        """A call's labels and place once what the session knows of its container is applied
        (``own``: the labels its arguments gave it): no private label for a read of a public
        one (rule 3); no checkout of a container not read from before (rule 5)."""
        if not place.container:
            return labels, place
        if self._reads_public(capability, place.container):
            labels -= {Label.SENSITIVE} - own
        key = (capability.server, place.container)
        if place.checkouts and key not in self._read and not labels & _READS:
            place = replace(place, checkouts=frozenset())  # a write; a read names its own
        if labels & _READS:
            self._read.pop(key, None)
            self._read[key] = None
            _keep_latest(self._read)
        return labels, place

    def addressed(self, capability: Capability, place: Place, shape: CallShape) -> CallShape:
        """An egress call's shape, its recipients the ticket's requesters when it names none
        and writes into a ticket read before (rule 6)."""
        if not shape.egress or shape.recipients or not place.container:
            return shape
        asked = self._requesters.get((capability.server, place.container))
        return replace(shape, recipients=asked) if asked else shape

    def learn(self, capability: Capability, place: Place, result: ToolResult) -> bool:
        """Take in what a ``result`` of a call of ``capability`` in ``place`` says of its
        server's containers: who asked for the ticket it is (rule 6); whether it shows public
        ones only (rule 4)."""
        asked = self._labeller.requesters(capability.server, result) if place.container else None
        if asked:
            self._requesters[(capability.server, place.container)] = asked
            _keep_latest(self._requesters)
        said = []
        documents = result.documents
        for listing in self._listings(capability, "listed_by"):
            for record in (r for document in documents for r in json_objects(document)):
                for name, public in _visibilities(record, listing):
                    said.append(public)
                    key = (capability.server, name)
                    self._public.pop(key, None)
                    if public:
                        self._public[key] = None
        _keep_latest(self._public)
        return bool(said) and all(said)

    def _reads_public(self, capability: Capability, container: Container) -> bool:
        """Whether the call reads a container known to be public, with a tool whose private
        label is the container's content."""
        if not self._public:
            return False
        name = "/".join(value for _, value in container)
        known = (capability.server, name) in self._public
        return known and next(self._listings(capability, "reads"), None) is not None

    def _listings(
        self, capability: Capability, tools: Literal["listed_by", "reads"]
    ) -> Iterator[PublicListing]:
        """The public listings of the server's roles whose ``tools`` globs match the call."""
        names = None
        for role in self._labeller.roles_of(capability.server):
            if role.public is None:
                continue
            names = names or self._labeller.tool_names(capability)
            if any(map(getattr(role.public, tools).matches_name, names)):
                yield role.public


def _visibilities(record: Mapping[str, Any], listing: PublicListing) -> Iterator[tuple[str, bool]]:
    """(case-folded container name, whether public) for each name of a container ``record``
    gives, if it says its visibility."""
    public = _public(record, listing)
    if public is None:
        return
    for field in listing.name_fields:
        value = record.get(field)
        if isinstance(value, str | int) and not isinstance(value, bool):
            yield str(value).strip().casefold(), public


def _public(record: Mapping[str, Any], listing: PublicListing) -> bool | None:
    """Whether the object says it is public (every visibility field it has says so); None
    when it has none."""
    said = []
    private = record.get(listing.private_field) if listing.private_field else None
    if isinstance(private, bool):
        said.append(not private)
    visibility = record.get(listing.visibility_field) if listing.visibility_field else None
    if isinstance(visibility, str):
        said.append(visibility.strip().casefold() == "public")
    return all(said) if said else None


def _keep_latest(known: dict[Any, Any]) -> None:
    while len(known) > MAX_KNOWN:
        del known[next(iter(known))]
