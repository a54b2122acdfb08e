"""What decoded bytes say as text: UTF-8, UTF-16, a compressed stream inflated, or the readable
segments of bytes that are partly garbage (see :func:`read_bytes`)."""

from __future__ import annotations

import re
import zlib

__all__ = ["MIN_WHOLE", "UNREADABLE", "read_bytes"]

# Characters that mark decoded bytes as binary: controls other than tab/newline/return, and the
# replacement character that stands for bytes that are not UTF-8.
_UNREADABLE_CLASS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd"
UNREADABLE = re.compile(f"[{_UNREADABLE_CLASS}]")
_MIN_SEGMENT = 8
# A reading that is readable from end to end is kept when shorter: a 6-digit code is worth
# finding, and random bytes rarely decode to readable text throughout.
MIN_WHOLE = 4
_READABLE_SEGMENT = re.compile(f"[^{_UNREADABLE_CLASS}]{{{_MIN_SEGMENT},}}")

# zlib window bits for the streams recognised by their first two bytes: gzip, then zlib.
_HEADER_WBITS = {b"\x1f\x8b": 16 + zlib.MAX_WBITS} | {
    b"\x78" + level: zlib.MAX_WBITS for level in (b"\x01", b"\x5e", b"\x9c", b"\xda")
}
_RAW_DEFLATE_WBITS = -zlib.MAX_WBITS


def read_bytes(data: bytes, room: int, *, raw_deflate: bool) -> tuple[str, bool] | None:
    """The text decoded bytes carry, and whether the decoding is surely right.

    Readable UTF-8 is taken whole, compressed bytes are inflated; of other bytes only readable
    segments are kept, as bytes decoded from a misaligned or glued run are partly garbage.
    """
    text = data.decode("utf-8", "replace")
    if not UNREADABLE.search(text):
        return (text, True) if len(text) >= MIN_WHOLE else None
    if (wide := _utf16(data)) is not None:
        return wide, True
    inflated = _inflate(data, room, raw_deflate=raw_deflate)
    if inflated is not None and (readable := _readable(inflated.decode("utf-8", "replace"))):
        return readable, True
    return (segments, False) if (segments := _readable(text)) else None


def _utf16(data: bytes) -> str | None:
    """``data`` read as UTF-16 text (PowerShell's ``-EncodedCommand``, .NET's and Windows'
    strings): every other byte of ASCII text is zero, here at least every other one of those
    (random bytes hardly ever). None if it is not that."""
    half = len(data) // 2
    if half < MIN_WHOLE or len(data) % 2 or 4 * data.count(0) < len(data):
        return None  # (random bytes, as a misaligned base64 run gives, have few zeros)
    for zeros, codec in ((data[1::2], "utf-16-le"), (data[0::2], "utf-16-be")):
        if 2 * zeros.count(0) >= half:
            text = data.decode(codec, "replace").lstrip("\ufeff")
            return text if not UNREADABLE.search(text) else None
    return None


def _readable(text: str) -> str:
    """``text`` if it is all readable, else its readable segments joined by spaces."""
    return " ".join(_READABLE_SEGMENT.findall(text)) if UNREADABLE.search(text) else text


def _inflate(data: bytes, room: int, *, raw_deflate: bool) -> bytes | None:
    """``data`` decompressed to at most ``room`` bytes, or None if it is no compressed stream.

    Raw deflate has no header, so its stream must end or fill the room: random bytes often
    start like a deflate block and inflate to a few bytes of noise before they fail.
    """
    wbits = _HEADER_WBITS.get(data[:2])
    if wbits is None:
        if not raw_deflate or data[0] & 0b110 == 0b110:  # block type 3 is invalid
            return None
        wbits = _RAW_DEFLATE_WBITS
    inflater = zlib.decompressobj(wbits)
    try:
        inflated = inflater.decompress(data, max(room, 1))
    except zlib.error:
        return None
    if wbits != _RAW_DEFLATE_WBITS:  # a gzip or zlib header: surely compressed
        return inflated if len(inflated) >= MIN_WHOLE else None
    complete = inflater.eof or len(inflated) >= room
    return inflated if complete and len(inflated) >= _MIN_SEGMENT else None
