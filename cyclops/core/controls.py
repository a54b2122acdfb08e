"""Per-call controls: each call checked on its own, before it reaches a server.

The provenance graph catches a flow across calls; these look at one call:

1. **secret** — a secret rule matched an egress call's arguments (any decoded form);
2. **destination** — an egress host or e-mail domain on the deny list, or off the allow list;
3. **ssrf** — a URL pointing inside (loopback, private, link-local, metadata), when guarded;
4. **path** — a path argument outside the server's roots, or on a sensitive glob;
5. **rate**, **budget**, **breaker** — too many calls, too many egress bytes to one destination,
   too many denials in the session;
6. **pin** — the tool changed since it was pinned (the shell compares; the core is told);
7. **tool** — a per-tool rule names it (the grants a ``cyclops scan`` cut revokes).

Each finding names its rule or condition and carries the action the operator chose for it; the
session takes the strictest action over flows and controls. Time comes in with the call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from .arguments import ArgLeaf, hosts_in, registrable_domain
from .controls_config import Controls, PathScope
from .destinations import judge_host, normal_host, ssrf_reason
from .provenance import ArgumentMatch
from .ratelimit import Budget, Limiter
from .regex import normalize_path
from .taint import Labeller
from .types import Action, Capability, ControlFinding, ControlKind, Label, ToolCall

__all__ = ["CallView", "Controller", "scope_path"]

_DRIVE = re.compile(r"[A-Za-z]:/")
_EMAIL_DOMAIN = re.compile(r"[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24})")


@dataclass(frozen=True)
class CallView:
    """What the controls read about one call."""

    call: ToolCall
    args: Sequence[ArgLeaf]
    labels: frozenset[Label]
    matches: Sequence[ArgumentMatch]
    """One per argument leaf for egress calls (secrets found in every decoded form)."""
    destination: str
    """The coarse destination the session accounts egress bytes to."""

    @property
    def egress(self) -> bool:
        return Label.EGRESS in self.labels

    @property
    def size(self) -> int:
        return sum(len(leaf.value.encode("utf-8", "replace")) for leaf in self.args)


class Controller:
    """The controls of one session: the checks, and the counters they keep."""

    def __init__(self, controls: Controls, labeller: Labeller) -> None:
        self.controls = controls
        self._labeller = labeller
        self._limiter = Limiter(
            controls.rates, Budget(controls.egress_budget_bytes), controls.breaker_denials
        )
        self._quarantined: dict[Capability, str] = {}

    # -- what the shell tells the session ----------------------------------------------------

    def quarantine(self, capability: Capability, reason: str = "tool-changed") -> None:
        self._quarantined[capability] = reason

    def release(self, capability: Capability) -> None:
        self._quarantined.pop(capability, None)

    @property
    def quarantined(self) -> frozenset[Capability]:
        return frozenset(self._quarantined)

    def reset_breaker(self) -> None:
        self._limiter.reset_breaker()

    @property
    def breaker_tripped(self) -> bool:
        return self._limiter.tripped

    # -- checking and counting ---------------------------------------------------------------

    def check(self, view: CallView) -> list[ControlFinding]:
        findings = [*self._pin(view), *self._tool_rules(view), *self._limits(view)]
        if view.egress:
            findings += self._secrets(view)
            findings += self._destinations(view)
        findings += self._ssrf(view)
        findings += self._paths(view)
        return [f for f in findings if f.action is not Action.ALLOW]

    def settle(self, view: CallView, wanted: Action, *, forwarded: bool) -> None:
        """Count the call: against the limits if it went on, against the breaker if a rule
        wanted it denied (in detect mode too: the breaker then flags)."""
        if wanted is Action.DENY:
            self._limiter.denied()
        if forwarded:
            self._limiter.record(
                view.call.capability, view.call.at, view.egress, view.destination, view.size
            )

    def _pin(self, view: CallView) -> Iterator[ControlFinding]:
        reason = self._quarantined.get(view.call.capability)
        if reason is not None:
            yield ControlFinding(ControlKind.PIN, reason, self.controls.pinning_action)

    def _tool_rules(self, view: CallView) -> Iterator[ControlFinding]:
        call = view.call
        for rule in self.controls.tools:
            if rule.servers.matches(call.server) and rule.tools.matches_name(call.tool):
                yield ControlFinding(ControlKind.TOOL, rule.id, rule.action)

    def _limits(self, view: CallView) -> Iterator[ControlFinding]:
        call = view.call
        for breach in self._limiter.check(
            call.capability, call.at, view.egress, view.destination, view.size
        ):
            if breach.rule == "breaker":
                yield ControlFinding(ControlKind.BREAKER, "breaker", Action.DENY)
            elif breach.rule == "egress-budget":
                detail = f"{self.controls.egress_budget_bytes} bytes"
                yield ControlFinding(
                    ControlKind.BUDGET, "egress-budget", self.controls.rate_action, None, detail
                )
            else:
                yield ControlFinding(ControlKind.RATE, breach.rule, self.controls.rate_action)

    def _secrets(self, view: CallView) -> Iterator[ControlFinding]:
        seen: set[tuple[str, str]] = set()
        for match in view.matches:
            for finding in match.secrets:
                key = (finding.rule_id, match.path)
                if key in seen:
                    continue
                seen.add(key)
                action = self.controls.action_for_secret(finding.rule_id)
                yield ControlFinding(ControlKind.SECRET, finding.rule_id, action, match.path)

    def _destinations(self, view: CallView) -> Iterator[ControlFinding]:
        rules = self.controls.destinations
        if not (rules.allow or rules.deny):
            return
        for path, host in self._egress_hosts(view.args):
            verdict = judge_host(host, rules.allow, rules.deny)
            if not verdict.allowed:
                detail = registrable_domain(host)
                yield ControlFinding(
                    ControlKind.DESTINATION, verdict.rule, rules.action, path, detail
                )

    def _egress_hosts(self, args: Sequence[ArgLeaf]) -> Iterator[tuple[str, str]]:
        """(argument, host) for every URL host and e-mail domain an egress call names."""
        seen: set[tuple[str, str]] = set()
        for leaf in args:
            for raw in _hosts_of_leaf(leaf, self._labeller):
                host = normal_host(raw)
                if host and (leaf.path, host) not in seen:
                    seen.add((leaf.path, host))
                    yield leaf.path, host

    def _ssrf(self, view: CallView) -> Iterator[ControlFinding]:
        rules = self.controls.destinations
        if not rules.ssrf_guard:
            return
        for leaf in view.args:
            if not self._labeller.is_url_key(leaf.key) and "://" not in leaf.value:
                continue
            for raw in hosts_in(leaf.value, bare=self._labeller.is_url_key(leaf.key)):
                host = normal_host(raw)
                reason = ssrf_reason(host) if host else None
                if reason is not None:
                    yield ControlFinding(
                        ControlKind.SSRF, reason.value, rules.ssrf_action, leaf.path
                    )
                    break

    def _paths(self, view: CallView) -> Iterator[ControlFinding]:
        for scope in self.controls.paths:
            if not scope.servers.matches(view.call.server):
                continue
            for leaf in view.args:
                if scope.keys.matches(leaf.key):
                    yield from _path_findings(scope, leaf)


def _hosts_of_leaf(leaf: ArgLeaf, labeller: Labeller) -> Iterable[str]:
    hosts: list[str] = []
    hosts += labeller.hosts_of(leaf)
    if labeller.is_destination(leaf):
        hosts += (m.group(1) for m in _EMAIL_DOMAIN.finditer(leaf.value))
    return hosts


def _path_findings(scope: PathScope, leaf: ArgLeaf) -> Iterator[ControlFinding]:
    path = scope_path(scope, leaf.value)
    if path is None:
        return
    if scope.roots and not any(_within(path, root) for root in scope.roots):
        yield ControlFinding(
            ControlKind.PATH,
            "outside-roots",
            scope.outside_action,
            leaf.path,
            ", ".join(scope.roots),
        )
    if scope.sensitive and scope.sensitive.matches(path):
        yield ControlFinding(ControlKind.PATH, "sensitive-path", scope.sensitive_action, leaf.path)


def scope_path(scope: PathScope, raw: str) -> str | None:
    """The path a value names, normalised lexically; ``None`` for an empty value.

    A relative path sits under the first root (where a server confined to its roots resolves
    it); ``~`` and a drive letter (``C:/``) stay as they are, outside every root. A ``file:``
    URI is percent-decoded first, as the server will.
    """
    value = raw.strip().strip("\"'")
    if not value:
        return None
    if value.lower().startswith("file:"):
        value = unquote(value)
    path = normalize_path(value)
    anchored = path.startswith("/") or value.startswith("~") or _DRIVE.match(path)
    if not anchored and scope.roots:
        path = normalize_path(f"{scope.roots[0]}/{value}")
    return path


def _within(path: str, root: str) -> bool:
    return root in ("/", path) or path.startswith(root + "/")
