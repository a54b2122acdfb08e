"""The text encodings unmasking undoes: percent-encoding (in layers), HTML entities, JSON and C
escapes, quoted-printable.

Each applies only where its escape syntax appears. A run of consecutive escapes is replaced at
once, so multi-byte sequences (UTF-8 behind %XX, UTF-16 surrogate pairs behind ``\\u``) decode
together and dense escapes cost one call per run, not per escape. Every decoder takes a form
and the most layers to peel, and yields what it decoded (nothing if the form holds no escape).
"""

from __future__ import annotations

import binascii
import html
import re
from collections.abc import Callable, Iterator

__all__ = ["TEXT_DECODERS"]

_PERCENT_RUN = re.compile(r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*")
# In quoted-printable a literal "=" is itself escaped (=3D), so no escape follows an "=": a run
# of them (a heading's "=====" underline) is text, not soft line breaks.
_QUOTED_PRINTABLE_ESCAPE = re.compile(r"(?<!=)=(?:[0-9A-Fa-f]{2}|\r?\n)")
_QUOTED_PRINTABLE_CONTROL = re.compile(r"=(?:0[0-8BbCcEeFf]|1[0-9A-Fa-f]|7[Ff])")
_ESCAPE_RUN = re.compile(
    r"\\(?:u[0-9A-Fa-f]{4}(?:\\u[0-9A-Fa-f]{4})*|U[0-9A-Fa-f]{8}(?:\\U[0-9A-Fa-f]{8})*"
    r"|x[0-9A-Fa-f]{2}(?:\\x[0-9A-Fa-f]{2})*|[\"'\\/bfnrt](?:\\[\"'\\/bfnrt])*)"
)
# Escaped characters not listed here stand for themselves (\\, \", \', \/).
_SIMPLE_ESCAPES = str.maketrans("bfnrt", "\b\f\n\r\t")


def _percent(form: str, max_depth: int) -> Iterator[str]:
    if not _PERCENT_RUN.search(form):
        return
    if "+" in form:
        yield _unquote(form.replace("+", " "))
    layer = form
    for _ in range(max_depth):
        layer = _unquote(layer)
        yield layer
        if not _PERCENT_RUN.search(layer):
            return


def _unquote(text: str) -> str:
    return _PERCENT_RUN.sub(
        lambda run: bytes.fromhex(run.group().replace("%", "")).decode("utf-8", "replace"), text
    )


def _html_entities(form: str, max_depth: int) -> Iterator[str]:
    if "&" in form and (decoded := html.unescape(form)) != form:
        yield decoded


def _escapes(form: str, max_depth: int) -> Iterator[str]:
    if "\\" in form and (decoded := _ESCAPE_RUN.sub(_escape_run_text, form)) != form:
        yield decoded


def _escape_run_text(run: re.Match[str]) -> str:
    text = run.group()
    kind = text[1]
    if kind == "u":
        return bytes.fromhex(text.replace("\\u", "")).decode("utf-16-be", "replace")
    if kind == "U":
        return bytes.fromhex(text.replace("\\U", "")).decode("utf-32-be", "replace")
    if kind == "x":
        return _utf8_or_latin1(bytes.fromhex(text.replace("\\x", "")))
    return text[1::2].translate(_SIMPLE_ESCAPES)


def _utf8_or_latin1(data: bytes) -> str:
    # C-style \x escapes usually spell UTF-8 bytes; JavaScript-style ones spell code points.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _quoted_printable(form: str, max_depth: int) -> Iterator[str]:
    # `x=12` in a query string is no quoted-printable: real QP of text never decodes to control
    # characters or to bytes that are not UTF-8.
    if not _QUOTED_PRINTABLE_ESCAPE.search(form) or _QUOTED_PRINTABLE_CONTROL.search(form):
        return
    try:
        decoded = binascii.a2b_qp(form.encode("utf-8", "surrogatepass")).decode("utf-8")
    except UnicodeDecodeError:
        return
    if decoded != form:
        yield decoded


TEXT_DECODERS: tuple[Callable[[str, int], Iterator[str]], ...] = (
    _percent,
    _html_entities,
    _escapes,
    _quoted_printable,
)
