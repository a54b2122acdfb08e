"""Disguises an agent can be told to put on a secret that the unmasking layers do not read: the
text reversed, ROT13, its characters spaced out (``t o k _ 9``, ``t-o-k``, ``txoxkx``), cut into
short lines, written as character codes (``116,111,107``), octal escapes (``\\164\\157``) or
binary octets (``01110100 01101111``), or encoded in Base85 or Ascii85.

Rules:

1. Disguises are taken off every form of a value, as sent and decoded, like the text
   escapes: a secret reversed and then base64-encoded, or encoded and then reversed, is found.
   Only what a sink sends is looked at this way (see ``UnmaskLimits.disguises``).
2. Only a form of at most ``MAX_TEXT`` characters is undone: a secret sent disguised is a
   short message, and each disguise is one more form to look up.
3. Each yields nothing where its pattern is absent: a value with no run of spaced characters
   gets no spaced-out reading, and one without a key-like token (12 or more characters of a
   key's alphabet, letters and digits) is not read reversed or in ROT13. A run read as Base85
   or Ascii85 must decode to printable text (most runs of symbols decode to noise); a run of
   one case of letters alone, or of digits alone, is not tried.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator

from .text import has_letters_and_digits

__all__ = ["DISGUISES", "MAX_TEXT", "undisguised"]

MAX_TEXT = 1024

_KEY_LIKE = re.compile(r"[A-Za-z0-9+/=_\-]{12,}")
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)
# Eight or more single characters, each followed by one separator, standing alone.
_SPACED_RUN = re.compile(r"(?<!\S)(?:\S[ \-.|,_/:;]){7,}\S?(?!\S)")
# Eight or more characters, each followed by the same filler character (``txoxkx_x9x``).
_FILLED_RUN = re.compile(r"(?<!\S)\S(\S)(?:\S\1){7,}\S?(?!\S)")
# Three or more short pieces, each alone on its line but the first (a secret cut into chunks,
# one per line, after an introduction).
_SHORT_LINES = re.compile(r"(?<!\S)\S{1,16}(?:\r?\n\S{1,16}){2,}(?![^\r\n])")
# Eight or more character codes of printable ASCII, separated by commas or spaces.
_CODE = r"(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])"
_CODES = re.compile(rf"(?<!\d)(?:{_CODE}[,; ]\s?){{7,}}{_CODE}(?!\d)")
_CODE_SPLIT = re.compile(r"[,; ]\s?")
# Eight or more octal escapes (``\164``), or binary octets of printable ASCII (``01110100``).
_OCTALS = re.compile(r"(?:\\[0-3][0-7]{2}){8,}")
_OCTETS = re.compile(r"(?<![01])0[01]{7}(?:[ ,]?0[01]{7}){7,}(?![01])")
# A run of 15 or more printable characters (the Base85 and Ascii85 alphabets together); one of
# a single case of letters, or of digits alone, is a word or a number and is not tried.
_BASE85_RUN = re.compile(r"[!-~]{15,}")


def _turned(text: str) -> Iterator[str]:
    """Reversed and in ROT13, if ``text`` holds a key-like token."""
    if _has_key_like_token(text):
        yield text[::-1]
        yield text.translate(_ROT13)


def _has_key_like_token(text: str) -> bool:
    """A run of 12 or more characters of a key's alphabet with letters and digits: reversed
    or rotated, a key stays one (prose is not looked at backwards)."""
    return any(map(has_letters_and_digits, _KEY_LIKE.findall(text)))


def _spaced(text: str) -> Iterator[str]:
    for run in (_SPACED_RUN, _FILLED_RUN):
        if run.search(text) and (despaced := run.sub(_every_other, text)) != text:
            yield despaced


def _every_other(run: re.Match[str]) -> str:
    """The characters a spaced-out run spells, if they hold a letter or digit: a rule drawn
    with one character (``====``, ``* * * *``, ``-=-=-=``) spells nothing."""
    spelled = run.group()[::2]
    return spelled if any(map(str.isalnum, spelled)) else run.group()


def _short_lines(text: str) -> Iterator[str]:
    if text.count("\n") >= 2 and _SHORT_LINES.search(text):
        yield _SHORT_LINES.sub(lambda run: run.group().replace("\r", "").replace("\n", ""), text)


def _codes(text: str) -> Iterator[str]:
    if _CODES.search(text):
        yield _CODES.sub(_characters, text)


def _characters(run: re.Match[str]) -> str:
    return "".join(chr(int(code)) for code in _CODE_SPLIT.split(run.group()))


def _octal_and_binary(text: str) -> Iterator[str]:
    if "\\" in text and _OCTALS.search(text):
        yield _OCTALS.sub(lambda run: _from_codes(run.group().split("\\")[1:], 8), text)
    if _OCTETS.search(text):
        yield _OCTETS.sub(lambda run: _from_codes(re.findall("[01]{8}", run.group()), 2), text)


def _from_codes(codes: list[str], base: int) -> str:
    return "".join(chr(int(code, base)) for code in codes)


def _base85(text: str) -> Iterator[str]:
    """``text`` with each run that decodes as Base85 or Ascii85 to printable text decoded."""
    replaced = _BASE85_RUN.sub(_decoded_run, text)
    if replaced != text:
        yield replaced


def _decoded_run(run: re.Match[str]) -> str:
    found = run.group()
    if found.isdigit() or (found.isalpha() and (found.islower() or found.isupper())):
        return found  # one plain word or number (a key's Base85 may hold no symbol: 1 in 100)
    plain = _b85(found)
    if plain is None:
        plain = _a85(found)
    return found if plain is None else plain


# The two alphabets: a run with any other character is no such encoding (the decoders, which
# loop in Python, would find that out only when they reach it).
_B85_ALPHABET = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]+")
_A85_ALPHABET = re.compile(r"(?:<~)?[!-uz]+(?:~>)?")


def _b85(run: str) -> str | None:
    if not _B85_ALPHABET.fullmatch(run):
        return None
    try:
        return _printable(base64.b85decode(run))
    except ValueError:  # binascii.Error is one
        return None


def _a85(run: str) -> str | None:
    if not _A85_ALPHABET.fullmatch(run):
        return None
    try:
        return _printable(base64.a85decode(run, adobe=run.startswith("<~") and run.endswith("~>")))
    except ValueError:
        return None


def _printable(data: bytes) -> str | None:
    try:
        plain = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return plain if plain.isprintable() and plain.strip() else None


DISGUISES: tuple[Callable[[str], Iterator[str]], ...] = (
    _turned,
    _spaced,
    _short_lines,
    _codes,
    _octal_and_binary,
    _base85,
)


def undisguised(text: str) -> Iterator[str]:
    """What ``text`` reads as with each disguise taken off (nothing past ``MAX_TEXT``)."""
    if len(text) > MAX_TEXT:
        return
    for disguise in DISGUISES:
        yield from disguise(text)
