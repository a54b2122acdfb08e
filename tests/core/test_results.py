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
        ('[{"from": "a@x.example"}]', ()),
        ({"content": [{"type": "text", "text": '{"from": "a@x.example"}'}]},
         (("from", '"a@x.example"'),)),
        # strings, and lists and objects of strings two deep at most
        ({"content": [], "structuredContent": {"n": 1, "to": [{"email": "b@y.example"}],
                                               "deep": {"a": {"b": {"c": "x"}}}}},
         (("to", '[{"email": "b@y.example"}]'),)),
        ({"content": [{"type": "text", "text": '{"a": 1}'}, {"type": "text", "text": "{}"}]}, ()),
    ],
)  # fmt: skip
def test_a_result_that_is_one_json_object_keeps_its_top_level_fields(
    result: JSON, fields: tuple[tuple[str, str], ...]
) -> None:
    assert to_tool_result(result).fields == fields
