"""The cells of the tables a text result prints: a markdown table (``| Gia Ferro | 40000 |``),
or CSV or TSV rows under a header, as database and spreadsheet servers print them.

They are a private result's record values when it is text rather than JSON (see
:attr:`~cyclops.core.types.ToolResult.values` and :mod:`cyclops.core.records`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

__all__ = ["table_cells"]

_MAX_LINES = 2048
_SEPARATOR_CELL = re.compile(r":?-{2,}:?")
_HEADER_FIELD = re.compile(r"[\w ()/#%-]{1,40}")  # no sentence: no full stop


def table_cells(text: str) -> Iterator[str]:
    """The cells of every row of the markdown tables in ``text`` (a header's too: what a
    table is about is data as well; not the separator row), and of its CSV or TSV rows when its
    first line is a header of three short fields or more (one value per cell, stripped)."""
    lines = text.splitlines()[:_MAX_LINES]
    for line in lines:
        row = line.strip()
        if row.startswith("|") and row.count("|") >= 3:
            cells = (cell.strip() for cell in row.strip("|").split("|"))
            yield from (c for c in cells if c and not _SEPARATOR_CELL.fullmatch(c))
    if len(lines) >= 2:
        yield from _delimited(lines)


def _delimited(lines: list[str]) -> Iterator[str]:
    """CSV or TSV rows with as many fields as a header of three or more short names."""
    header = lines[0].strip()
    delimiter = "\t" if "\t" in header else ","
    names = header.split(delimiter)
    if len(names) < 3 or not all(_HEADER_FIELD.fullmatch(n.strip()) for n in names):
        return
    for row in csv.reader(lines[1:], delimiter=delimiter):
        if len(row) == len(names):
            yield from (cell.strip() for cell in row if cell.strip())
