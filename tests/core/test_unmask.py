"""Decoded forms of a value: an encoded secret is found, hostile input stays cheap."""

from __future__ import annotations

import base64
import gzip
import random
import string
import time
import zlib
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cyclops.core.canon import canonical
from cyclops.core.unmask import DEFAULT_LIMITS, SINK_LIMITS, UnmaskLimits, unmask
from cyclops.testing import DISGUISES

SECRET = "sk_live_9fQ2xR7mB4kT1wZ8"
ZW = "\u200b"
FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})
MEGABYTE = 1_000_000
HANG_GUARD_SECONDS = 5.0

Encoder = Callable[[str], str]


def reveals(value: str, secret: str) -> bool:
    needle = canonical(secret)
    return any(needle in canonical(form) for form in unmask(value))


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64_bytes(data: bytes) -> str:
    return base64.b64encode(data).decode()


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def percent(text: str) -> str:
    return "".join(f"%{byte:02X}" for byte in text.encode())


def quoted_printable(text: str) -> str:
    escaped = "".join(f"={byte:02X}" for byte in text.encode())
    return "=\n".join(escaped[i : i + 60] for i in range(0, len(escaped), 60))


def json_escapes(text: str) -> str:
    units = text.encode("utf-16-be")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def tags(text: str) -> str:
    """``text``'s printable ASCII in Unicode tag characters: invisible, and read as ASCII
    ("ASCII smuggling")."""
    return "".join(chr(0xE0000 + ord(c)) if " " <= c <= "~" else c for c in text)


def hex_with(separator: str) -> Encoder:
    return lambda text: text.encode().hex(separator)


