"""Validators that turn a pattern match into a finding.

Two kinds: checksums that random text rarely passes (Luhn, mod-97, Base58Check, the BIP-39
checksum), and shape checks that tell a credential from what merely stands where one could
(placeholders, template variables, identifiers and paths in code). Each takes the matched text
and answers yes or no; none raises.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable

from .wordlists import BIP39_INDEX

__all__ = [
    "CHECKS",
    "Check",
    "base58check_decode",
    "bip32_private_valid",
    "bip39_valid",
    "bip39_words",
    "credential_valid",
    "iban_country_valid",
    "iban_valid",
    "jwt_valid",
    "luhn_valid",
    "not_placeholder",
    "url_password_valid",
    "wif_valid",
]

Check = Callable[[str], bool]


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


# -- checksums -----------------------------------------------------------------------------------


def luhn_valid(text: str) -> bool:
    """The Luhn checksum of a payment card number (separators ignored)."""
    digits = _digits(text)
    if not 12 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        if i % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_valid(text: str) -> bool:
    """The ISO 13616 mod-97 check of an IBAN (spaces ignored, any case)."""
    iban = "".join(text.split()).upper()
    if not 15 <= len(iban) <= 34 or not iban.isalnum() or not iban[:2].isalpha():
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


# IBAN lengths by country, from the SWIFT IBAN registry.
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip


def iban_country_valid(text: str) -> bool:
    """Mod-97 and the length the IBAN registry gives the account's country."""
    iban = "".join(text.split()).upper()
    return _IBAN_LENGTHS.get(iban[:2]) == len(iban) and iban_valid(iban)


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {char: index for index, char in enumerate(_BASE58)}


