"""What in canonical text is distinctive enough to link two calls, and what a copy of it is.

Rules:

1. A *distinctive token* is long enough, varied enough (entropy), made of more than one kind of
   character, not made of common words, and not an opaque id (UUID, commit, timestamp).
2. A *secret-like* part of a token (a field between ``:/,;``, then a key or a value of
   ``key=value``; a field whose ``=`` stands between pieces that are no names is one value) is
   random-looking: character kinds switch often, or digits mix with letters, and its entropy
   is high. Only there is a copy shorter than ``min_fragment`` a copy.
3. *Prose words* are words of letters only; ids and numbers are the k-grams' business.
4. Untrusted text steers with *locators* (hosts, e-mail addresses, handles) and *identifiers*
   (``#633``, ``fix/qu-5415``): whole tokens, with an uncommon word, a digit or an inner symbol.
5. A copied span outside a secret-like part is trimmed to whole words and is no data when it
   is only letters and spaces, and short: words any two texts may share.
6. Every function is pure and costs time proportional to its text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, count
from operator import add

from .arguments import registrable_domain
from .rules import ProvenanceSettings
from .text import WORD, entropy, has_letters_and_digits, is_common

__all__ = [
    "are_distinctive",
    "holds_secret",
    "identifier",
    "identifiers",
    "locators",
    "plain_piece",
    "prose_words",
    "prose_words_at",
    "secret_like",
    "secret_piece",
    "trim_partial_words",
    "whole_word",
    "wordy",
]

# -- distinctive tokens and their secret-like parts ----------------------------------------------

_DIGIT = re.compile(r"\d")


def are_distinctive(candidates: list[str], settings: ProvenanceSettings) -> list[bool]:
    """Whether each of ``candidates`` (tokens of canonical text) is a distinctive token."""
    min_entropy = settings.min_token_entropy
    judged = [
        not token.isalpha()  # one plain word, however long, is not distinctive
        and (bool(_DIGIT.search(token)) or not all(map(is_common, WORD.findall(token))))
        and entropy(token) >= min_entropy
        for token in candidates
    ]
    return _without_opaque(candidates, judged, settings)


def _without_opaque(
    candidates: list[str], judged: list[bool], settings: ProvenanceSettings
) -> list[bool]:
    """``judged`` with the opaque ids among the chosen candidates turned down, checked in one
    pass (one token per line)."""
    opaque = settings.opaque_id
    chosen = list(compress(range(len(candidates)), judged))
    if opaque is None or not chosen:
        return judged
    joined = "\n".join([candidates[i] for i in chosen])
    starts = list(accumulate([len(candidates[i]) + 1 for i in chosen], initial=0))
    for start, _ in opaque.spans(joined):
        judged[chosen[bisect_right(starts, start) - 1]] = False
    return judged


_FIELDS = re.compile(r"[:,;]+")
_SLASHES = re.compile(r"/+")
_EQUALS = re.compile(r"=+")
_BASE64 = re.compile(r"[a-z0-9+/]{20,}={0,2}")
_LETTERS = re.compile(r"[a-z]{3,}")


def secret_like(token: str, min_entropy: float) -> list[tuple[int, int]]:
    """The secret-like parts of ``token``, in order: ``host:5432:db:user:pw`` is five fields,
    ``region=eu-west-1`` a key and a value, ``api/v2/users`` a path of three; each is judged
    on its own. A field with ``=`` between pieces that are no names (``4xzn5nn6=qzi03hi``) is
    one value, and so is base64 with ``/`` in it (an AWS secret key)."""
    parts = []
    for a, b in _fields(token):
        if _one_value(token[a:b]):
            parts.append((a, b))
        else:
            parts.extend(_cut(token, a, b, _EQUALS))
    return [(a, b) for a, b in parts if _mixed(part := token[a:b]) and entropy(part) >= min_entropy]


def _cut(text: str, start: int, end: int, separators: re.Pattern[str]) -> list[tuple[int, int]]:
    """The non-empty pieces of ``text[start:end]`` between ``separators``."""
    pieces = []
    position = start
    for separator in separators.finditer(text, start, end):
        if separator.start() > position:
            pieces.append((position, separator.start()))
        position = separator.end()
    if end > position:
        pieces.append((position, end))
    return pieces


def _fields(token: str) -> Iterator[tuple[int, int]]:
    """The fields of ``token``: between ``:``, ``,`` and ``;``, and between the ``/`` of a
    path (not of base64: a long run of its alphabet without a word in common)."""
    for a, b in _cut(token, 0, len(token), _FIELDS):
        field = token[a:b]
        if "/" in field and not _base64_value(field):
            yield from _cut(token, a, b, _SLASHES)
        else:
            yield a, b


def _base64_value(field: str) -> bool:
    return bool(_BASE64.fullmatch(field)) and not any(
        is_common(word) for word in _LETTERS.findall(field)
    )


def _one_value(field: str) -> bool:
    """A field with ``=`` only between pieces that are no names: a password or a key with
    ``=`` in it (or base64 padding), not a ``key=value`` pair (``api_key=...``)."""
    if "=" not in field:
        return False
    return not any(_NAME.fullmatch(piece) for piece in field.split("=") if piece)


_NAME = re.compile(r"[^\W\d]+(?:[_.-][^\W\d]+)*")
"""Letters, joined by ``_``, ``.`` or ``-``: a key's name, not a secret's piece."""


# Runs of one kind of character: digits, letters (with ``_.-``), anything else.
_KIND_RUNS = re.compile(r"[0-9]+|(?:[^\W0-9]|[.-])+|[^\w.-]+")


def _mixed(token: str) -> bool:
    """Random-looking, as keys, passwords, codes and IBANs are; words, names and identifiers
    (``collections.abc``, ``object.__getattr__``) are not. Either the kind of character
    (letter, digit, symbol; ``_.-`` count as letters) switches three times or more, or there
    are at least four digits among letters."""
    runs = _KIND_RUNS.findall(token)
    if len(runs) >= 4:  # three switches
        return True
    digits = sum([len(r) for r in runs if r[0].isdigit()])
    return digits >= 4 and sum([c.isalpha() for c in token]) >= 2


# -- prose -----------------------------------------------------------------------------------

# A word of letters only (a run of letters and digits without a digit), split out with what
# lies between words (even items) around it.
_LETTERS = re.compile(r"(?<![^\W_])([^\W\d_]+)(?![^\W_])")
_ASCII_ALNUM = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ASCII_NON_ALNUM_TO_SPACE = bytes(c if c in _ASCII_ALNUM else 32 for c in range(256))


def prose_words(text: str) -> list[str]:
    """The words made of letters only."""
    pieces = _alnum_runs(text)
    if pieces is None:
        return _LETTERS.findall(text)
    return list(compress(pieces, map(str.isalpha, pieces)))


def prose_words_at(text: str) -> tuple[list[str], list[int]]:
    """The words made of letters only, and where each starts."""
    pieces = _alnum_runs(text)
    if pieces is None:
        parts = _LETTERS.split(text)
        return parts[1::2], list(accumulate(map(len, parts)))[:-1:2]
    words = list(map(str.isalpha, pieces))
    starts = map(add, accumulate(map(len, pieces), initial=0), count())
    return list(compress(pieces, words)), list(compress(starts, words))


def _alnum_runs(text: str) -> list[str] | None:
    """``text`` cut at every character that is no letter or digit, one piece per character
    cut (so the pieces say where they start), or None if it has letters or digits that are
    not ASCII. A regex goes match by match; bytes.translate and str.split go in C at once."""
    ascii_only = text.encode("ascii", "replace")  # one "?" for every other character
    if not text.isascii():
        position = ascii_only.find(b"?")
        while position >= 0:
            if text[position].isalnum():
                return None
            position = ascii_only.find(b"?", position + 1)
    return ascii_only.translate(_ASCII_NON_ALNUM_TO_SPACE).decode("ascii").split(" ")


# -- locators and identifiers ----------------------------------------------------------------

_MAX_LOCATOR = 320
_DOMAIN = re.compile(r"(?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24}")
_EMAIL = re.compile(r"[a-z0-9._%+-]{1,64}@((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24})")
_HANDLE = re.compile(r"[@#][a-z0-9_][a-z0-9_.-]{2,40}")
_LOCATOR_SPLIT = re.compile(r"[\"'`()\[\]{}<>,;|=&]")


def locators(text: str) -> set[str]:
    """Hosts, domains, e-mail addresses and @handles/#channels named in canonical text."""
    found: set[str] = set()
    for piece in text.split():
        if len(piece) > _MAX_LOCATOR or not ("." in piece or "@" in piece or "#" in piece):
            continue
        for token in _LOCATOR_SPLIT.split(piece):
            found.update(_locators_in(token.strip(".:!?*")))
    return {loc for loc in found if _distinctive_locator(loc)}


