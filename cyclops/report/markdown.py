"""Markdown pieces for generated references: code spans that survive any text, table rows."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["cell", "code", "codes", "number", "numbered", "table"]


def code(text: str, *, in_table: bool = False) -> str:
    """``text`` as a code span: a fence longer than any run of backticks inside it, and ``|``
    escaped in a table cell (GitHub Markdown splits cells on it even inside code)."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    span = f"{fence}{pad}{text}{pad}{fence}"
    return span.replace("|", "\\|") if in_table else span


def codes(items: Iterable[str], *, in_table: bool = False, empty: str = "none") -> str:
    spans = [code(item, in_table=in_table) for item in items]
    return ", ".join(spans) if spans else empty


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def numbered(items: Iterable[str]) -> list[str]:
    """A numbered list of ``items`` as code, or "None."."""
    found = [f"{i}. {code(item)}" for i, item in enumerate(items, 1)]
    return found or ["None."]