def _sha256d(data: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def base58check_decode(text: str) -> bytes | None:
    """The payload of a Base58Check string (Bitcoin's), or None when it is not one."""
    if not text or len(text) > 200:
        return None
    number = 0
    for char in text:
        index = _BASE58_INDEX.get(char)
        if index is None:
            return None
        number = number * 58 + index
    zeros = len(text) - len(text.lstrip("1"))
    raw = b"\0" * zeros + number.to_bytes((number.bit_length() + 7) // 8, "big")
    if len(raw) < 5:
        return None
    payload, checksum = raw[:-4], raw[-4:]
    return payload if _sha256d(payload)[:4] == checksum else None


def wif_valid(text: str) -> bool:
    """A Bitcoin private key in wallet import format: Base58Check, version 0x80 or 0xef (testnet),
    32 key bytes and an optional 0x01 compression flag."""
    payload = base58check_decode(text)
    if payload is None or payload[0] not in (0x80, 0xEF):
        return False
    return len(payload) == 33 or (len(payload) == 34 and payload[-1] == 0x01)


# BIP-32 extended private key versions: xprv, tprv, yprv, zprv, uprv, vprv, Yprv, Zprv, Uprv, Vprv.
_BIP32_PRIVATE_VERSIONS = {
    bytes.fromhex(v)
    for v in (
        "0488ade4", "04358394", "049d7878", "04b2430c", "044a4e28", "045f18bc", "0295b005",
        "02aa7a99", "02575048", "02575483",
    )
}  # fmt: skip


def bip32_private_valid(text: str) -> bool:
    """A BIP-32 extended private key (xprv...): Base58Check, 78 bytes, a private-key version and
    a key that starts with the 0x00 private-key marker."""
    payload = base58check_decode(text)
    return (
        payload is not None
        and len(payload) == 78
        and payload[:4] in _BIP32_PRIVATE_VERSIONS
        and payload[45] == 0
    )


_MNEMONIC_SIZES = (24, 21, 18, 15, 12)
_LETTERS = re.compile(r"[a-z]+")


def _bip39_checksum_ok(indexes: list[int]) -> bool:
    bits = len(indexes) * 11
    checksum_bits = bits // 33
    number = 0
    for index in indexes:
        number = (number << 11) | index
    entropy = (number >> checksum_bits).to_bytes((bits - checksum_bits) // 8, "big")
    expected = hashlib.sha256(entropy).digest()[0] >> (8 - checksum_bits)
    return number & ((1 << checksum_bits) - 1) == expected


def bip39_valid(text: str) -> bool:
    """Whether ``text`` holds a BIP-39 English mnemonic: 12, 15, 18, 21 or 24 consecutive words
    of the list whose checksum bits match.

    Words outside the list cut the text into runs; a mnemonic is looked for at the start and the
    end of each run (context words stick to one side of a phrase), so the work is bounded whatever
    the text: at most ten checksums per run.
    """
    runs: list[list[int]] = [[]]
    for word in _LETTERS.findall(text.lower()):
        index = BIP39_INDEX.get(word)
        if index is None:
            runs.append([])
        else:
            runs[-1].append(index)
    for run in runs:
        for size in _MNEMONIC_SIZES:
            if len(run) < size:
                continue
            if _bip39_checksum_ok(run[:size]) or _bip39_checksum_ok(run[-size:]):
                return True
    return False


def bip39_words(text: str) -> bool:
    """Whether ``text`` holds 12 or more consecutive words of the BIP-39 English list, whatever
    their checksum: a phrase copied by hand with a slip, or made up for an example, is still
    written as one. Rules that use this check ask for a label beside it (``seed phrase``)."""
    run = 0
    for word in _LETTERS.findall(text.lower()):
        run = run + 1 if word in BIP39_INDEX else 0
        if run >= min(_MNEMONIC_SIZES):
            return True
    return False


def _b64url_json(segment: str) -> object:
    padded = segment + "=" * (-len(segment) % 4)
    return json.loads(base64.urlsafe_b64decode(padded))


def jwt_valid(text: str) -> bool:
    """A JSON Web Token: its header decodes to a JSON object naming an ``alg``, its payload to a
    JSON object."""
    parts = text.split(".")
    if len(parts) < 3:
        return False
    try:
        header, payload = _b64url_json(parts[0]), _b64url_json(parts[1])
    except ValueError:  # bad base64, bad UTF-8 and bad JSON are all ValueErrors
        return False
    return (
        isinstance(header, dict)
        and isinstance(header.get("alg"), str)
        and isinstance(payload, dict)
    )


# -- shapes --------------------------------------------------------------------------------------

# Marks of a stand-in that a generated token does not carry by chance: a run of one character
# (``00000000``), ``xxxx``, a template variable, a word that documentation puts in examples.
_STAND_IN = (
    r"(.)\1{5,}|(?i:x{4,})|\*{3,}|<[^>]*>|\$\{|\{\{|%\(|\$\(|"
    r"(?i:example|placeholder|your[_-]|redacted|dummy|sample)"
)
_TOKEN_STAND_IN = re.compile(_STAND_IN)
# ... and, for a password or a value next to a credential's name, more of them.
_PLACEHOLDER = re.compile(
    _STAND_IN + r"|\.{3}|#{3,}|(?i:changeme|change_me|change-me|yourpass|replace|insert|fixme|"
    r"todo|passw[o0]rd|secret|not[_-]?set|undefined|foobar|lorem)"
)
# Code identifiers are made of words: camelCase humps, runs of capitals, numbers. Random tokens
# break into many one- or two-character humps; identifiers into few long ones.
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_IDENTIFIER_SEPARATORS = re.compile(r"[._:-]+")
_MIN_WORD_LENGTH = 3.0
# Member access (``os.environ``, ``state?.tokens``) and operators only code has.
_MEMBER_ACCESS = re.compile(r"[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+")
_ACCESS_SEPARATOR = re.compile(r"[?!]?\.")
_CODE_OPERATORS = ("??", "?.", "!.", "=>", "&&", "||", "::")
_FILE_NAME = re.compile(
    r"(?i).+\.(?:txt|json|ya?ml|pem|key|crt|env|cfg|conf|ini|toml|py|js|ts|sh|log|csv|xml|html?)"
)


def _identifier_like(value: str) -> bool:
    """Whether ``value`` reads as a name in code (``Ed25519PrivateKey.from_bytes``, ``API_KEY``,
    ``hunter22``) rather than a generated token (``9fQ2xLr7ZpW4``)."""
    letters = _IDENTIFIER_SEPARATORS.sub("", value)
    if not letters.isascii() or not letters.isalnum():
        return False
    humps = len(_HUMP.findall(letters))
    return humps > 0 and len(letters) / humps >= _MIN_WORD_LENGTH


def _code_reference(value: str) -> bool:
    """Whether ``value`` starts as an expression: ``z.string``, ``state?.tokens?.access``."""
    if any(operator in value for operator in _CODE_OPERATORS):
        return True
    match = _MEMBER_ACCESS.match(value)
    return match is not None and all(
        len(name) <= 3 or _identifier_like(name) for name in _ACCESS_SEPARATOR.split(match.group())
    )


def credential_valid(text: str) -> bool:
    """A value next to a credential's name that looks like a credential: not a placeholder, a
    template variable, an environment or code reference, an identifier, a path or a file name."""
    value = text.strip("\"'`")
    if len(value) < 8 or len(set(value)) < 4:
        return False
    if value[0] in "$%@/~." or "://" in value or value.endswith(("(", ")")):
        return False
    if _PLACEHOLDER.search(value) or _FILE_NAME.fullmatch(value):
        return False
    return not (_identifier_like(value) or _code_reference(value))


# Passwords that documentation, tutorials and development defaults put in URLs.
_DEFAULT_PASSWORDS = frozenset(
    (
        "admin", "administrator", "changeit", "changeme", "default", "guest", "letmein", "mongo",
        "mypass", "mypassword", "mysql", "oracle", "pass", "passw0rd", "passwd", "password",
        "postgres", "postgresql", "pwd", "rabbitmq", "redis", "root", "sa", "secret", "test",
        "tester", "testing", "token", "toor", "user", "username", "yourpassword",
    )
)  # fmt: skip


def url_password_valid(text: str) -> bool:
    """A password inside a URL that is not a stand-in: no placeholder, template variable or
    development default such as ``postgres`` or ``guest``."""
    value = text.strip()
    if len(value) < 4 or len(set(value)) < 3 or value.lower() in _DEFAULT_PASSWORDS:
        return False
    if value[0] in "$%" or value.startswith(("{", "[")):
        return False
    return not _PLACEHOLDER.search(value)


def not_placeholder(text: str) -> bool:
    """A token that is not a documentation stand-in: no run of one character
    (``ghp_PersonalAccessToken00000000``), ``xxxx``, ``<token>``, ``${TOKEN}`` or ``example``."""
    value = text.strip()
    return len(set(value)) >= 4 and value[0] not in "$%" and not _TOKEN_STAND_IN.search(value)


CHECKS: dict[str, Check] = {
    "luhn": luhn_valid,
    "iban": iban_valid,
    "iban_country": iban_country_valid,
    "bip39": bip39_valid,
    "bip39_words": bip39_words,
    "wif": wif_valid,
    "bip32_private": bip32_private_valid,
    "jwt": jwt_valid,
    "credential": credential_valid,
    "url_password": url_password_valid,
    "not_placeholder": not_placeholder,
}