def _locators_in(token: str) -> Iterator[str]:
    if "://" in token:
        host = token.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
        if _DOMAIN.fullmatch(host):
            yield host
        return
    email = _EMAIL.fullmatch(token)
    if email:
        yield token
        yield email.group(1)
    elif _HANDLE.fullmatch(token):
        yield token
    else:
        host = token.split("/", 1)[0]
        if _DOMAIN.fullmatch(host):
            yield host


def _distinctive_locator(locator: str) -> bool:
    """Not made of common words only (``docs.python.org`` is named everywhere); but a domain
    whose own name joins several (``docs-feedback.io``: what an attacker registers so that
    it looks familiar) is distinctive all the same."""
    if not all(map(is_common, WORD.findall(locator))):
        return True
    host = locator.rsplit("@", 1)[-1]
    return "." in host and len(WORD.findall(registrable_domain(host).split(".", 1)[0])) > 1


_EDGE_PUNCTUATION = ".,;:!?()[]{}<>\"'`*"
_INNER_SYMBOLS = frozenset("-_/.:@")
_ASCII_DIGIT = re.compile(r"[0-9]")


def identifier(value: str) -> str | None:
    """A short value as an identifier worth matching whole (``PR-633``, ``#633``, a branch, an
    IBAN), or None: at least 3 characters, with a digit or an inner symbol, not a common word."""
    token = value.strip().strip(_EDGE_PUNCTUATION).lstrip("#@")
    if not 3 <= len(token) <= 128 or token.split() != [token]:  # whitespace inside
        return None
    return token if _is_identifier(token) else None


