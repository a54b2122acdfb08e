"""Decoded forms of a value: what an argument says once its encodings are peeled off.

``unmask`` returns a value with everything it decodes to, layer after layer (base64, base32,
hex, percent-encoding, HTML entities, JSON/C escapes, quoted-printable, gzip/zlib/deflate behind
base64), so a call can be linked to an earlier result even if that was re-encoded on the way.
Encoded runs are found inside longer strings, also when glued to a prefix of their alphabet.
The search is breadth-first and bounded by ``UnmaskLimits``; hostile input (nested encodings,
compression bombs, megabytes of escapes) spends a budget and stops, it never raises.
"""

from __future__ import annotations

import binascii
import re
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from cyclops.core.bytetext import MIN_WHOLE, UNREADABLE, read_bytes
from cyclops.core.canon import clean, revealed
from cyclops.core.disguises import undisguised
from cyclops.core.textdecoders import TEXT_DECODERS

__all__ = ["DEFAULT_LIMITS", "SINK_LIMITS", "UnmaskLimits", "unmask"]


@dataclass(frozen=True)
class UnmaskLimits:
    """How far ``unmask`` digs into one value.

    Character budget: all returned forms except the original value (always returned whole)
    hold at most ``max_total_chars(value) = max(total_chars_floor, total_chars_per_value_char *
    len(value))`` characters together. A form that would overrun it is cut to the characters
    left. Once the characters or ``max_forms`` are spent, ``unmask`` stops; once ``max_runs``
    distinct runs have been looked at, further base64/base32/hex runs are left undecoded.
    """

    max_depth: int = 4
    """Decoding layers applied one after another (cleaning a form is not a layer)."""
    short_runs: bool = True
    """Also read base64 runs of 8-11 characters (a 6-digit code encoded), where they stand alone
    and are no word."""
    text_decoders: bool = True
    """Also undo the text escapes (percent, HTML entities, backslash escapes, quoted-printable);
    without them only binary encodings are decoded (base64, hex, base32, compression), which
    is what is worth it for a long text such as a result: the text escapes give back nearly
    the same text again."""
    max_forms: int = 48
    """Distinct forms returned, the original value included."""
    total_chars_floor: int = 65_536
    total_chars_per_value_char: int = 4
    min_run: int = 12
    """Shortest run of base64, base32 or hex characters worth decoding."""
    max_runs: int = 4096
    """Distinct runs of base64, base32 or hex characters looked at per call: bounds the time
    spent on text full of short runs."""
    disguises: bool = False
    """Also take off the disguises of :mod:`.disguises` (reversed, ROT13, spaced out...):
    worth it for what a sink sends, where a secret may have been told to hide."""

    def __post_init__(self) -> None:
        counts = (self.max_depth, self.total_chars_floor, self.total_chars_per_value_char)
        if min(*counts, self.max_runs) < 0 or self.max_forms < 1 or self.min_run < 4:
            raise ValueError(f"{self!r}: counts must be >= 0, max_forms >= 1, min_run >= 4")

    def max_total_chars(self, value: str) -> int:
        """Characters all decoded forms of ``value`` may hold together."""
        return max(self.total_chars_floor, self.total_chars_per_value_char * len(value))


DEFAULT_LIMITS = UnmaskLimits()
SINK_LIMITS = UnmaskLimits(disguises=True)
"""For the arguments of a call that sends data: disguises taken off too."""

# Base64 runs of 8-11 characters (6-8 bytes: a code, a PIN) standing alone, with a digit or a
# lower-case letter before an upper-case one (not a word, not a Capitalised one).
_SHORT_RUN_MIN, _SHORT_RUN_MAX = 8, 11
_SHORT_BASE64 = re.compile(
    r"(?<![A-Za-z0-9+/_-])"
    r"(?=[A-Za-z+/_-]{0,10}[0-9]|[A-Za-z0-9+/_-]{0,9}[a-z][A-Za-z0-9+/_-]{0,9}[A-Z])"
    r"([A-Za-z0-9+/_-]{8,11})=?=?(?![A-Za-z0-9+/=_-])"
)