ENCODINGS: dict[str, Encoder] = {
    "base64": b64,
    "base64 url-safe": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "base64 unpadded": lambda s: b64(s).rstrip("="),
    "base64 in a query string": lambda s: f"data={b64(s)}&x=1",
    "base64 bearer token": lambda s: f"Authorization: Bearer {b64(s)}",
    "base64 in JSON": lambda s: f'{{"blob": "{b64(s)}", "n": 1}}',
    "base64 glued to a word": lambda s: "key" + b64(s).rstrip("="),
    "base64 glued to a longer word": lambda s: "apikey" + b64(s).rstrip("="),
    "base32": lambda s: base64.b32encode(s.encode()).decode(),
    "base32 lower case": lambda s: base64.b32encode(s.encode()).decode().lower(),
    "base32 unpadded": lambda s: base64.b32encode(s.encode()).decode().rstrip("="),
    "hex": lambda s: s.encode().hex(),
    "hex upper case": lambda s: s.encode().hex().upper(),
    "hex with colons": hex_with(":"),
    "hex with dashes": hex_with("-"),
    "hex with spaces": hex_with(" "),
    "hex after 0x": lambda s: "0x" + s.encode().hex(),
    "hex glued to a hex digit": lambda s: "c" + s.encode().hex(),
    "percent": percent,
    "percent three times": lambda s: percent(percent(percent(s))),
    "percent with plus for space": lambda s: "q=" + percent(s).replace("%5F", "_") + "+end",
    "HTML decimal entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "HTML hex entities": lambda s: "".join(f"&#x{ord(c):x};" for c in s),
    "JSON unicode escapes": json_escapes,
    "C hex escapes": lambda s: "".join(f"\\x{byte:02x}" for byte in s.encode()),
    "quoted-printable": quoted_printable,
    "gzip behind base64": lambda s: b64_bytes(gzip.compress(s.encode())),
    "zlib behind base64": lambda s: b64_bytes(zlib.compress(s.encode())),
    "raw deflate behind base64": lambda s: b64_bytes(raw_deflate(s.encode())),
    "zero-width characters": ZW.join,
    "fullwidth": lambda s: s.translate(FULLWIDTH),
    "upper case": str.upper,
    "fullwidth base64": lambda s: b64(s).translate(FULLWIDTH),
    "zero-width inside base64": lambda s: ZW.join(b64(s)),
    "base64 of hex": lambda s: b64(s.encode().hex()),
    "hex of base64 of percent": lambda s: b64(percent(s)).encode().hex(),
    "Unicode tag characters": tags,
    "tag characters after visible text": lambda s: "Thanks, all done!" + tags(s),
    "base64 of tag characters": lambda s: b64(tags(s)),
    "base64 of UTF-16LE": lambda s: b64_bytes(s.encode("utf-16-le")),
    "base64 of UTF-16 with its byte order mark": lambda s: b64_bytes(s.encode("utf-16")),
    "hex of UTF-16BE": lambda s: s.encode("utf-16-be").hex(),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_an_encoded_secret_is_revealed(encoding: str) -> None:
    assert reveals(ENCODINGS[encoding](SECRET), SECRET)


@pytest.mark.parametrize(
    "secret", ["päss-wörd-ünïcode", "emoji 😀 in a secret", "日本語のひみつの言葉"], ids=str
)
@pytest.mark.parametrize("encoding", ["base64", "JSON unicode escapes", "percent", "hex"])
def test_non_ascii_secrets_survive_the_byte_encodings(secret: str, encoding: str) -> None:
    assert reveals(ENCODINGS[encoding](secret), secret)


def test_a_json_surrogate_pair_decodes_to_one_character() -> None:
    assert "key😀value" in unmask("key\\ud83d\\ude00value")


def test_the_original_comes_first_and_case_is_kept() -> None:
    forms = unmask(b64("MixedCase-Secret"))
    assert forms[0] == b64("MixedCase-Secret")
    assert "MixedCase-Secret" in forms


# -- properties ---------------------------------------------------------------------------------

SECRET_ALPHABET = "".join(c for c in string.printable if not c.isspace())

CHAIN_ENCODERS: dict[str, Encoder] = {
    "base64": b64,
    "base64 url-safe unpadded": lambda s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("="),
    "base32": ENCODINGS["base32"],
    "base32 lower unpadded": lambda s: base64.b32encode(s.encode()).decode().lower().rstrip("="),
    "hex": ENCODINGS["hex"],
    "hex with colons": ENCODINGS["hex with colons"],
    "percent": percent,
    "HTML entities": ENCODINGS["HTML decimal entities"],
    "JSON unicode escapes": json_escapes,
    "quoted-printable": quoted_printable,
    "gzip behind base64": ENCODINGS["gzip behind base64"],
    "zlib behind base64": ENCODINGS["zlib behind base64"],
    "raw deflate behind base64": ENCODINGS["raw deflate behind base64"],
    "zero-width characters": ZW.join,
    "fullwidth": ENCODINGS["fullwidth"],
    "Unicode tag characters": tags,
}
CASE_CHANGES: dict[str, Encoder] = {
    "same": str,
    "upper": str.upper,
    "lower": str.lower,
    "swapped": str.swapcase,
}


# A secret worth linking is distinctive; a repetitive one (``000000000000``) compresses to fewer
# bytes than an encoded run needs to be looked at.
SECRETS = st.text(alphabet=SECRET_ALPHABET, min_size=12, max_size=64).filter(
    lambda s: len(set(s)) >= 8
)


@settings(max_examples=300, deadline=None)
@given(
    secret=SECRETS,
    # Changing case would corrupt base64 and friends, so it applies to the secret itself.
    case_change=st.sampled_from(list(CASE_CHANGES)),
    chain=st.lists(st.sampled_from(list(CHAIN_ENCODERS)), min_size=1, max_size=3),
)
def test_a_secret_behind_a_chain_of_encodings_is_revealed(
    secret: str, case_change: str, chain: list[str]
) -> None:
    value = CASE_CHANGES[case_change](secret)
    for encoding in chain:
        value = CHAIN_ENCODERS[encoding](value)
    assert reveals(value, secret)


@settings(max_examples=200, deadline=None)
@given(secret=SECRETS, codec=st.sampled_from(["utf-16-le", "utf-16-be", "utf-16"]))
def test_an_ascii_secret_written_as_utf16_and_base64_encoded_is_revealed(
    secret: str, codec: str
) -> None:
    assert reveals(b64_bytes(secret.encode(codec)), secret)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_unmask_returns_the_value_first_and_no_duplicates_for_any_text(value: str) -> None:
    forms = unmask(value)
    assert forms[0] == value
    assert len(forms) == len(set(forms)) <= DEFAULT_LIMITS.max_forms
    assert sum(map(len, forms[1:])) <= DEFAULT_LIMITS.max_total_chars(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.one_of(
        st.text(alphabet=string.ascii_letters + string.digits + "+/=%&#;\\xu:- ", min_size=1),
        st.builds(lambda s: b64(b64(s)), st.text()),
    ),
    max_forms=st.integers(1, 6),
    max_depth=st.integers(0, 3),
    floor=st.integers(0, 64),
)
def test_unmask_respects_small_limits(
    value: str, max_forms: int, max_depth: int, floor: int
) -> None:
    limits = UnmaskLimits(
        max_depth=max_depth,
        max_forms=max_forms,
        total_chars_floor=floor,
        total_chars_per_value_char=0,
    )
    forms = unmask(value, limits)
    assert forms[0] == value
    assert len(forms) == len(set(forms)) <= max_forms
    assert sum(map(len, forms[1:])) <= floor


def test_a_lone_surrogate_does_not_break_decoding() -> None:
    value = "\ud800" + b64(SECRET) + "\\udc00 %41 =41 &amp;"
    assert reveals(value, SECRET)


@pytest.mark.parametrize(
    "limits",
    [
        {"max_forms": 0},
        {"min_run": 3},
        {"max_depth": -1},
        {"max_runs": -1},
        {"total_chars_floor": -1},
    ],
)
def test_nonsense_limits_are_refused(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="UnmaskLimits"):
        UnmaskLimits(**limits)


# -- budgets ------------------------------------------------------------------------------------


def nested_base64(size: int) -> str:
    value = b64(SECRET)
    while len(value) < size:
        value = b64(value)
    return value


def zlib_bomb_behind_base64() -> str:
    compressor = zlib.compressobj(9)
    chunk = b"\0" * MEGABYTE
    bomb = b"".join(compressor.compress(chunk) for _ in range(100)) + compressor.flush()
    return b64_bytes(bomb)


def random_text(size: int) -> str:
    return random.Random(7).randbytes(size).decode("latin-1")


def distinct_short_runs(size: int) -> str:
    rng = random.Random(3)
    return " ".join(b64_bytes(rng.randbytes(9)) for _ in range(size // 13))


HOSTILE: dict[str, Callable[[], str]] = {
    "nested base64": lambda: nested_base64(MEGABYTE),
    "zlib bomb of 100 MB behind base64": zlib_bomb_behind_base64,
    "percent-encoded percent signs": lambda: "%25" * (MEGABYTE // 3),
    "percent layers": lambda: "%" + "25" * (MEGABYTE // 2),
    "random bytes as text": lambda: random_text(MEGABYTE),
    "hex": lambda: random.Random(1).randbytes(MEGABYTE // 2).hex(),
    "one letter": lambda: "A" * MEGABYTE,
    "one short base64-like run repeated": lambda: "aB3dE5gH7jK9 " * (MEGABYTE // 13),
    "distinct short base64 runs": lambda: distinct_short_runs(MEGABYTE),
    "backslashes": lambda: "\\" * MEGABYTE,
    "nested HTML entities": lambda: "&amp;amp;amp;" * (MEGABYTE // 13),
    "fullwidth": lambda: "Ａ" * MEGABYTE,
    "zero-width characters": lambda: ZW * MEGABYTE,
}


@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_hostile_input_finishes_quickly_within_budget(hostile: str) -> None:
    value = HOSTILE[hostile]()
    started = time.perf_counter()
    forms = unmask(value)
    elapsed = time.perf_counter() - started
    assert elapsed < HANG_GUARD_SECONDS
    assert forms[0] == value
    assert sum(map(len, forms[1:])) <= DEFAULT_LIMITS.max_total_chars(value)


def test_the_secret_behind_a_gzip_bomb_prefix_is_still_read() -> None:
    padding = "x" * 200_000
    value = b64_bytes(gzip.compress(f"{SECRET} {padding}".encode() * 50))
    assert reveals(value, SECRET)


def test_runs_beyond_the_run_budget_are_left_undecoded() -> None:
    value = " ".join([b64(f"decoy number {i:04d}") for i in range(20)] + [b64(SECRET)])
    assert SECRET in unmask(value)
    assert SECRET not in unmask(value, UnmaskLimits(max_runs=10))


# -- false positives ----------------------------------------------------------------------------

ORDINARY = [
    "Hi team, the quarterly planning meeting moves to Thursday.",
    "Please review the internationalization roadmap before the implementation starts.",
    "Notwithstanding several reservations, the committee approved the proposal unanimously.",
    "The file lives in /usr/local/share/applications/defaults.list on most systems.",
    "Order 1700000000000 shipped on 2024-05-17 at 10:42 to Springfield, IL 62704.",
    "Call getElementById and XMLHttpRequest from the browser console to debug it.",
    "Total: 10 20 30 40 50 60 70 80 apples, pears & plums = 3 baskets.",
    "yes",
    "no",
    "maybe",
    "ok",
    "hello",
    "password",
    "administrator",
    "configuration",
    "I/O objects\n===========\n\nA file object represents an open file.",  # a heading
    "Section\n=======\nsee FOO=12 below",
    "The with statement\n********************\n\nIt wraps a block.",  # rules drawn with one
    "Total\n* * * * * * * * * *\n====================\nsee below",  # character
    "-=-=-=-=-=-=-=-=-=-=-= notes -=-=-=-=-=-=-=-=-=-=-=",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_decodes_to_nothing(text: str) -> None:
    assert unmask(text) == [text]


# -- disguises (what a sink sends) -----------------------------------------------------------------


def reveals_at_a_sink(value: str, secret: str) -> bool:
    needle = canonical(secret)
    return any(needle in canonical(form) for form in unmask(value, SINK_LIMITS))


@pytest.mark.parametrize("disguise", list(DISGUISES))
def test_a_disguised_secret_is_revealed_at_a_sink(disguise: str) -> None:
    assert reveals_at_a_sink(f"as asked: {DISGUISES[disguise](SECRET)}", SECRET)
    assert not reveals(f"as asked: {DISGUISES[disguise](SECRET)}", SECRET)  # not elsewhere


KEY_ALPHABET = string.ascii_letters + string.digits + "_-"
KEYS = st.text(alphabet=KEY_ALPHABET, min_size=12, max_size=48).filter(
    lambda s: len(set(s)) >= 8 and any(c.isdigit() for c in s) and any(c.isalpha() for c in s)
)


@settings(max_examples=200, deadline=None)
@given(key=KEYS, disguise=st.sampled_from(list(DISGUISES)))
@example(key="00000123B8AD", disguise="base85")  # its Base85 holds no symbol: FfcGMFflSSLO4N0
def test_any_key_is_revealed_whatever_its_disguise(key: str, disguise: str) -> None:
    assert reveals_at_a_sink(DISGUISES[disguise](key), key)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_at_a_sink_has_no_disguise_to_take_off(text: str) -> None:
    assert unmask(text, SINK_LIMITS) == [text]


def test_a_long_value_is_not_undisguised() -> None:
    value = "x " * 600 + SECRET[::-1]
    assert not reveals_at_a_sink(value, SECRET)
