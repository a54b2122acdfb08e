"""Where an egress call sends data: allow and deny lists, and a guard against SSRF.

Everything here is lexical — the core resolves no names. A host is judged as written, after
undoing the tricks that make one host look like another:

- userinfo (``https://trusted.example@10.0.0.1/``: the host is ``10.0.0.1``);
- IP literals in other bases or shapes (``2130706433``, ``0177.0.0.1``, ``0x7f.1``,
  ``[::ffff:127.0.0.1]``, ``127.1``);
- internationalised names: Unicode hosts are compared in their IDNA (punycode) form, and a host
  whose letters are look-alikes of an allowed host's (``gіthub.com`` with a Cyrillic ``і``) is
  named as such.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from .arguments import ArgLeaf, registrable_domain
from .canon import clean
from .provenance import ArgumentMatch
from .regex import GlobSet
from .taint import ArgumentLabels
from .types import Capability

__all__ = [
    "HostVerdict",
    "SsrfReason",
    "destination_name",
    "host_of",
    "ip_literal",
    "judge_host",
    "names_no_destination",
    "normal_host",
    "ssrf_reason",
]

_METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"}
)
_INTERNAL_SUFFIXES = (
    ".internal",
    ".local",
    ".localhost",
    ".localdomain",
    ".intranet",
    ".corp",
    ".lan",
    ".home.arpa",
)


class SsrfReason(StrEnum):
    LOOPBACK = "loopback"
    PRIVATE = "private"
    LINK_LOCAL = "link_local"
    METADATA = "metadata"
    RESERVED = "reserved"
    INTERNAL_NAME = "internal_name"


@dataclass(frozen=True)
class HostVerdict:
    host: str
    allowed: bool
    rule: str
    """Which list decided: ``deny-list``, ``allow-list``, ``not-allowed``, ``look-alike``, or
    ``open`` (no allow list, not denied)."""


def host_of(url_or_host: str) -> str | None:
    """The host a URL (or a bare host) really points at, lower-cased, userinfo dropped."""
    text = url_or_host.strip()
    if "://" not in text:
        text = "//" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    return normal_host(host) if host else None


def normal_host(host: str) -> str:
    """A host name as compared: lower case, no trailing dot, IDNA (punycode) for Unicode."""
    host = host.strip("[]").rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return host


def ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host names if it is an IP literal in any notation browsers accept."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return _legacy_ipv4(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """inet_aton forms: 1 to 4 parts, each decimal, octal (0...) or hex (0x...)."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(parts):
        return None
    values = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                values.append(int(part, 16))
            elif len(part) > 1 and part.startswith("0"):
                values.append(int(part, 8))
            else:
                values.append(int(part, 10))
        except ValueError:
            return None
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        return None
    number = 0
    for value in head:
        number = number * 256 + value
    number = number * 256 ** (5 - len(values)) + last
    return ipaddress.IPv4Address(number) if number < 2**32 else None


def ssrf_reason(host: str) -> SsrfReason | None:
    """Why a request to ``host`` would reach the inside (or None if it would not, lexically).

    Names that public wildcard DNS services resolve to the address they spell
    (``10.0.0.1.nip.io``, ``127-0-0-1.sslip.io``) count as that address.
    """
    if host in _METADATA_HOSTS:
        return SsrfReason.METADATA
    if host == "localhost" or host.endswith((".localhost", ".localtest.me")):
        return SsrfReason.LOOPBACK
    address = ip_literal(_spelled_address(host) or host)
    if address is None:
        return SsrfReason.INTERNAL_NAME if host.endswith(_INTERNAL_SUFFIXES) else None
    if str(address) in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200"):
        return SsrfReason.METADATA
    if address.is_loopback or address.is_unspecified:
        return SsrfReason.LOOPBACK
    if address.is_link_local:
        return SsrfReason.LINK_LOCAL
    if address.is_private:
        return SsrfReason.PRIVATE
    if address.is_reserved or address.is_multicast:
        return SsrfReason.RESERVED
    return None


_WILDCARD_DNS = re.compile(
    r"(?:^|[.-])((?:\d{1,3}[.-]){3}\d{1,3})\.(?:nip\.io|sslip\.io|xip\.io|traefik\.me)$"
)


def _spelled_address(host: str) -> str | None:
    match = _WILDCARD_DNS.search(host)
    return match.group(1).replace("-", ".") if match else None


def judge_host(host: str, allow: GlobSet, deny: GlobSet) -> HostVerdict:
    """Deny list first; then, if there is an allow list, the host must be on it."""
    if deny and deny.matches(host):
        return HostVerdict(host, False, "deny-list")
    if allow:
        if allow.matches(host):
            return HostVerdict(host, True, "allow-list")
        if _looks_like(host, allow.patterns):
            return HostVerdict(host, False, "look-alike")
        return HostVerdict(host, False, "not-allowed")
    return HostVerdict(host, True, "open")


def _looks_like(host: str, allowed: Iterable[str]) -> bool:
    """A punycode host that reads as an allowed one once its look-alike letters are mapped."""
    if "xn--" not in host:
        return False
    try:
        unicode_host = host.encode("ascii").decode("idna")
    except UnicodeError:
        return False
    seen = clean(unicode_host).lower()
    return any(
        seen == pattern.lstrip("*.") or seen.endswith("." + pattern.lstrip("*."))
        for pattern in allowed
    )


def destination_name(
    capability: Capability,
    args: Sequence[ArgLeaf],
    arg_labels: ArgumentLabels,
    matches: Sequence[ArgumentMatch],
) -> str:
    """A coarse name for where a call sends data, never carrying the data itself."""
    if arg_labels.egress_hosts:
        return registrable_domain(arg_labels.egress_hosts[0])
    named: list[str] = []
    for leaf, match in zip(args, matches, strict=False):
        if not match.destination or match.sensitive_hits or match.secrets:
            continue
        value = leaf.value.strip().casefold()
        if "@" in value and "." in value.rsplit("@", 1)[-1]:
            return registrable_domain(value.rsplit("@", 1)[-1])
        if 0 < len(value) <= 64:
            named.append(value)
    return f"{capability}:{'/'.join(named[:3])}" if named else str(capability)


def names_no_destination(destination: str, capability: Capability) -> bool:
    """Whether ``destination`` (see :func:`destination_name`) is the tool alone: the call names
    no host and no recipient; it sends where an earlier call pointed it."""
    return destination == str(capability)