_URLSAFE_TO_STANDARD = str.maketrans("-_", "+/")
_BASE32_TO_BASE32HEX = str.maketrans(
    string.ascii_uppercase + "234567", string.digits + "ABCDEFGHIJKLMNOPQRSTUV"
)
_HEX_SEPARATORS = str.maketrans("", "", ":- ")
# Base64-alphabet runs made of words, numbers and path parts joined by -_/+ (``Notwithstanding``,
# ``/usr/lib/python3``, ``1700000000000``) fill plain text, while base64 of a 12-character
# secret looks like that about once in 100,000: they are not decoded. Identifiers
# (``XMLHttpRequest``, ``PyObject_GetAttr``) are common in code, and in about 5% of base64: only
# their aligned reading is tried. Neighbouring parts of each pattern differ in character class,
# so matching never backtracks far.
# A run made of words (``notwithstanding``, ``/usr/lib/python3``) or identifiers
# (``getElementById``) between separators. Checked piece by piece: one regex with the
# separators inside a repeated group would backtrack exponentially on ``------1aB``.
_RUN_SEPARATORS = re.compile(r"[-_/+]+")
_WORD_PIECE = re.compile(r"[A-Z]?[a-z]*[0-9]*")
_IDENTIFIER_PIECE = re.compile(r"[a-z]*(?:[A-Z][a-z]*)*[0-9]*")


def _pieces_match(run: str, piece: re.Pattern[str]) -> bool:
    # Lower-case words between separators are pieces of both kinds: no regex needed.
    letters = run.translate(_DROP_RUN_SEPARATORS)
    if letters.isalpha() and letters.islower():
        return True
    return all(piece.fullmatch(part) for part in _RUN_SEPARATORS.split(run))


_DROP_RUN_SEPARATORS = str.maketrans("", "", "-_/+")


_MAX_PLAIN_RUN = 256


def _alphabet_marks(alphabet: str) -> bytes:  # a bytes.translate table: alphabet -> 1, others -> 0
    return bytes(1 if chr(byte) in alphabet else 0 for byte in range(256))


_BASE64_MARKS = _alphabet_marks(string.ascii_letters + string.digits + "+/-_")
_BASE32_UPPER_MARKS = _alphabet_marks(string.ascii_uppercase + "234567")
_BASE32_LOWER_MARKS = _alphabet_marks(string.ascii_lowercase + "234567")
_HEX_MARKS = _alphabet_marks(string.hexdigits + ":- ")

# Each pattern starts with a literal character, which lets the regex engine skip ahead fast.


def unmask(value: str, limits: UnmaskLimits = DEFAULT_LIMITS) -> list[str]:
    """The value and every form it decodes to, case preserved, original first, no duplicates."""
    search = _Search(value, limits)
    cleaned = clean(value)
    first = value if cleaned == value else search.admit(cleaned)
    layer = [] if first is None else [first]
    layer += search.hidden_in(value)
    for _ in range(limits.max_depth):
        next_layer: list[str] = []
        for form in layer:
            for decoded in _decodings(form, search):
                next_layer += search.add(decoded)
                if search.full:
                    return search.forms
        layer = next_layer
    return search.forms


