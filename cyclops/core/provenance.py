"""The provenance graph (C2/C3): which earlier results a call's arguments carry, and which
untrusted content was in the agent's context when it was made.

Rules:

1. Nodes are calls (their index in the session). Edges point from an earlier call to a later one.
2. A *data* edge means the later call's arguments, in some decoded form, carry a distinctive
   piece of the earlier call's result. It records which arguments.
3. An *influence* edge means untrusted content from the earlier call was in the agent's context
   (the hub every result passes through) when the later call was made. For each untrusted
   capability only its latest call is linked, so a call gets a bounded number of them.
4. Only results labelled untrusted or sensitive are indexed (see :mod:`.fingerprints`).
5. Beyond ``max_calls`` nodes the oldest are dropped, and the count says so.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from enum import StrEnum
from itertools import islice

import networkx as nx

from .agentcontext import AgentContext
from .argmatch import ArgumentMatcher
from .arguments import ArgLeaf
from .canon import clean, matchable
from .distinctive import holds_secret
from .fingerprints import FingerprintIndex
from .hits import Hit
from .leak import Source
from .matches import ArgumentMatch, CallShape
from .owners import Owners
from .privatevalues import value_forms
from .records import add_record_hits, record_keys
from .requested import NOTHING_ASKED, Asked
from .rules import Patterns
from .snapshots import page_words
from .types import ArgPath, Capability, Container, Label, Place, ToolResult
from .unmask import UnmaskLimits, unmask

__all__ = ["ArgumentMatch", "CallShape", "EdgeKind", "Provenance"]


# In a result, only encoded blocks are worth decoding (a base64 secret in a config).
_RESULT_UNMASK = UnmaskLimits(max_depth=2, short_runs=False, text_decoders=False)
_PUBLIC_RESULTS = 16
_PUBLIC_CHARS = 65536
_MAX_IDS = 1024
_NOWHERE = Place()


class EdgeKind(StrEnum):
    DATA = "data"
    INFLUENCE = "influence"


class Provenance:
    def __init__(self, patterns: Patterns) -> None:
        self._p = patterns
        self.graph: nx.DiGraph[int] = nx.DiGraph()
        self.index = FingerprintIndex(patterns.provenance, patterns.limits.max_fingerprints)
        self._matcher = ArgumentMatcher(self.index, patterns)
        self._order: deque[int] = deque()
        self.evicted_calls = 0
        self.context = AgentContext()
        self._public: deque[tuple[int, str]] = deque(maxlen=_PUBLIC_RESULTS)
        self.owners = Owners()

    # -- calls ----------------------------------------------------------------------------------

    def add_call(
        self,
        index: int,
        capability: Capability,
        labels: frozenset[Label],
        place: Place = _NOWHERE,
        args: Sequence[ArgLeaf] = (),
    ) -> None:
        """``place``: where the call reads or writes (see ``Labeller.place``); ``args``: its
        arguments, whose identifiers no later result gives the agent (see :mod:`.sentbefore`)."""
        self.graph.add_node(index, capability=capability, labels=labels, place=place)
        self._matcher.sent_before.note(index, args)
        self.owners.note_call(index, labels, args)
        self._order.append(index)
        while len(self._order) > self._p.limits.max_calls:
            self.graph.remove_node(self._order.popleft())
            self.evicted_calls += 1

    def set_labels(
        self,
        index: int,
        labels: frozenset[Label],
        *,
        instructed: bool = False,
        requests: Asked = NOTHING_ASKED,
    ) -> None:
        """``instructed``: the call's result addressed the agent (an untrusted marker);
        ``requests``: what its untrusted result asks its reader for."""
        if index in self.graph:
            self.graph.nodes[index].update(labels=labels, instructed=instructed, requests=requests)
            self.context.note_asked(index, instructed=instructed, requesting=bool(requests.verbs))

    def set_audience(self, index: int, audience: frozenset[str]) -> None:
        """The addresses the result of call ``index``, one message, was from and to."""
        if index in self.graph and audience:
            self.graph.nodes[index]["audience"] = audience

    def labels(self, index: int) -> frozenset[Label]:
        if index not in self.graph:
            return frozenset()
        labels: frozenset[Label] = self.graph.nodes[index]["labels"]
        return labels

    def instructed(self, index: int) -> bool:
        return index in self.graph and bool(self.graph.nodes[index].get("instructed"))

    def instructed_before(self, index: int) -> list[int]:
        """The calls before ``index`` whose results addressed the agent (the latest 64)."""
        return [call for call in self.context.instructed_before(index) if call in self.graph]

    def requested_before(
        self, index: int, verbs: frozenset[str], *, naming: frozenset[str] | None = None
    ) -> list[int]:
        """The calls before ``index`` whose results asked for one of ``verbs`` (of the latest
        64 that asked for anything), if ``naming`` is given in a sentence that named one of
        its addresses, and not a mail the call answers (see :meth:`replied_to`)."""
        nodes = self.graph.nodes
        return [
            call
            for call in self.context.requesting_before(index)
            if call in nodes
            and nodes[call]["requests"].asks(verbs, naming)
            and not (naming and self.replied_to(call, naming))
        ]

    def capability(self, index: int) -> Capability | None:
        return self.graph.nodes[index]["capability"] if index in self.graph else None

    def match_arguments(
        self, index: int, args: Sequence[ArgLeaf], shape: CallShape
    ) -> list[ArgumentMatch]:
        """Match every argument (see :class:`~cyclops.core.argmatch.ArgumentMatcher`) and add a
        data edge from each call whose result an argument carries."""
        if self.instructed_before(index):
            shape = replace(shape, steered=True)
        matches = self._matcher.match(args, shape)
        # Records link where untrusted content chose the destination, or told the agent to
        # send (see :mod:`.records`).
        if shape.egress and (
            self.instructed_before(index)
            or any(self._steering(m, shape.recipients) for m in matches)
        ):
            add_record_hits(self.index, matches)
        for match in matches:
            for call in {hit.call for hit in match.hits}:
                self._link(call, index, EdgeKind.DATA, match.path)
        return matches

    def _steering(self, match: ArgumentMatch, recipients: frozenset[str]) -> set[int]:
        """The untrusted calls that gave a destination argument, but a mail that did not
        address the agent when the call goes to the people it was from and to (a reply)."""
        if not match.destination:
            return set()
        return {c for c in match.untrusted_calls if not self.replied_to(c, recipients)}

    def silent_mail(self, index: int) -> bool:
        """Whether the call's result is untrusted and private at once (a mail, a chat) and did
        not address the agent (no untrusted marker): its author's own words, no instruction."""
        labels = self.labels(index)
        return {Label.UNTRUSTED, Label.SENSITIVE} <= labels and not self.instructed(index)

    def replied_to(self, index: int, recipients: frozenset[str]) -> bool:
        """Whether a call to ``recipients`` answers the result of call ``index``: a mail that
        did not address the agent, and the call goes to the people it was from and to."""
        return self.silent_mail(index) and recipients <= self._audience(index)

    def add_influence(self, index: int) -> list[int]:
        """Link ``index`` to the latest call of every untrusted capability seen so far."""
        sources = self.context.latest_before(index)
        for source in sources:
            self._link(source, index, EdgeKind.INFLUENCE, None)
        return sources

    def _link(self, source: int, target: int, kind: EdgeKind, path: ArgPath | None) -> None:
        graph = self.graph
        if source == target or source not in graph or target not in graph:
            return
        graph.add_edge(source, target)  # most links are new: add, then fill in
        data = graph.succ[source][target]
        if not data:
            data["kinds"], data["arguments"] = set(), set()
        data["kinds"].add(kind)
        if path is not None:
            data["arguments"].add(path)

    def sources(self, hits: Iterable[Hit]) -> dict[int, Source]:
        """The private text and family of each indexed segment ``hits`` found (what the leak
        ledger counts bytes of)."""
        found = {}
        for hit in hits:
            segment = self.index.segment(hit.segment)
            if segment is not None:
                found[hit.segment] = (segment.text, segment.family)
        return found

    def private_hits_of(
        self, index: int, matches: Iterable[ArgumentMatch], recipients: frozenset[str] = frozenset()
    ) -> list[Hit]:
        """:meth:`private_hits` of the sensitive hits of ``matches`` of call ``index``, sent to
        ``recipients`` (the e-mail addresses its destinations name): a message's words sent back
        to the people it was from and to only (a reply quoting the mail it answers), and records
        sent to their owner only (see :mod:`.owners`), are none."""
        sensitive = [h for m in matches for h in m.sensitive_hits]
        if recipients:
            sensitive = [h for h in sensitive if not self._theirs(h.call, recipients)]
        return self.private_hits(index, sensitive, [h for m in matches for h in m.outbound_hits])

    def _theirs(self, index: int, recipients: frozenset[str]) -> bool:
        """Whether call ``index``'s result is the ``recipients``' own: they are its audience,
        or its owner."""
        return recipients <= self._audience(index) or recipients == {self.owners.owner(index)}

    def _audience(self, index: int) -> frozenset[str]:
        node = self.graph.nodes.get(index)
        return node.get("audience", frozenset()) if node is not None else frozenset()

    def private_hits(
        self, index: int, hits: Iterable[Hit], outbound: Iterable[Hit] = ()
    ) -> list[Hit]:
        """The sensitive hits of call ``index`` that carry private data, without three kinds
        of piece:

        - *returned*: read by a call of the same server in the same container (a repository,
          a channel) the call writes in, or read from a local file of the container's checkout
          (a file under a directory named as ``checkout_keys`` say: ``~/code/parser/...``
          pushed to the repository ``parser``): it reaches no one who could not read it there;
          but not the ``outbound`` hits (inside a URL the call carries to another host);
        - *public*: already in a public (untrusted, not private) result before the private one
          (quoting a web page that a mail also quotes leaks nothing);
        - *vocabulary*: found in more than ``max_private_sources`` different private texts of
          the session (``collections.abc`` in every file of a code base is no one's secret;
          the same file read again is not a different text); but a secret-like piece is never
          vocabulary (one database password in ``.env``, the compose file and the settings).

        The same piece sent at the same place, found in several private texts, is kept once:
        the earliest text's.
        """
        home = self._container(index)
        if home is not None:
            hits = [hit for hit in hits if self._container(hit.call) != home]
            hits += [hit for hit in outbound if self._container(hit.call) == home]
        if checkouts := self.place(index).checkouts:
            hits = [hit for hit in hits if not checkouts & self.place(hit.call).directories]
        pieces = [(hit, self.piece(hit)) for hit in hits]
        texts: dict[str, set[int]] = {}
        for hit, piece in pieces:
            segment = self.index.segment(hit.segment)
            if piece and segment is not None:
                texts.setdefault(piece, set()).add(hash(segment.text))
        limit, entropy = self._p.provenance.max_private_sources, self._p.provenance.secret_entropy
        kept = [
            (hit, piece)
            for hit, piece in pieces
            if piece
            and (len(texts[piece]) <= limit or holds_secret(piece, entropy))
            and not self._is_public(hit.call, piece)
        ]
        # The same bytes sent, found in several private texts (one password in three files),
        # are one leak: the earliest text's.
        first: dict[tuple[str, int], Hit] = {}
        for hit, piece in sorted(kept, key=lambda item: item[0].segment):
            first.setdefault((piece, hit.at), hit)
        return [hit for hit, piece in kept if first[(piece, hit.at)] is hit]

    @property
    def patterns(self) -> Patterns:
        return self._p

    def piece(self, hit: Hit) -> str:
        """The private text a hit found (its value, for a high-value hit)."""
        return self.index.piece(hit)

    def place(self, index: int) -> Place:
        node = self.graph.nodes.get(index)
        return node["place"] if node is not None else _NOWHERE

    def _container(self, index: int) -> tuple[str, Container] | None:
        """The server and container call ``index`` reads or writes in; None if it names none."""
        container = self.place(index).container
        if not container:
            return None
        return self.graph.nodes[index]["capability"].server, container

    def _is_public(self, call: int, piece: str) -> bool:
        return any(i < call and piece in text for i, text in self._public)

    def data_sources(self, index: int) -> set[int]:
        """Calls whose results reached ``index``'s arguments as data."""
        if index not in self.graph:
            return set()
        return {
            s for s, _, d in self.graph.in_edges(index, data=True) if EdgeKind.DATA in d["kinds"]
        }

    def untrusted_before(self, index: int, besides: Collection[int] = ()) -> list[int]:
        """See :meth:`AgentContext.untrusted_before`."""
        return self.context.untrusted_before(index, besides)

    # -- results --------------------------------------------------------------------------------

    def add_result(
        self,
        index: int,
        labels: frozenset[Label],
        result: ToolResult,
        secrets: Sequence[Sequence[str]] = (),
        only_secrets_private: bool = False,
    ) -> None:
        """Index a result's texts under ``labels`` (only untrusted/sensitive content is kept),
        with the values under opaque-id keys each held (kept, not indexed) and those under
        private-value keys (linked whole); ``secrets``: per text, the values secret rules
        matched in it; ``only_secrets_private``: they are all that is private in it (a page
        anyone wrote that prints a key), the rest of its texts is indexed as public."""
        if Label.UNTRUSTED in labels:
            capability = self.capability(index)
            if capability is not None:
                self.context.note_untrusted(index, capability)
        # A lookup's result is kept even unlabelled: a customer's id found by her address
        # makes the records read by that id hers (see :mod:`.owners`, rule 2).
        self.owners.note_result(index, result)
        if not labels & {Label.UNTRUSTED, Label.SENSITIVE}:
            return
        if only_secrets_private:
            for text in {matchable(clean(s)) for found in secrets for s in found}:
                self.index.add(index, labels, text, [], secrets=[text])
            labels, secrets = labels - {Label.SENSITIVE}, ()
        sensitive = Label.SENSITIVE in labels
        # Untrusted text only steers with its values (a number to text), and only once it
        # addressed the agent: its other values, and a page's phone numbers, link nothing.
        settings = self._p.provenance
        steers = settings.steering_values if self.instructed(index) else ()
        rules = settings.high_value if sensitive else steers
        budget = self._p.limits.max_result_chars
        public: list[str] = []
        for i, text in enumerate(result.texts):
            if budget <= 0:
                break
            piece = page_words(text[:budget])
            budget -= len(piece)
            ids = result.ids[i] if i < len(result.ids) and sensitive else ()
            kept_ids = self._ids_to_keep(ids)
            found = [matchable(clean(value)) for value in (secrets[i] if i < len(secrets) else ())]
            private = result.private[i] if i < len(result.private) and sensitive else ()
            prose = piece if sensitive else None
            private_values = value_forms(self._p.provenance, private, prose)[:_MAX_IDS]
            self._matcher.private_values.add(private_values)
            posted = private_values  # posted whole, with the record's values under their keys
            if i < len(result.values) and sensitive:
                posted = private_values + record_keys(result.values[i])
            family: int | None = None
            seen: set[str] = set()
            for form in self._forms_to_index(piece, labels):
                cleaned = clean(form)
                if cleaned in seen:
                    continue  # a text and its cleaned form are one text to the index
                seen.add(cleaned)
                values = self._matcher.posted_values(rules, cleaned)
                text_form = matchable(cleaned)
                if family is None:
                    values += posted
                seg_id = self.index.add(
                    index, labels, text_form, values, family=family, ids=kept_ids, secrets=found
                )
                family = seg_id if family is None else family
                if not sensitive and len(public) < 8:
                    public.append(text_form[:_PUBLIC_CHARS])
        if public:
            self._public.append((index, "\n".join(public)))

    def _ids_to_keep(self, ids: Iterable[str]) -> list[str]:
        """``ids`` in canonical form, without those too short to tell from a coincidence; at
        most ``_MAX_IDS`` (each is looked for in the calls that leak its text)."""
        least = self._p.leak.min_id_length
        forms = (matchable(clean(value)) for value in ids) if least > 0 else ()
        return list(islice((f for f in forms if sum(map(str.isalnum, f)) >= least), _MAX_IDS))

    def _forms_to_index(self, text: str, labels: frozenset[Label]) -> Iterator[str]:
        # A private result that holds encoded data (a base64 secret in a config) is also indexed
        # decoded: the agent may decode it before sending.
        if Label.SENSITIVE in labels and len(text) <= 65536:
            yield from unmask(text, _RESULT_UNMASK)
        else:
            yield text
