"""The host's stdin reader: lines come out exactly as the host wrote them."""

from __future__ import annotations

import os
import threading

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import INVALID_REQUEST

from cyclops.proxy.hoststdin import host_stdin, invalid_request_error

pytestmark = pytest.mark.anyio

_line_text = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n")
_lines = st.lists(st.text(_line_text, max_size=300), max_size=20)


async def _read_all(payload: bytes) -> list[str]:
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with anyio.fail_after(10):
            return [line async for line in host_stdin(read_fd)]
    finally:
        writer.join()
        os.close(read_fd)


@settings(max_examples=60, deadline=None)
@given(lines=_lines, tail=st.booleans())
def test_every_line_comes_out_whole_and_in_order(lines: list[str], tail: bool) -> None:
    payload = "".join(f"{line}\n" for line in lines) + ("last line without newline" if tail else "")
    got = anyio.run(_read_all, payload.encode())
    expected = [f"{line}\n" for line in lines] + (["last line without newline"] if tail else [])
    assert got == expected


async def test_a_line_longer_than_one_read_is_not_split() -> None:
    line = "x" * (3 * 65536 + 17)
    assert await _read_all(f"{line}\nnext\n".encode()) == [f"{line}\n", "next\n"]


async def test_bytes_that_are_not_utf8_are_replaced_not_fatal() -> None:
    assert await _read_all(b"ok \xff\xfe\n") == ["ok \ufffd\ufffd\n"]


@pytest.mark.parametrize(
    ("line", "request_id"),
    [
        ('{"jsonrpc": "1.0", "id": 7, "method": "ping"}', 7),
        ('{"id": "a", "method": "ping"}', "a"),
        ('{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": "x"}', 8),
        ('{"jsonrpc": "2.0", "id": 9, "method": 5}', 9),
    ],
)
def test_a_request_that_is_not_json_rpc_gets_invalid_request_with_its_id(
    line: str, request_id: int | str
) -> None:
    error = invalid_request_error(line)
    assert error is not None
    assert (error.id, error.error.code) == (request_id, INVALID_REQUEST)


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        "[1, 2]",
        '{"jsonrpc": "2.0", "method": "notifications/x"}',  # a notification: nobody to answer
        '{"jsonrpc": "2.0", "id": true, "method": "ping"}',  # no usable id
        '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 3, "result": {}}',  # a response, not a request
        "[" * 100_000,
    ],
)
def test_a_line_with_nobody_to_answer_gets_nothing(line: str) -> None:
    assert invalid_request_error(line) is None