class _Search:
    """The state of one ``unmask`` call: forms found, and what is left of the budgets."""

    def __init__(self, value: str, limits: UnmaskLimits) -> None:
        self.limits = limits
        self.forms = [value]
        self.room = limits.max_total_chars(value)
        self.runs_left = limits.max_runs
        self._seen = {value}
        self._runs_seen: set[tuple[str, str]] = set()

    @property
    def full(self) -> bool:
        return self.room <= 0 or len(self.forms) >= self.limits.max_forms

    def add(self, text: str) -> list[str]:
        """Record ``text`` and its cleaned form; return the cleaned form if it is new (and what
        tag characters in ``text`` spell: see :meth:`hidden_in`).

        Only cleaned forms are decoded further: cleaning undoes disguises (fullwidth ``％４１``,
        a zero-width space inside a base64 run) that would stop a decoder.
        """
        admitted = self.admit(text)
        if self.full:
            return []
        cleaned = clean(text)
        form = admitted if cleaned == text else self.admit(cleaned)
        return [form, *self.hidden_in(text)] if form is not None else self.hidden_in(text)

    def hidden_in(self, text: str) -> list[str]:
        """What tag characters in ``text`` spell, cleaned, if that is new: cleaning deletes them
        as invisible, and a model reads them as ASCII ("ASCII smuggling")."""
        hidden = revealed(text)
        form = self.admit(clean(hidden)) if hidden is not None else None
        return [form] if form is not None else []

    def fresh_runs(self, kind: str, runs: Iterable[str]) -> Iterator[str]:
        """The ``runs`` not looked at before as ``kind``, while ``max_runs`` last."""
        for run in runs:
            if self.runs_left <= 0:
                return
            if (kind, run) not in self._runs_seen:
                self._runs_seen.add((kind, run))
                self.runs_left -= 1
                yield run

    def admit(self, text: str) -> str | None:
        """Record ``text``, cut to the budget; return it if it is new."""
        form = text[: self.room]
        if self.full or not form or form in self._seen:
            return None
        self._seen.add(form)
        self.forms.append(form)
        self.room -= len(form)
        return form


def _decodings(form: str, search: _Search) -> Iterator[str]:
    # Decoders shrink their input (decompression grows it, but only up to the room), so input
    # beyond the room left could only make output that would be cut away.
    source = form[: search.room]
    for decoder in _BINARY_DECODERS:
        yield from decoder(source, search)
    if not search.limits.text_decoders:
        return
    for text_decoder in TEXT_DECODERS:
        for decoded in text_decoder(source, search.limits.max_depth):
            if _worth_keeping(source, decoded):
                yield decoded
    if search.limits.disguises:
        yield from undisguised(source)


def _worth_keeping(source: str, decoded: str) -> bool:
    """A long text with a few escapes decodes to nearly itself, and its undecoded form already
    carries every piece between the escapes; only dense escapes make a form worth a look."""
    return len(source) <= _SHORT_TEXT or len(source) - len(decoded) >= len(source) // 20


# Binary encodings: runs of the alphabet, decoded to bytes, read back as text.


def _base64(form: str, search: _Search) -> Iterator[str]:
    marked = _marked(form, _BASE64_MARKS)
    if search.limits.short_runs:
        # Only a run of 8 to 11 characters standing alone can match: the regex runs there.
        for start, end in _run_spans(marked, _SHORT_RUN_MIN):
            run = form[start:end]
            if len(run) > _SHORT_RUN_MAX or (run.isalpha() and run.islower()):
                continue
            if short := _SHORT_BASE64.match(form, start, end + 3):  # "==" and one more
                yield from _short_reading(short.group(1), _base64_bytes)
    runs = (form[start:end] for start, end in _run_spans(marked, search.limits.min_run))
    for run in search.fresh_runs("base64", runs):
        plain = len(run) <= _MAX_PLAIN_RUN
        if plain and _pieces_match(run, _WORD_PIECE):
            continue
        offsets = 1 if plain and _pieces_match(run, _IDENTIFIER_PIECE) else 4
        yield from _run_readings(run, offsets, _base64_bytes, search.room, raw_deflate=True)


def _base32(form: str, search: _Search) -> Iterator[str]:
    # Upper- and lower-case runs are found apart, so a run glued to a word of the other case
    # starts aligned; only the aligned reading is tried, which keeps short runs cheap.
    for marks in (_BASE32_UPPER_MARKS, _BASE32_LOWER_MARKS):
        for run in search.fresh_runs("base32", _runs(form, marks, search.limits.min_run)):
            if reading := read_bytes(_base32_bytes(run), search.room, raw_deflate=False):
                yield reading[0]


