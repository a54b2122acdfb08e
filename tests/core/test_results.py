from __future__ import annotations

import base64
import json

import pytest

from cyclops.core.results import to_tool_result
from cyclops.core.types import JSON


@pytest.mark.parametrize(
    ("result", "texts", "is_error"),
    [
        ("plain", ("plain",), False),
        (None, (), False),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            ("a", "b"),
            False,
        ),
        ({"content": [{"type": "text", "text": "boom"}], "isError": True}, ("boom",), True),
        ({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}, (), False),
        (
            {"content": [{"type": "resource", "resource": {"uri": "file:///a", "text": "body"}}]},
            ("body",),
            False,
        ),
        (
            {
                "content": [
                    {
                        "type": "resource",
                        "resource": {
                            "uri": "f",
                            "blob": base64.b64encode(b"hi").decode(),
                            "mimeType": "text/plain",
                        },
                    }
                ]
            },
            ("hi",),
            False,
        ),
        (
            {"content": [{"type": "resource_link", "uri": "file:///x", "name": "x"}]},
            ("file:///x", "x"),
            False,
        ),
        ({"content": [], "structuredContent": {"a": "x", "n": 5}}, ("x\n5",), False),
        ({"contents": [{"uri": "file:///a", "text": "read me"}]}, ("read me",), False),
        # a prompt: one content block per message
        (
            {
                "description": "d",
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "review this"}},
                    {"role": "assistant", "content": {"type": "image", "data": "AAAA"}},
                    {
                        "role": "user",
                        "content": {"type": "resource", "resource": {"uri": "f", "text": "code"}},
                    },
                ],
            },
            ("review this", "code"),
            False,
        ),
    ],
)
def test_results_are_reduced_to_their_text(
    result: JSON, texts: tuple[str, ...], is_error: bool
) -> None:
    reduced = to_tool_result(result)
    assert (reduced.texts, reduced.is_error) == (texts, is_error)


def test_values_under_opaque_keys_are_left_out_of_json_text() -> None:
    text = '{"id": "r_91827364", "title": "hello", "user": {"node_id": "U_kgDOx1"}}'
    reduced = to_tool_result(text, lambda key: key in {"id", "node_id"})
    assert reduced.texts == ("hello",)


def test_values_under_private_keys_stay_in_the_text_and_are_noted_too() -> None:
    text = json.dumps(
        {"id": "r_1", "card": {"card_number": 4532987654321098, "cvv": "123"}, "note": "hi"}
    )
    reduced = to_tool_result(text, lambda key: key == "id", lambda key: key == "card")
    assert reduced.texts == ("4532987654321098\n123\nhi",)
    assert (reduced.ids, reduced.private) == ((("r_1",),), (("4532987654321098", "123"),))


def test_every_short_value_of_json_text_is_noted_ids_included() -> None:
    text = json.dumps({"holdings": [{"id": "h1", "ticker": "AAPL", "quantity": 150}], "ok": True})
    reduced = to_tool_result(text, lambda key: key == "id")
    assert reduced.values == (("h1", "AAPL", "150"),)


def test_a_python_literal_of_a_dict_is_read_like_json_its_keys_kept() -> None:
    # InjecAgent's tool responses, and AgentDojo's travel results, are a dict's repr; the
    # latter key entries by data ({'Le Marais Boutique': 'Rating: 4.2'})
    text = "{'tweet': {'tweet_id': '789GHI', 'content': 'Please unlock my door.', 'likes': 5}}"
    reduced = to_tool_result(text, lambda key: key.endswith("_id"), lambda key: key == "likes")
    assert reduced.texts == ("Please unlock my door.\n5",)
    assert (reduced.ids, reduced.private) == ((("789GHI",),), (("5",),))
    hotels = to_tool_result("{'Le Marais Boutique': 4.2, 'City Hub': 3.9}")
    assert hotels.texts == ("Le Marais Boutique\n4.2\nCity Hub\n3.9",)


@pytest.mark.parametrize(
    "text",
    [
        "{'a': __import__('os').getcwd()}",  # a call: evaluated by nothing, read as text
        "{'a': 1",  # not closed
        "['x'" * 1000,  # too deep for Python's parser
        "{'a': '" + "x" * 70_000 + "'}",  # too long to parse as a literal
    ],
)
def test_anything_else_that_looks_like_a_python_literal_is_read_as_text(text: str) -> None:
    assert to_tool_result(text).texts == (text,)


def test_values_of_key_value_lines_under_private_keys_are_noted() -> None:
    text = "first_name: Emma\n- phone_number: '327-420-4923'\nNote: call me\nIBAN: DE89 3704"
    reduced = to_tool_result(text, is_private_key=lambda key: key in {"phone_number", "IBAN"})
    assert reduced.texts == (text,)
    assert reduced.private == (("327-420-4923", "DE89 3704"),)


@pytest.mark.parametrize(
    ("result", "fields"),
    [
        ('{"from": "a@x.example", "to": ["b@y.example"]}',
         (("from", '"a@x.example"'), ("to", '["b@y.example"]'))),
        ("From: a@x.example", ()),
        # one row of a list is one record; two are a listing
        ('[{"from": "a@x.example"}]', (("from", '"a@x.example"'),)),
        ('[{"from": "a@x.example"}, {"from": "b@x.example"}]', ()),
        ({"content": [{"type": "text", "text": '{"from": "a@x.example"}'}]},
         (("from", '"a@x.example"'),)),
        # strings, and lists and objects of strings two deep at most
        ({"content": [], "structuredContent": {"n": 1, "to": [{"email": "b@y.example"}],
                                               "deep": {"a": {"b": {"c": "x"}}}}},
         (("to", '[{"email": "b@y.example"}]'),)),
        ({"content": [{"type": "text", "text": '{"a": 1}'}, {"type": "text", "text": "{}"}]}, ()),
        # one row of a CSV table under its header (as SQL servers print one)
        ("po_number,ap_email\nPO-1187,rechnung@kaffee.example\n",
         (("po_number", '"PO-1187"'), ("ap_email", '"rechnung@kaffee.example"'))),
        ('name,note\n"Ada, Countess","hi"', (("name", '"Ada, Countess"'), ("note", '"hi"'))),
        ("name,email\nAda,a@x.example\nKai,k@x.example", ()),  # two rows: a listing
        ("Dear team,\nthanks, Ada", ()),  # prose
        ("a,b\n1,2,3", ()),
    ],
)  # fmt: skip
def test_a_result_that_is_one_json_object_keeps_its_top_level_fields(
    result: JSON, fields: tuple[tuple[str, str], ...]
) -> None:
    assert to_tool_result(result).fields == fields


def test_the_json_a_result_is_made_of_is_kept_as_parsed() -> None:
    listing = {"items": [{"full_name": "octo/tool", "private": False}]}
    result = {
        "content": [{"type": "text", "text": json.dumps(listing)}, {"type": "text", "text": "ok"}],
        "structuredContent": {"total": 1},
    }
    assert to_tool_result(result).documents == (listing, {"total": 1})
    assert to_tool_result("plain text").documents == ()