def _is_identifier(token: str) -> bool:
    """For a token of 3 to 128 characters without whitespace: a digit or an inner symbol, and
    not a common word."""
    if token.isascii():
        has_digit = _ASCII_DIGIT.search(token) is not None
    else:
        has_digit = any(c.isdigit() for c in token)
    return (has_digit or not _INNER_SYMBOLS.isdisjoint(token)) and not is_common(token)


_IDENTIFIER_HINT = re.compile(r"[0-9/_.:@-]")


# Markup and quotes glued to a word are no part of it (`+13241234123</important>`).
_WORD_BREAK = re.compile(r'[<>"`]')
_BREAK_CHARS = frozenset('<>"`')


def identifiers(text: str) -> set[str]:
    """Every identifier among the words of canonical ``text`` (split at whitespace, markup
    and quotes)."""
    candidates = {
        word.strip(_EDGE_PUNCTUATION).lstrip("#@")
        for word in _words(filter(_IDENTIFIER_HINT.search, text.split()))
    }
    return {token for token in candidates if 3 <= len(token) <= 128 and _is_identifier(token)}


def _words(words: Iterable[str]) -> Iterator[str]:
    for word in words:
        if _BREAK_CHARS.isdisjoint(word):
            yield word
        else:
            yield from _WORD_BREAK.split(word)


# -- copies ----------------------------------------------------------------------------------

_LONG_WORDY = 24


def trim_partial_words(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span that starts or ends inside a word of ``text`` to whole words, and drop
    what is not a letter or digit at its ends (``quence on sequen`` → ``on``). Only words of
    letters are trimmed: a cut through ``de3276668260918...`` is a piece of a number."""
    if start > 0 and text[start - 1].isalpha():
        while start < end and text[start].isalpha():
            start += 1
    if end < len(text) and text[end].isalpha():
        while end > start and text[end - 1].isalpha():
            end -= 1
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


def wordy(text: str, start: int, end: int) -> bool:
    """Letters and spaces only, and short: a few words any two texts may share."""
    if end - start >= _LONG_WORDY:
        return False
    letters = "".join(text[start:end].split())  # split() drops exactly what isspace() is
    return not letters or letters.isalpha()


def whole_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is letters only and a whole word of ``text``."""
    return (
        (start == 0 or not text[start - 1].isalpha())
        and (end == len(text) or not text[end].isalpha())
        and text[start:end].isalpha()
    )


_SECRET_PART = 12


def holds_secret(piece: str, min_entropy: float) -> bool:
    """Whether ``piece`` holds a secret-like part of 12+ letters and digits (a password, a
    key): no vocabulary, however many private texts hold it."""
    candidates = [t for t in piece.split() if len(t) >= _SECRET_PART and has_letters_and_digits(t)]
    return any(
        b - a >= _SECRET_PART and has_letters_and_digits(token[a:b])
        for token in candidates
        for a, b in secret_like(token, min_entropy)
    )


def secret_piece(text: str, start: int, end: int, min_length: int) -> tuple[int, int] | None:
    """A copied piece of a secret-like token counts, however short, if it is no word. Letters
    glued to a digit are no word unless a common one (``ezfidd`` of ``1l9xn-ezfidd4wki99``, a
    password cut in three); letters between separators are (``expose`` of ``1-expose.pdf``)."""
    if end - start < min_length and whole_word(text, start, end):
        glued = (start > 0 and text[start - 1].isdigit()) or (
            end < len(text) and text[end].isdigit()
        )
        if not glued or is_common(text[start:end]):
            return None
    return start, end


def plain_piece(text: str, start: int, end: int, min_length: int) -> tuple[int, int] | None:
    """A copied piece of other text counts as whole words, ``min_length`` long or more, that
    are not words in common ("on sequence", "research")."""
    start, end = trim_partial_words(text, start, end)
    if end - start < min_length or wordy(text, start, end):
        return None
    return start, end