def _short_reading(run: str, to_bytes: Callable[[str], bytes]) -> Iterator[str]:
    """A run shorter than ``min_run`` (the encoding of a 6-digit code is 8 characters): read
    aligned only, kept only if it mixes character kinds (not a word) and reads whole."""
    if run.isalpha() and (run.islower() or run.isupper() or run[1:].islower()):
        return
    text = to_bytes(run).decode("utf-8", "replace")
    if len(text) >= MIN_WHOLE and not UNREADABLE.search(text) and text.isprintable():
        yield text


def _hex(form: str, search: _Search) -> Iterator[str]:
    min_run = search.limits.min_run
    pairs = rf"(?:[0-9A-Fa-f]{{2}}[:\- ]){{{min_run // 2 - 1},}}[0-9A-Fa-f]{{2}}"
    hex_run = re.compile(rf"[0-9A-Fa-f]{{{min_run},}}|{pairs}")
    for candidate in search.fresh_runs("hex+", _runs(form, _HEX_MARKS, min_run)):
        # Separators alone (table rules, indentation) or doubled (word gaps) are no hex.
        if len(candidate) - sum(map(candidate.count, ":- ")) < min_run:
            continue
        pieces = candidate.split("  ") if "  " in candidate else [candidate]
        runs = (run.group() for piece in pieces for run in hex_run.finditer(piece))
        for run in search.fresh_runs("hex", runs):
            digits = run.translate(_HEX_SEPARATORS)
            yield from _run_readings(digits, 2, _hex_bytes, search.room, raw_deflate=False)


def _runs(form: str, marks: bytes, min_run: int) -> Iterator[str]:
    """Maximal runs of ``min_run`` or more characters that ``marks`` maps to 1."""
    return (form[start:end] for start, end in _run_spans(_marked(form, marks), min_run))


def _marked(form: str, marks: bytes) -> bytes:
    """One byte per character of ``form``: what ``marks`` maps it to (a character that is not
    ASCII to what it maps ``?`` to).

    bytes.translate and bytes.find scan ten times faster than a regex character class.
    """
    return form.encode("ascii", "replace").translate(marks)


def _run_spans(marked: bytes, min_run: int) -> Iterator[tuple[int, int]]:
    """Start and end of the maximal runs of ``min_run`` or more 1s in ``marked``."""
    seed = b"\x01" * min_run
    start = marked.find(seed)
    while start >= 0:
        end = marked.find(b"\x00", start + min_run)
        end = len(marked) if end < 0 else end
        yield start, end
        start = marked.find(seed, end)


def _base64_bytes(chars: str) -> bytes:
    chars = chars.translate(_URLSAFE_TO_STANDARD) if "-" in chars or "_" in chars else chars
    chars = chars[: len(chars) - (len(chars) % 4 == 1)]  # a lone last character is no whole byte
    try:
        return binascii.a2b_base64(chars + "=" * (-len(chars) % 4))
    except binascii.Error:
        return b""


def _base32_bytes(chars: str) -> bytes:
    byte_count, spare_bits = divmod(5 * len(chars), 8)  # min_run >= 4 makes this >= 2 bytes
    # int() reads base32hex digits in linear time (32 is a power of two); b32decode loops in
    # Python, far slower on megabyte runs.
    number = int(chars.upper().translate(_BASE32_TO_BASE32HEX), 32)
    return (number >> spare_bits).to_bytes(byte_count, "big")


def _hex_bytes(digits: str) -> bytes:
    return bytes.fromhex(digits[: len(digits) // 2 * 2])


def _run_readings(
    run: str, offsets: int, to_bytes: Callable[[str], bytes], room: int, *, raw_deflate: bool
) -> Iterator[str]:
    """Readings of a run from its first ``offsets`` start offsets, until one is surely right.

    A run glued to a prefix of its alphabet (``keySGVsbG8...``) starts misaligned.
    """
    for offset in range(offsets):
        data = to_bytes(run[offset:])
        # Raw deflate has no header to recognise it by: only the aligned reading tries it.
        reading = read_bytes(data, room, raw_deflate=raw_deflate and offset == 0)
        if reading is not None:
            yield reading[0]
            if reading[1]:
                return


_BINARY_DECODERS = (_base64, _hex, _base32)
_SHORT_TEXT = 1024
