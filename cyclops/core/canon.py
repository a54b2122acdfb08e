"""Canonical text: the form two strings are compared in once disguises are stripped.

``clean`` undoes the cheap visual disguises an attacker can put on a string without changing
how it reads: compatibility forms (fullwidth, ligatures, math letters), invisible characters
(zero-width, bidi controls, other format characters, variation selectors, tag characters,
control characters) and Cyrillic/Greek look-alikes of Latin letters. ``canonical`` also folds
case. Both are pure functions; every table is built once at import from explicit ranges.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import unquote_plus

__all__ = ["as_read", "canonical", "clean", "matchable", "revealed", "squeezed"]

# The invisible characters below U+0100: C0 controls except tab, newline and carriage return,
# DEL, C1 controls and the soft hyphen.
_LATIN1_INVISIBLE = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0), 0xAD])

# Inclusive code point ranges of characters that render as nothing (or as a control): C0/C1
# controls except tab/newline/return, every format (Cf) character, the other default-ignorable
# code points (fillers, variation selectors, the tag/VS supplement plane), and surrogates.
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008),
    (0x000B, 0x000C),
    (0x000E, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x0600, 0x0605),
    (0x061C, 0x061C),  # Arabic letter mark
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space/joiners, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xDFFF),  # lone surrogates: no character, but JSON can carry one ("\ud800")
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # unassigned specials and interlinear annotation
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tag characters and variation selectors supplement
)


def _character_class(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    parts = (re.escape(chr(low)) + "-" + re.escape(chr(high)) for low, high in ranges)
    one = "[" + "".join(parts) + "]"
    # "[...][...]*", not "[...]+": the regex engine skips ahead to a first character in the
    # class only when the pattern starts with the class itself, not with a repeat of it.
    return re.compile(one + one + "*")


# The regex engine tests a class of BMP characters with one table lookup, but ranges beyond
# U+FFFF one by one, so those get their own pattern, used only on text that has such characters.
_INVISIBLE_BMP = _character_class(tuple(r for r in _INVISIBLE_RANGES if r[1] <= 0xFFFF))
_INVISIBLE_ASTRAL = _character_class(tuple(r for r in _INVISIBLE_RANGES if r[1] > 0xFFFF))

# Letters that render like a Latin letter, by Unicode name, keyed by the Latin letter they mimic.
_LOOKALIKES: dict[str, tuple[str, ...]] = {
    "A": ("CYRILLIC CAPITAL LETTER A", "GREEK CAPITAL LETTER ALPHA"),
    "B": ("CYRILLIC CAPITAL LETTER VE", "GREEK CAPITAL LETTER BETA"),
    "C": ("CYRILLIC CAPITAL LETTER ES", "GREEK CAPITAL LUNATE SIGMA SYMBOL"),
    "D": ("CYRILLIC CAPITAL LETTER KOMI DE",),
    "E": ("CYRILLIC CAPITAL LETTER IE", "GREEK CAPITAL LETTER EPSILON"),
    "H": ("CYRILLIC CAPITAL LETTER EN", "CYRILLIC CAPITAL LETTER SHHA", "GREEK CAPITAL LETTER ETA"),
    "I": (
        "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I",
        "CYRILLIC LETTER PALOCHKA",
        "GREEK CAPITAL LETTER IOTA",
    ),
    "J": ("CYRILLIC CAPITAL LETTER JE", "GREEK CAPITAL LETTER YOT"),
    "K": ("CYRILLIC CAPITAL LETTER KA", "GREEK CAPITAL LETTER KAPPA"),
    "M": ("CYRILLIC CAPITAL LETTER EM", "GREEK CAPITAL LETTER MU"),
    "N": ("GREEK CAPITAL LETTER NU",),
    "O": ("CYRILLIC CAPITAL LETTER O", "GREEK CAPITAL LETTER OMICRON"),
    "P": ("CYRILLIC CAPITAL LETTER ER", "GREEK CAPITAL LETTER RHO"),
    "Q": ("CYRILLIC CAPITAL LETTER QA",),
    "S": ("CYRILLIC CAPITAL LETTER DZE",),
    "T": ("CYRILLIC CAPITAL LETTER TE", "GREEK CAPITAL LETTER TAU"),
    "W": ("CYRILLIC CAPITAL LETTER WE",),
    "X": ("CYRILLIC CAPITAL LETTER HA", "GREEK CAPITAL LETTER CHI"),
    "Y": (
        "CYRILLIC CAPITAL LETTER U",
        "CYRILLIC CAPITAL LETTER STRAIGHT U",
        "GREEK CAPITAL LETTER UPSILON",
    ),
    "Z": ("GREEK CAPITAL LETTER ZETA",),
    "a": ("CYRILLIC SMALL LETTER A", "GREEK SMALL LETTER ALPHA", "LATIN SMALL LETTER ALPHA"),
    "c": ("CYRILLIC SMALL LETTER ES", "GREEK LUNATE SIGMA SYMBOL"),
    "d": ("CYRILLIC SMALL LETTER KOMI DE",),
    "e": ("CYRILLIC SMALL LETTER IE",),
    "g": ("LATIN SMALL LETTER SCRIPT G",),
    "h": ("CYRILLIC SMALL LETTER SHHA", "ARMENIAN SMALL LETTER HO"),
    "i": (
        "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",
        "GREEK SMALL LETTER IOTA",
        "LATIN SMALL LETTER DOTLESS I",
    ),
    "j": ("CYRILLIC SMALL LETTER JE", "GREEK LETTER YOT", "LATIN SMALL LETTER DOTLESS J"),
    "k": ("GREEK SMALL LETTER KAPPA",),
    "l": ("CYRILLIC SMALL LETTER PALOCHKA",),
    "n": ("ARMENIAN SMALL LETTER VO",),
    "o": ("CYRILLIC SMALL LETTER O", "GREEK SMALL LETTER OMICRON", "ARMENIAN SMALL LETTER OH"),
    "p": ("CYRILLIC SMALL LETTER ER", "GREEK SMALL LETTER RHO"),
    "q": ("CYRILLIC SMALL LETTER QA",),
    "s": ("CYRILLIC SMALL LETTER DZE",),
    "u": ("GREEK SMALL LETTER UPSILON", "ARMENIAN SMALL LETTER SEH"),
    "v": ("GREEK SMALL LETTER NU",),
    "w": ("CYRILLIC SMALL LETTER WE",),
    "x": ("CYRILLIC SMALL LETTER HA", "GREEK SMALL LETTER CHI"),
    "y": ("CYRILLIC SMALL LETTER U", "CYRILLIC SMALL LETTER STRAIGHT U"),
}

_TO_LATIN: dict[int, str] = {
    ord(unicodedata.lookup(name)): latin for latin, names in _LOOKALIKES.items() for name in names
}

_LOOKALIKE = re.compile("[" + "".join(re.escape(chr(point)) for point in _TO_LATIN) + "]")


# A result's text is cleaned for its markers, then again when it is unmasked and indexed: the
# same string each time, whose hash Python keeps.
@lru_cache(maxsize=16)
def clean(text: str) -> str:
    """``text`` in NFKC with invisible characters removed and look-alike letters made Latin.

    Case is preserved; tab, newline and carriage return are kept.
    """
    if text.isascii():
        return _strip_invisible(text)
    # Stripping before NFKC lets a letter compose with a mark a zero-width character separated
    # it from; NFKC maps no visible character to an invisible one, so once is enough.
    normalized = unicodedata.normalize("NFKC", _strip_invisible(text))
    return normalized.translate(_TO_LATIN) if _LOOKALIKE.search(normalized) else normalized


def _strip_invisible(text: str) -> str:
    try:
        narrow = text.encode("latin-1")
    except UnicodeEncodeError:
        text = _INVISIBLE_BMP.sub("", text)
        return _INVISIBLE_ASTRAL.sub("", text) if _has_astral(text) else text
    # Below U+0100, bytes.translate deletes many times faster than a regex substitution.
    kept = narrow.translate(None, _LATIN1_INVISIBLE)
    return text if len(kept) == len(narrow) else kept.decode("latin-1")


# Tag characters mirror printable ASCII (U+E0020-U+E007E) and render as nothing: text written
# in them ("ASCII smuggling") is invisible to whoever reads it, and read by a model all the same.
_TAG_CHARACTERS = re.compile("[\U000e0020-\U000e007e]")
_TAGS_TO_ASCII = {0xE0000 + point: point for point in range(0x20, 0x7F)}


def _has_astral(text: str) -> bool:
    # Characters beyond U+FFFF take two UTF-16 code units; encoding is several times cheaper
    # than a regex search for them, or max().
    return len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)


def revealed(text: str) -> str | None:
    """``text`` with its tag characters turned into the ASCII they mirror (what ``clean``
    deletes as invisible), or None if it has none."""
    if text.isascii() or not _has_astral(text) or not _TAG_CHARACTERS.search(text):
        return None
    return text.translate(_TAGS_TO_ASCII)


# Words joined by ``+`` or ``%20``, as a form or a query string writes them (a request logged).
# Each run of letters is tried once (possessive), so a text of letters only costs linear time.
_FORM_ENCODED = re.compile(
    r"(?<![A-Za-z])[A-Za-z]{2,}+(?:\+|%20)[A-Za-z]{2,}+(?:\+|%20)[A-Za-z]{2,}"
)


def as_read(text: str) -> list[str]:
    """``text``, and what a model reads in it where that differs: disguises taken off (a
    zero-width space inside ``ignore``, a Cyrillic ``і``, fullwidth letters fool a regex, not a
    model), what invisible tag characters spell, and words a query string joined
    (``?q=IGNORE+PREVIOUS+INSTRUCTIONS`` in a web log). What markers are searched in."""
    found = [text]
    cleaned = clean(text)
    if cleaned != text:
        found.append(cleaned)
    if (hidden := revealed(text)) is not None:
        found.append(clean(hidden))
    if ("+" in text or "%20" in text) and _FORM_ENCODED.search(text):
        found.append(clean(unquote_plus(text)))
    return found


def canonical(text: str) -> str:
    """``clean(text)`` with case folded: the form to compare strings in."""
    return clean(text).casefold()


# Separators that differ between a value and its copy (a record's fields one per line, then
# joined with commas; a JSON list quoted) become one space, so that a copy matches end to end.
_SEPARATORS = ",;|\"'`"


def matchable(cleaned: str) -> str:
    """Already ``clean`` text, case folded, with every run of separators (whitespace and
    ``_SEPARATORS``) made one space."""
    text = cleaned.casefold()
    for separator in _SEPARATORS:
        if separator in text:
            text = text.replace(separator, " ")
    # split() cuts at exactly the characters isspace() is true of, in C and at once: many
    # times faster than a regex substitution match by match.
    words = text.split()
    if not words:
        return " " if text else ""
    joined = " ".join(words)
    if text[0].isspace():
        joined = " " + joined
    return joined + " " if text[-1].isspace() else joined


_NOT_LETTER_OR_DIGIT = re.compile(r"[\W_]+")


def squeezed(cleaned: str) -> str:
    """Already ``clean`` text's letters and digits, case folded: the form high values and
    private values are posted and looked up in, whatever separates their parts (``4532 9876
    5432 1098`` and ``4532-9876-5432-1098``)."""
    return _NOT_LETTER_OR_DIGIT.sub("", cleaned).casefold()
