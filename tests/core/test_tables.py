"""The cells of the tables a text result prints are its record values (see records)."""

from __future__ import annotations

import pytest

from cyclops.core.results import to_tool_result
from cyclops.core.tables import table_cells

MARKDOWN = """<database title="Acquisitions">
| Author | Title | Offer (USD) |
|---|:---:|---|
| Gia Ferro | Untitled memoir | 40000 |
</database>"""


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        (MARKDOWN, ["Author", "Title", "Offer (USD)", "Gia Ferro", "Untitled memoir", "40000"]),
        ("name,team,salary\nAda Lovelace,Data,182000\nAlan Kay,Design,171500",
         ["Ada Lovelace", "Data", "182000", "Alan Kay", "Design", "171500"]),
        ("sku\tunit cost\tmoq\nSW-DUV-Q\t34.60\t150", ["SW-DUV-Q", "34.60", "150"]),
        # a quoted field holds its comma
        ('supplier,country,terms\n"Abreu, Lda",Portugal,30 days',
         ["Abreu, Lda", "Portugal", "30 days"]),
        # a row of another width is no row of the table
        ("a,b,c\n1,2\n3,4,5", ["3", "4", "5"]),
        # prose with commas, a two-column list, a lone pipe: no table
        ("Hello, Dana, thanks for the update.\nSee you Monday, at 9.", []),
        ("key,value\nregion,eu", []),
        ("Use a | b to pipe.", []),
    ],
)  # fmt: skip
def test_a_texts_table_cells_are_its_markdown_and_delimited_rows_cells(
    text: str, cells: list[str]
) -> None:
    assert list(table_cells(text)) == cells


def test_a_text_results_table_cells_and_key_value_lines_are_its_values() -> None:
    text = "Contents of Farm codes:\nShop door: 4826\nFuel pump PIN: 7731\n" + MARKDOWN
    result = to_tool_result(text, is_opaque_key=lambda key: key == "id")
    assert set(result.values[0]) >= {"4826", "7731", "Gia Ferro", "Untitled memoir", "40000"}


def test_a_text_result_with_no_table_or_key_value_line_has_no_values() -> None:
    assert to_tool_result("Just a sentence, nothing more.", lambda key: False).values == ()
