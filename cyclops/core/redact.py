"""Redaction: take a secret out of an argument, in whatever encoding the argument carries it.

A secret found in a decoded form of an argument (base64, hex, percent-encoded...) is also
replaced in the argument as sent: each encoding of the secret the argument contains gives way
to ``[REDACTED:<rule-id>]``. The result is checked again the way it was found; if any trace of
the secret survives (an encoding not re-created here, compression, a disguise), the whole value
is replaced. The downstream never sees the secret.
"""

from __future__ import annotations

import base64
import html
import json
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .arguments import ArgLeaf, leaves
from .canon import clean, matchable
from .provenance import ArgumentMatch
from .rules import FlowPolicy
from .types import JSON, Action, ArgPath, ControlFinding, ControlKind, Evidence, FlowClass
from .unmask import unmask

__all__ = [
    "Target",
    "carries",
    "changed_paths",
    "marker",
    "redact_arguments",
    "redact_value",
    "redaction",
    "replace_at",
    "secret_targets",
]

Still = Callable[[str], bool]
"""Whether a (redacted) value still carries what was to be removed."""


def marker(rule_id: str) -> str:
    return f"[REDACTED:{rule_id}]"


def redact_value(value: str, pieces: Sequence[tuple[str, str]], still_carries: Still) -> str:
    """``value`` with every ``(rule_id, piece)`` removed, verified by ``still_carries``."""
    redacted = value
    for rule_id, piece in pieces:
        if len(piece) < 4:
            continue
        for variant in _variants(piece):
            redacted = _replace(redacted, variant, marker(rule_id))
    if still_carries(redacted):
        return marker(pieces[0][0]) if pieces else value
    return redacted


def _replace(text: str, variant: str, replacement: str) -> str:
    if variant in text:
        return text.replace(variant, replacement)
    if variant.isascii() and variant.lower() != variant.upper():  # letters: match any case
        return re.sub(re.escape(variant), replacement, text, flags=re.IGNORECASE)
    return text


def _variants(piece: str) -> Iterable[str]:
    """The piece, and the encodings of it an argument may carry."""
    data = piece.encode("utf-8", "surrogatepass")
    b64 = base64.b64encode(data).decode()
    yield piece
    yield b64
    yield b64.rstrip("=")
    yield base64.urlsafe_b64encode(data).decode().rstrip("=")
    yield base64.b32encode(data).decode().rstrip("=")
    yield data.hex()
    yield ":".join(f"{b:02x}" for b in data)
    once = urllib.parse.quote(piece, safe="")
    yield once
    yield urllib.parse.quote(once, safe="")
    yield urllib.parse.quote_plus(piece, safe="")
    yield html.escape(piece)
    yield "".join(f"&#{ord(c)};" for c in piece)
    yield "".join(f"&#x{ord(c):x};" for c in piece)
    yield json.dumps(piece, ensure_ascii=True)[1:-1]
    yield "".join(f"\\u{ord(c):04x}" for c in piece)


def replace_at(
    arguments: Mapping[str, JSON], location: Sequence[str | int], value: str
) -> dict[str, Any]:
    """A copy of ``arguments`` with the leaf at ``location`` (keys and indices) set to ``value``."""
    copy: dict[str, Any] = json.loads(json.dumps(arguments))
    node: Any = copy
    for step in location[:-1]:
        node = node[step]
    node[location[-1]] = value
    return copy


@dataclass(frozen=True)
class Target:
    """What to take out of one argument."""

    path: ArgPath
    rule: str
    """Named in the marker: a secret rule id, or a flow class."""
    pieces: tuple[str, ...] = ()
    """The secrets to remove; none: the whole value goes."""


def redact_arguments(
    arguments: Mapping[str, JSON],
    args: Sequence[ArgLeaf],
    targets: Iterable[Target],
    still_carries: Callable[[str, Sequence[str]], bool],
) -> dict[str, Any]:
    """A copy of ``arguments`` with every target taken out (verified per value)."""
    by_path: dict[ArgPath, list[Target]] = {}
    for target in targets:
        by_path.setdefault(target.path, []).append(target)
    redacted: dict[str, Any] = dict(arguments)
    for leaf in args:
        wanted = by_path.get(leaf.path)
        if not wanted or not leaf.location:
            continue
        whole = next((t for t in wanted if not t.pieces), None)
        if whole is not None:
            value = marker(whole.rule)
        else:
            value = _redact_pieces(leaf.value, wanted, still_carries)
        redacted = replace_at(redacted, leaf.location, value)
    return redacted


def _redact_pieces(
    value: str, targets: Sequence[Target], still_carries: Callable[[str, Sequence[str]], bool]
) -> str:
    pieces = [(t.rule, piece) for t in targets for piece in t.pieces]
    secrets = [piece for _, piece in pieces]
    return redact_value(value, pieces, lambda v: still_carries(v, secrets))


def secret_targets(matches: Iterable[ArgumentMatch], rules: set[str]) -> Iterator[Target]:
    """The secrets of ``rules`` found in each argument, one target per (argument, rule)."""
    for match in matches:
        pieces: dict[str, set[str]] = {}
        for found in match.secrets:
            if found.rule_id in rules and found.secret:
                pieces.setdefault(found.rule_id, set()).add(found.secret)
        for rule, secrets in pieces.items():
            yield Target(match.path, rule, tuple(sorted(secrets)))


def carries(value: str, pieces: Sequence[str]) -> bool:
    """Whether any decoded form of ``value`` still holds one of ``pieces``."""
    wanted = [matchable(clean(p)) for p in pieces if len(p) >= 4]
    return any(w in matchable(clean(form)) for form in unmask(value) for w in wanted)


def changed_paths(before: Mapping[str, JSON], after: Mapping[str, JSON]) -> frozenset[ArgPath]:
    """The argument paths whose values differ between two versions of the arguments."""
    old = {leaf.path: leaf.value for leaf in leaves(before)}
    new = {leaf.path: leaf.value for leaf in leaves(after)}
    return frozenset(path for path, value in old.items() if new.get(path) != value)


def redaction(
    arguments: Mapping[str, JSON],
    args: Sequence[ArgLeaf],
    *,
    matches: Iterable[ArgumentMatch],
    findings: Iterable[tuple[FlowClass, Evidence]],
    controls: Iterable[ControlFinding],
    policies: Mapping[FlowClass, FlowPolicy],
) -> Mapping[str, JSON] | None:
    """A call's arguments with what its findings and controls want redacted taken out: the
    secrets of secret rules and of secret-egress flows, the private data of exfiltration flows
    (None: nothing to take out was found, or some of it is not in the arguments)."""
    redacts = {cls for cls, _ in findings if policies[cls].action is Action.REDACT}
    rules = {c.rule for c in controls if c.kind is ControlKind.SECRET and c.action is Action.REDACT}
    exfil_paths: list[str] = []
    for cls, evidence in findings:
        if cls in redacts and cls is FlowClass.SECRET_EGRESS:
            rules.update(evidence.secret_rules)
        if cls in redacts and cls is FlowClass.EXFILTRATION:
            exfil_paths += evidence.sensitive_arguments
    targets = [
        *secret_targets(matches, rules),
        *(Target(path, FlowClass.EXFILTRATION.value) for path in exfil_paths),
    ]
    # A target outside the arguments sent (a file a push publishes: see staging.py) cannot be
    # taken out: nothing to forward then.
    where = {leaf.path for leaf in args if leaf.location}
    if not targets or any(target.path not in where for target in targets):
        return None
    return redact_arguments(arguments, args, targets, carries)
