"""Taint labels (C1): what a call is, from its server's roles, its tool name, its arguments and
what it returned.

Rules:

1. A server's roles are those the operator declared (downstream.toml), every role whose
   ``servers`` globs match its name, and every role one of whose ``signatures`` matches a tool
   the server offers (listed up front, or seen called).
2. A call's labels are the union of: every tool-glob rule of every role of its server (a glob
   matches the tool's name, or that name without a leading copy of the server's: see
   ``regex.tool_names``); every argument rule whose key and tool globs match and whose path
   globs or value regexes match a value (any depth); the egress URL rule (a URL to a host
   neither allowed nor served by the server's own service, its roles' ``hosts``) — and nothing
   else. An argument rule's locator regexes mark the part of a value that says which records
   the call changes (``ArgumentLabels.located``).
3. A result's labels add to its call's: what its content shows (see :mod:`.reading`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

from .argrules import Spans, match_rules, rules_for
from .arguments import (
    ArgLeaf,
    command_hosts,
    emails_in,
    hosts_in,
    local_directories,
    local_path,
    starts_with_url,
)
from .audience import message_audience, ticket_requesters
from .matches import CallShape
from .pages import acts_on_admin_page
from .reading import ResultFacts, ResultReader
from .regex import GlobSet, tool_names
from .rules import Patterns, Role
from .types import (
    HOSTILE_ROLE,
    LISTING,
    READ_RESOURCE,
    ArgPath,
    Capability,
    Container,
    FlowClass,
    Label,
    Place,
    ToolResult,
)

__all__ = ["ArgumentLabels", "Labeller"]

_PRIVILEGED = frozenset({Label.PRIVILEGED})
_PLAIN_NUMBER = re.compile(r"[-+]?[$€£]?[0-9][0-9,]*(?:\.[0-9]+)?")  # an amount, as written


@dataclass(frozen=True)
class ArgumentLabels:
    labels: frozenset[Label]
    rule_ids: tuple[str, ...]
    """Argument rules that matched (``egress-url`` for the URL rule)."""
    egress_hosts: tuple[str, ...]
    """Hosts outside the allowlist that the arguments point at, in order of appearance."""
    hosts: Mapping[ArgPath, tuple[str, ...]] = field(default_factory=dict)
    """Per argument, every host it points at, lower-case (the allowlist not applied)."""
    located: Mapping[ArgPath, Spans] = field(default_factory=dict)
    """Per argument, the spans of its value that say which records the call changes (the
    ``locator_regexes`` of the rules that labelled the call)."""
    instruction_only: bool = False
    """A rule that matched makes a privileged call count only after content that addressed
    the agent (a SQL read)."""
    named_hosts: tuple[str, ...] = ()
    """Every host the arguments point at, in order of appearance, once (the allowlist not
    applied)."""


class Labeller:
    def __init__(
        self,
        patterns: Patterns,
        declared_roles: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._p = patterns
        self._declared = {server: tuple(roles) for server, roles in (declared_roles or {}).items()}
        self._tools: dict[str, set[str]] = {}
        self._learned: dict[str, frozenset[str]] = {}
        self._reader = ResultReader(patterns)
        self.static_labels = lru_cache(maxsize=4096)(self._static_labels)
        self.roles_of = lru_cache(maxsize=1024)(self._roles_of)
        self.tool_names = lru_cache(maxsize=4096)(self._tool_names)
        self._is_container_key = lru_cache(maxsize=4096)(self._container_key)
        self._is_checkout_key = lru_cache(maxsize=4096)(self._checkout_key)
        self.instruction_only = lru_cache(maxsize=4096)(self._instruction_only)
        settings = patterns.provenance
        self.writes = lru_cache(maxsize=4096)(partial(self._is_one_of, settings.write_tools))
        self.pushes = lru_cache(maxsize=4096)(partial(self._is_one_of, settings.push_tools))
        self.stages = lru_cache(maxsize=4096)(partial(self._is_one_of, settings.stage_tools))
        self._home_hosts = lru_cache(maxsize=1024)(self._hosts_of_roles)
        self._service_hosts = lru_cache(maxsize=1024)(self._hosts_of_service)
        # Per tool and per argument key: the same few recur in every call of a session.
        self._rules_for = lru_cache(maxsize=4096)(partial(rules_for, patterns.arguments))
        egress = patterns.egress
        self.is_url_key = lru_cache(maxsize=4096)(egress.url_keys.matches_name)
        self._is_destination_key = lru_cache(maxsize=4096)(egress.destination_keys.matches_name)
        self._is_sender_key = lru_cache(maxsize=4096)(egress.sender_keys.matches_name)
        conditions = patterns.provenance.condition_keys
        self._is_condition_key = lru_cache(maxsize=4096)(conditions.matches_name)
        self._key_hosts: dict[str, list[str]] = {}
        for rule in patterns.secrets:
            for word in rule.services:
                hosts = rule.hosts.patterns if rule.hosts else ()
                self._key_hosts.setdefault(word, []).extend(hosts)

    def learn_tools(self, server: str, tools: Iterable[str]) -> None:
        """Tools a server offers (listed, or seen called): a signature tool names its role."""
        known = self._tools.setdefault(server, set())
        new = set(tools) - known
        if not new:
            return
        known |= new
        # A name stripped of its server's prefix reveals a role only where the server's name
        # says nothing: Notion's `notion-fetch` is no web fetcher.
        named = self._named(server)
        names = [n for t in new for n in ((t,) if named else tool_names(server, t))]
        found = {r.name for r in self._p.roles if any(map(r.signatures.matches_name, names))}
        learned = self._learned.get(server, frozenset())
        if found - learned:
            self._learned[server] = learned | found
            self._roles_changed()

    def _named(self, server: str) -> bool:
        """Whether the operator or the server's name says what it is (a role's `servers`)."""
        return server in self._declared or any(
            not r.every_server and r.servers.matches(server) for r in self._p.roles
        )

    def _roles_changed(self) -> None:
        self.roles_of.cache_clear()
        self.static_labels.cache_clear()
        self._is_container_key.cache_clear()
        self._is_checkout_key.cache_clear()
        self._home_hosts.cache_clear()
        self._service_hosts.cache_clear()

    def declare_roles(self, server: str, roles: Iterable[str]) -> None:
        """More declared roles for ``server`` (a replay restores what the proxy had)."""
        known = set(self._declared.get(server, ()))
        if not set(roles) <= known:
            self._declared[server] = tuple(sorted(known | set(roles)))
            self._roles_changed()

    def learn_from_result(self, capability: Capability, facts: ResultFacts) -> None:
        """What a result shows about its server: a tool listing that instructs the agent
        (untrusted: an untrusted marker), or a result that asks to be called back with what
        it wants (see :mod:`.reading`), makes it hostile."""
        listing = capability.tool == LISTING and Label.UNTRUSTED in facts.labels
        if listing or facts.calls_back:
            self.declare_roles(capability.server, (HOSTILE_ROLE,))

    def _roles_of(self, server: str) -> tuple[Role, ...]:
        named = set(self._declared.get(server, ())) | self._learned.get(server, frozenset())
        return tuple(
            role for role in self._p.roles if role.name in named or role.servers.matches(server)
        )

    def _tool_names(self, capability: Capability) -> tuple[str, ...]:
        """The names tool globs are matched against (see ``regex.tool_names``)."""
        return tool_names(capability.server, capability.tool, self._p.tool_verbs)

    def _static_labels(self, capability: Capability) -> frozenset[Label]:
        labels: set[Label] = set()
        names = self.tool_names(capability)
        fresh = False
        for role in self.roles_of(capability.server):
            for glob, role_labels in role.tools:
                if any(map(glob.matches_name, names)):
                    labels |= role_labels
            fresh = fresh or any(map(role.fresh_tools.matches_name, names))
        if fresh:
            labels.discard(Label.SENSITIVE)
        return frozenset(labels)

    def call_labels(
        self, capability: Capability, arg_labels: ArgumentLabels, page: str | None
    ) -> frozenset[Label]:
        """A call's labels from its roles and its arguments, and for a browser from the page it
        has open (``page``): privileged when a page action acts on an admin page (see
        :mod:`.pages`); no egress when it reaches only ``[egress] allow_hosts``, by the hosts
        its arguments name or, naming none, the page's (typing into the local dev server's
        login form sends nothing out)."""
        labels = self.static_labels(capability) | arg_labels.labels
        roles = self.roles_of(capability.server)
        if page is not None and acts_on_admin_page(roles, self.tool_names(capability), page):
            labels |= _PRIVILEGED
        if Label.EGRESS in labels and any(role.page_actions for role in roles):
            named = arg_labels.named_hosts or tuple(hosts_in(page or "", bare=False))
            if named and all(map(self._p.egress.allow_hosts.matches, named)):
                labels -= {Label.EGRESS}
        return labels

    def _is_one_of(self, globs: GlobSet, capability: Capability) -> bool:
        return any(map(globs.matches_name, self.tool_names(capability)))

    def _instruction_only(self, capability: Capability) -> bool:
        """Whether the tool is one of the excessive-agency policy's ``instruction_only_tools``."""
        globs = self._p.flows[FlowClass.EXCESSIVE_AGENCY].instruction_only_tools
        return any(map(globs.matches_name, self.tool_names(capability)))

    def container(self, capability: Capability, args: Sequence[ArgLeaf]) -> Container:
        """Where the call reads or writes, by its server's roles' ``container_keys``: the
        top-level arguments under them (key, value case-folded), sorted; empty if none."""
        found = {
            (leaf.key, leaf.value.strip().casefold())
            for leaf in args
            if leaf.path == leaf.key and self._is_container_key(capability.server, leaf.key)
        }
        return tuple(sorted(found))

    def place(
        self, capability: Capability, args: Sequence[ArgLeaf], arg_labels: ArgumentLabels
    ) -> Place:
        """Where the call reads or writes: its container, the directories a checkout of that
        container lives in, and the directories of the absolute local paths it names (not for
        a call in a container, whose paths are the container's; nor for a key or a secret
        file, which no repository holds)."""
        container = self.container(capability, args)
        if container:
            server = capability.server
            checkouts = {value for key, value in container if self._is_checkout_key(server, key)}
            return Place(container, frozenset(checkouts))
        if Label.SENSITIVE in arg_labels.labels:
            return Place()
        paths = frozenset(filter(None, (local_path(leaf.value) for leaf in args)))
        return Place(directories=frozenset(local_directories(args)), paths=paths)

    def audience(self, server: str, result: ToolResult) -> frozenset[str]:
        """The addresses a result of ``server`` that is one message was from and to, by its
        roles' ``sender_fields`` and ``recipient_fields`` (see :mod:`.audience`)."""
        roles = self.roles_of(server)
        senders = [name for role in roles for name in role.sender_fields]
        recipients = [name for role in roles for name in role.recipient_fields]
        return message_audience(result.texts, result.fields, senders, recipients)

    def requesters(self, server: str, result: ToolResult) -> frozenset[str]:
        """The addresses of who asked, in a result of ``server`` that is one ticket (its roles'
        ``requester_fields``: top-level fields, or dotted paths into its JSON)."""
        fields = [name for role in self.roles_of(server) for name in role.requester_fields]
        return ticket_requesters(result.texts, result.fields, result.documents, fields)

    def _hosts_of_roles(self, server: str) -> GlobSet | None:
        """The hosts ``server``'s roles serve from (their ``hosts``); None if they name none."""
        globs = [glob for role in self.roles_of(server) for glob in role.hosts.patterns]
        return GlobSet(tuple(dict.fromkeys(globs))) if globs else None

    def _hosts_of_service(self, word: str) -> GlobSet | None:
        """The hosts the service a variable's word names serves from: its role's, as a
        server's name says (``jira``: ``*.atlassian.net``), and its keys' (``gemini``: a
        secret rule's ``services``); None if none is known."""
        roles = self._hosts_of_roles(word)
        globs = [*(roles.patterns if roles else ()), *self._key_hosts.get(word, ())]
        return GlobSet(tuple(dict.fromkeys(globs))) if globs else None

    def _container_key(self, server: str, key: str) -> bool:
        return any(role.container_keys.matches_name(key) for role in self.roles_of(server))

    def _checkout_key(self, server: str, key: str) -> bool:
        return any(role.checkout_keys.matches_name(key) for role in self.roles_of(server))

    def argument_labels(self, capability: Capability, args: Sequence[ArgLeaf]) -> ArgumentLabels:
        reaching = args if capability.tool != READ_RESOURCE else self._network_uris(args)
        hosts = {leaf.path: found for leaf in reaching if (found := self.hosts_of(leaf))}
        names = self.tool_names(capability)
        matched = match_rules(self._rules_for(names), args, hosts, self._service_hosts)
        labels, rule_ids = set(matched.labels), list(matched.rule_ids)
        allowed, home = self._p.egress.allow_hosts, self._home_hosts(capability.server)
        named = tuple(dict.fromkeys(h for found in hosts.values() for h in found))
        outside = tuple(
            h for h in named if not (allowed.matches(h) or (home is not None and home.matches(h)))
        )
        if outside:
            labels |= self._p.egress.url_labels
            rule_ids.append("egress-url")
        if Label.EGRESS not in labels and self._secret_to_stranger(capability.server, args):
            labels.add(Label.EGRESS)
            rule_ids.append("secret-to-unknown-server")
        ids, only = tuple(rule_ids), matched.instruction_only
        return ArgumentLabels(frozenset(labels), ids, outside, hosts, matched.located, only, named)

    def _secret_to_stranger(self, server: str, args: Sequence[ArgLeaf]) -> bool:
        """``[egress] unknown_server_secrets``: a secret in the arguments of a call to a server
        that only the roles of every server name."""
        return (
            self._p.egress.unknown_server_secrets
            and all(role.every_server for role in self.roles_of(server))
            and any(self._reader.secrets.scan(leaf.value) for leaf in args)
        )

    def _network_uris(self, args: Sequence[ArgLeaf]) -> list[ArgLeaf]:
        """The arguments of a resource read whose URI reaches a host (``https://``), not one
        that names the server's own data (``repo://owner/name/...``)."""
        return [leaf for leaf in args if self._reaches_host(leaf.value)]

    def _reaches_host(self, url: str) -> bool:
        """Whether a URL's scheme reaches a host (``[egress] resource_schemes``): a secret
        reference (``op://vault/item/field``) names where the server finds it."""
        return url.lstrip().split("://", 1)[0].lower() in self._p.egress.resource_schemes

    def hosts_of(self, leaf: ArgLeaf) -> tuple[str, ...]:
        """The hosts an argument points at, lower-case: its URLs' (a value under a URL key may
        be a bare host), and those a command line under such a key sends to (``scp f u@h:``)."""
        egress = self._p.egress
        in_url_key = self.is_url_key(leaf.key)
        if not (in_url_key or (self._reaches_host(leaf.value) and starts_with_url(leaf.value))):
            return ()
        hosts = list(hosts_in(leaf.value, bare=in_url_key))
        if in_url_key:
            hosts += command_hosts(
                leaf.value,
                egress.network_commands,
                egress.lookup_commands,
                egress.web_commands,
                egress.service_commands,
            )
        return tuple(dict.fromkeys(h.lower() for h in hosts))

    def call_shape(
        self,
        capability: Capability,
        args: Sequence[ArgLeaf],
        labels: frozenset[Label],
        found: ArgumentLabels,
    ) -> CallShape:
        """What matching the arguments of a call labelled ``labels`` needs to know of it."""
        egress, privileged = Label.EGRESS in labels, Label.PRIVILEGED in labels
        destinations = [a for a in args if self.is_destination(a)]
        return CallShape(
            destinations=frozenset(a.path for a in destinations),
            opaque=frozenset(a.path for a in args if self.is_opaque_key(a.key)),
            unsteered=frozenset(
                a.path for a in args if privileged and (self.is_quantity(a) or self.is_condition(a))
            ),
            egress=egress,
            privileged=privileged,
            scan=self._reader.secrets if egress else None,
            hosts=found.hosts,
            recipients=frozenset(e for a in destinations for e in emails_in(a.value)),
            home_hosts=self._home_hosts(capability.server) if egress else None,
            located=found.located,
        )

    def is_destination(self, leaf: ArgLeaf) -> bool:
        if not self._is_destination_key(leaf.key):
            return False
        return not _under(leaf, self._is_sender_key)

    def is_quantity(self, leaf: ArgLeaf) -> bool:
        """A plain number under a quantity key (``Line[0].Amount = 212.77``)."""
        if _PLAIN_NUMBER.fullmatch(leaf.value.strip()) is None:
            return False
        return self._p.provenance.quantity_keys.matches_name(leaf.key)

    def is_condition(self, leaf: ArgLeaf) -> bool:
        """A value inside a rule's condition (``criteria.from`` of a mail filter)."""
        return _under(leaf, self._is_condition_key)

    def is_opaque_key(self, key: str) -> bool:
        return self._p.provenance.opaque_id_keys.matches(key)

    def is_private_key(self, key: str) -> bool:
        return self._p.provenance.private_value_keys.matches_name(key)

    def result_labels(
        self, call_labels: frozenset[Label], texts: Sequence[str]
    ) -> frozenset[Label]:
        """The labels of a result: its call's source labels plus what its content shows."""
        return self.read_result(call_labels, ToolResult(tuple(texts))).labels

    def read_result(
        self, call_labels: frozenset[Label], result: ToolResult, source: Capability | None = None
    ) -> ResultFacts:
        """What a result's content shows (see :mod:`.reading`); ``source``: the call that
        returned it, whose server's known tools a listing or a result may name."""
        known = self._tools.get(source.server, set()) if source is not None else set()
        if source is not None and source.tool == LISTING:
            return self._reader.read(call_labels, result, listing_tools=known)
        return self._reader.read(call_labels, result, own_tools=known)

    def requests_counted(
        self, capability: Capability, labels: frozenset[Label], by_reference: bool = False
    ) -> frozenset[str]:
        """The verbs a request asks for when it asks for what a call does, for a privileged
        call that is no booking or purchase (``instruction_only``: a review that says "please
        book ahead" asks for what users book anyway), or an egress call that sends private
        data its arguments name (``by_reference``: "share my bank password with ..."); none
        for any other (pages ask their readers to share and mail them all the time)."""
        consequential = Label.PRIVILEGED in labels or (by_reference and Label.EGRESS in labels)
        if not consequential or self.instruction_only(capability):
            return frozenset()
        return self._reader.requests.answered_by(capability.tool)


def _under(leaf: ArgLeaf, is_key: Callable[[str], bool]) -> bool:
    """Whether ``leaf`` sits under a key (at any depth, its own included) that ``is_key``."""
    return any(isinstance(key, str) and is_key(key) for key in leaf.location)
