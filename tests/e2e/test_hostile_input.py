"""Hostile input to a real ``cyclops serve`` over stdio: malformed JSON-RPC, bytes that are not
UTF-8, 50 MB arguments and results, JSON nested past any parser's limit, binary content,
compression bombs, strings that make backtracking regexes explode, and broken configuration.

Each gets a clear error or a safe decision; the proxy keeps serving (a normal call works
afterwards); no traceback reaches the host; time is bounded (``anyio.fail_after``) and so is
cyclops's memory (its peak RSS, read from /proc).

One cyclops (prevent mode) serves the whole module, in front of four servers: ``web`` and
``files`` (tests/e2e/servers/hostile.py over stdio: untrusted and private by their names),
``big-files`` (the same over HTTP: the SDK's stdio client reads a long line in quadratic time,
so the 50 MB result comes over HTTP; see the test) and ``raw`` (rawline.py, a hand-written
server for results no SDK would send).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_support import (
    ATTACKER_URL,
    HOSTILE,
    PYTHON,
    RAWLINE,
    STARTUP_TIMEOUT,
    LineHost,
    free_port,
    http_entry,
    http_server,
    line_host,
    load_json,
    peak_rss_mib,
    reset_peak_rss,
    rss_mib,
    serve_args,
    server_entry,
    text_of,
    write_downstream,
)

from cyclops.config import load_patterns
from cyclops.core import ConfigError
from cyclops.proxy.config import load_downstream

pytestmark = pytest.mark.anyio

MB = 1024 * 1024
PAGE_URL = "https://blog.example.org/"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
# Bounds: generous hang guards for a loaded 2-core CI machine, not benchmarks. Linear code
# handles these inputs in well under a tenth of them; a quadratic or exponential path does not.
CALL_SECONDS = 30
RSS_GROWTH_MIB = 768


@dataclass
class Proxy:
    host: LineHost
    work: Path

    @property
    def pid(self) -> int:
        return self.host.process.pid

    def verdict(self) -> dict[str, Any]:
        [path] = (self.work / "verdicts").glob("*.session.json")
        loaded: dict[str, Any] = load_json(path)
        return loaded

    async def verdict_after(self, calls: int) -> dict[str, Any]:
        """The verdict once it counts ``calls`` calls (it is written off the event loop)."""
        return await self.verdict_where(lambda metrics: metrics.get("calls", 0) >= calls)

    async def verdict_where(self, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The verdict once its metrics satisfy ``holds``. A baseline read from the file may lag
        by plain allowed calls (their counters are written coalesced), never by a denial or an
        error (written at once), so tests wait on those."""
        with anyio.fail_after(10):
            while True:
                try:
                    verdict = self.verdict()
                except (ValueError, FileNotFoundError):
                    verdict = {}
                if holds(verdict.get("metrics", {})):
                    return verdict
                await anyio.sleep(0.02)

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        with anyio.fail_after(CALL_SECONDS):
            return await self.host.call(name, arguments, timeout=CALL_SECONDS)

    async def still_serving(self) -> None:
        """A normal request and a normal call work, and no error text showed a traceback."""
        with anyio.fail_after(CALL_SECONDS):
            assert "result" in await self.host.request("ping")
            assert text_of(await self.host.call("web__ping", {})) == "pong"
        assert self.host.process.returncode is None
        assert self.host.tracebacks() == []


@pytest.fixture(scope="module")
async def proxy(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Proxy]:
    work = tmp_path_factory.mktemp("hostile")
    port = free_port()
    big = [HOSTILE, "--http", str(port)]
    async with http_server(big, port, work / "big-files.stderr", STARTUP_TIMEOUT):
        downstream = write_downstream(
            work / "downstream.toml",
            [
                server_entry("web", PYTHON, [HOSTILE], timeout=60),
                server_entry("files", PYTHON, [HOSTILE], timeout=60),
                server_entry("raw", PYTHON, [RAWLINE], timeout=3),
                http_entry("big-files", f"http://127.0.0.1:{port}/mcp", timeout=60),
            ],
        )
        args = serve_args(downstream, work / "verdicts", mode="prevent", extra=["--no-pins"])
        async with line_host(args, work / "cyclops.stderr") as host:
            yield Proxy(host, work)


# -- malformed JSON-RPC ----------------------------------------------------------------------

NOT_JSON_RPC = {
    "not JSON": b"this is not json",
    "truncated JSON": b'{"jsonrpc": "2.0", "id": 1, "method": "pi',
    "a JSON array": b"[1, 2, 3]",
    "a batch": b'[{"jsonrpc": "2.0", "id": 900, "method": "ping"}]',
    "a JSON string": b'"ping"',
    "a JSON number": b"42",
    "null": b"null",
    "an object that is not JSON-RPC": b'{"hello": "world"}',
    "the wrong version": b'{"jsonrpc": "1.0", "id": 901, "method": "ping"}',
    "no version": b'{"id": 902, "method": "ping"}',
    "params that are a string": b'{"jsonrpc": "2.0", "id": 903, "method": "ping", "params": "x"}',
    "params that are a list": b'{"jsonrpc": "2.0", "id": 904, "method": "ping", "params": [1]}',
    "a method that is a number": b'{"jsonrpc": "2.0", "id": 905, "method": 7}',
    "an id that is an object": b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
    "an id that is a list": b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}',
    "an id that is a fraction": b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
    "an id that is true": b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
    "a response to nothing": b'{"jsonrpc": "2.0", "id": 906, "result": {}}',
    "an error for nothing": b'{"jsonrpc": "2.0", "id": 907, "error": {"code": 1, "message": "x"}}',
    "an empty line": b"",
    "only whitespace": b" \t ",
    "a NUL byte": b"\x00",
    "bytes that are not UTF-8": b"\xff\xfe\xfd not utf-8 \x80",
    "UTF-16": '{"jsonrpc": "2.0", "id": 908, "method": "ping"}'.encode("utf-16"),
    "100,000 opening brackets": b"[" * 100_000,
    "100,000 nested objects": b'{"a":' * 100_000,
    "a request nested past the parser's limit": (
        b'{"jsonrpc": "2.0", "id": 909, "method": "tools/call", "params": {"name": "web__ping",'
        b' "arguments": {"x": ' + b"[" * 5_000 + b"]" * 5_000 + b"}}}"
    ),
    "a 20 MB line of junk": b"x" * (20 * MB),
}


@pytest.mark.parametrize("name", list(NOT_JSON_RPC))
async def test_a_line_that_is_not_json_rpc_gets_no_result_and_the_next_request_is_served(
    proxy: Proxy, name: str
) -> None:
    host = proxy.host
    before = len(host.lines)
    await host.send_bytes(NOT_JSON_RPC[name] + b"\n")
    await proxy.still_serving()
    # Whatever came back for the junk line is an error, never a result for a request that
    # was never made (every id above 900 belongs to a junk line).
    for line in host.lines[before:]:
        message = json.loads(line)
        junk_id = isinstance(message.get("id"), int) and message["id"] >= 900
        assert not (junk_id and "result" in message), message


@pytest.mark.parametrize(
    "name",
    [
        "the wrong version",
        "no version",
        "params that are a string",
        "params that are a list",
        "a method that is a number",
    ],
)
async def test_a_request_that_is_json_but_not_json_rpc_gets_an_invalid_request_error(
    proxy: Proxy, name: str
) -> None:
    host = proxy.host
    junk = json.loads(NOT_JSON_RPC[name])
    await host.send_bytes(NOT_JSON_RPC[name] + b"\n")
    # Lines are read in order: once the next request is answered, the junk line was handled.
    assert "result" in await host.request("ping")
    assert host.responses.pop(junk["id"], {}).get("error", {}).get("code") == -32600


@pytest.mark.parametrize(
    "request_id",
    [0, -1, 2**31, 2**53 + 1, 2**100, -(2**100), "", "id", "🦊" * 100, "x" * 100_000],
    ids=[
        "zero",
        "negative",
        "2^31",
        "2^53+1",
        "2^100",
        "-2^100",
        "empty",
        "a word",
        "emoji",
        "100 kB",
    ],
)
async def test_a_request_id_of_any_valid_shape_comes_back_unchanged(
    proxy: Proxy, request_id: int | str
) -> None:
    await proxy.host.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    with anyio.fail_after(CALL_SECONDS):
        answer = await proxy.host.response(request_id)
    assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {}}
    await proxy.still_serving()


@pytest.mark.parametrize("method", ["no/such/method", "tools/unknown", "", "TOOLS/LIST", "💥"])
async def test_an_unknown_method_gets_method_not_found(proxy: Proxy, method: str) -> None:
    answer = await proxy.host.request(method, {})
    assert answer["error"]["code"] == METHOD_NOT_FOUND
    # The same method as a notification gets nothing back, and breaks nothing.
    await proxy.host.send({"jsonrpc": "2.0", "method": method, "params": {}})
    await proxy.still_serving()


WRONG_PARAMS: dict[str, tuple[str, Any]] = {
    "a tool name that is a number": ("tools/call", {"name": 5}),
    "no tool name": ("tools/call", {"arguments": {}}),
    "arguments that are a list": ("tools/call", {"name": "web__ping", "arguments": [1, 2]}),
    "arguments that are a string": ("tools/call", {"name": "web__ping", "arguments": "x"}),
    "a tool that does not exist": ("tools/call", {"name": "no_such_tool", "arguments": {}}),
    "no params for a call": ("tools/call", None),
    "a URI that is a number": ("resources/read", {"uri": 5}),
    "a resource that does not exist": ("resources/read", {"uri": "file:///nowhere"}),
    "a prompt that does not exist": ("prompts/get", {"name": "nothing"}),
    "a cursor that is an object": ("tools/list", {"cursor": {"a": 1}}),
    "a log level that does not exist": ("logging/setLevel", {"level": "loudest"}),
    "initialize again, empty": ("initialize", {}),
}


@pytest.mark.parametrize("name", list(WRONG_PARAMS))
async def test_parameters_of_the_wrong_type_get_invalid_params(proxy: Proxy, name: str) -> None:
    method, params = WRONG_PARAMS[name]
    answer = await proxy.host.request(method, params)
    assert answer["error"]["code"] == INVALID_PARAMS, answer
    await proxy.still_serving()


async def test_bytes_that_are_not_utf8_inside_a_call_are_replaced_and_the_call_decided(
    proxy: Proxy,
) -> None:
    host = proxy.host
    request_id = host.new_id()
    line = (
        b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": '
        b'"web__send_message", "arguments": {"url": "https://hooks.example.com/\xff\xfe", '
        b'"text": "caf\xe9 \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80"}}}\n' % request_id
    )
    calls = proxy.verdict().get("metrics", {}).get("calls", 0) if _has_verdict(proxy) else 0
    await host.send_bytes(line)
    answer = await host.response(request_id, timeout=CALL_SECONDS)
    assert "result" in answer
    await proxy.verdict_after(calls + 1)
    await proxy.still_serving()


def _has_verdict(proxy: Proxy) -> bool:
    return any((proxy.work / "verdicts").glob("*.session.json"))


# -- size ------------------------------------------------------------------------------------


async def test_a_50_mb_argument_is_denied_as_too_large_to_check_and_memory_stays_bounded(
    proxy: Proxy,
) -> None:
    """Failing closed: the core's cost grows with the argument (unchecked, a 50 MB argument
    took about 30 s and 4.4 GB), so cyclops.guard denies what it cannot check in bounds."""
    before = proxy.verdict()["metrics"] if _has_verdict(proxy) else {"denied": 0, "errors": 0}
    text = base64.b64encode(os.urandom(50 * MB * 3 // 4)).decode()
    base = rss_mib(proxy.pid)
    reset_peak_rss(proxy.pid)
    result = await proxy.call(
        "web__send_message", {"url": "https://hooks.example.com/", "text": text}
    )
    assert result.get("isError") is True
    verdict = await proxy.verdict_where(lambda m: m["denied"] > before["denied"])
    assert verdict["metrics"]["denied"] == before["denied"] + 1
    assert verdict["metrics"]["errors"] == before["errors"] + 1
    assert peak_rss_mib(proxy.pid) - base < RSS_GROWTH_MIB
    await proxy.still_serving()


async def test_a_50_mb_result_reaches_the_host_whole_and_memory_stays_bounded(
    proxy: Proxy,
) -> None:
    """Over an HTTP downstream. Over stdio the SDK's client (mcp 2.3.0 ``stdio_client``) joins
    ``buffer + chunk`` for every 64 KiB read of a line: 12 MB took 2.8 s, 25 MB 6.7 s and 50 MB
    38 s even without cyclops in between; the next test covers the stdio path at 8 MB."""
    base = rss_mib(proxy.pid)
    reset_peak_rss(proxy.pid)
    result = await proxy.call("big-files__read_blob", {"kind": "text", "size": 50 * MB})
    assert result.get("isError") is not True
    assert len(text_of(result)) == 50 * MB
    assert peak_rss_mib(proxy.pid) - base < 2 * RSS_GROWTH_MIB
    await proxy.still_serving()


async def test_an_8_mb_result_from_a_stdio_server_reaches_the_host_whole(proxy: Proxy) -> None:
    result = await proxy.call("files__read_blob", {"kind": "text", "size": 8 * MB})
    assert len(text_of(result)) == 8 * MB
    await proxy.still_serving()


# -- shape -----------------------------------------------------------------------------------


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


async def test_arguments_nested_deeper_than_the_core_reads_are_denied(proxy: Proxy) -> None:
    """A payload below the depth the core reads would go unseen: 150 levels (the JSON parser
    takes about 200) is failed closed, 20 levels is decided as usual."""
    errors = proxy.verdict()["metrics"]["errors"] if _has_verdict(proxy) else 0
    deep = await proxy.call("web__send_message", {"url": PAGE_URL, "text": nested(150, "hi")})
    assert deep.get("isError") is True
    shallow = await proxy.call("web__send_message", {"url": PAGE_URL, "text": nested(20, "hi")})
    assert shallow.get("isError") is not True
    verdict = await proxy.verdict_where(lambda m: m["errors"] > errors)
    assert verdict["metrics"]["errors"] == errors + 1
    await proxy.still_serving()


async def test_a_result_nested_150_levels_deep_passes_through(proxy: Proxy) -> None:
    result = await proxy.call("deep", {"depth": 150})
    assert result["structuredContent"] == {"deep": nested(150, "the bottom")}
    await proxy.still_serving()


async def test_a_result_nested_past_the_parser_s_limit_gives_an_error_result(
    proxy: Proxy,
) -> None:
    """The SDK cannot parse it, so the call ends at the server's timeout (3 s here)."""
    result = await proxy.call("deep", {"depth": 1_000})
    assert result.get("isError") is True
    await proxy.still_serving()


async def test_a_result_of_100_000_opening_brackets_is_forwarded(proxy: Proxy) -> None:
    result = await proxy.call("files__read_blob", {"kind": "deep_text", "depth": 100_000})
    assert text_of(result) == "[" * 100_000
    await proxy.still_serving()


# -- binary content --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["image", "audio"])
async def test_image_and_audio_content_passes_through_untouched(proxy: Proxy, kind: str) -> None:
    size = 3 * MB
    result = await proxy.call("files__read_blob", {"kind": kind, "size": size})
    [text, block] = result["content"]
    assert (text["type"], block["type"]) == ("text", kind)
    assert len(base64.b64decode(block["data"], validate=True)) == size
    await proxy.still_serving()


async def test_binary_blobs_also_ones_claiming_to_be_text_pass_through_untouched(
    proxy: Proxy,
) -> None:
    size = 1 * MB
    result = await proxy.call("files__read_blob", {"kind": "binary", "size": size})
    [binary, not_text] = [block["resource"] for block in result["content"]]
    assert len(base64.b64decode(binary["blob"], validate=True)) == size
    assert base64.b64decode(not_text["blob"]) == b"\xff\xfe\x00\x80" * (size // 4)
    await proxy.still_serving()


async def test_binary_bytes_as_an_argument_are_decided(proxy: Proxy) -> None:
    blob = base64.b64encode(os.urandom(2 * MB)).decode()
    result = await proxy.call("web__send_message", {"url": PAGE_URL, "text": blob})
    assert "content" in result
    await proxy.still_serving()


# -- base64 and compression bombs ------------------------------------------------------------


def deflate_bomb(gib: int, container: str) -> bytes:
    """A valid gzip or zlib stream of ``gib`` GiB of zeros, made in milliseconds: the same
    1 MiB deflate block (after a full flush it never refers back), repeated."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    zeros = bytes(MB)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    body = block * (gib * 1024) + compressor.flush(zlib.Z_FINISH)
    check = zlib.crc32(b"") if container == "gzip" else zlib.adler32(b"")
    for _ in range(gib * 1024):
        check = zlib.crc32(zeros, check) if container == "gzip" else zlib.adler32(zeros, check)
    if container == "gzip":
        size = (gib << 30) & 0xFFFFFFFF
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
        return header + body + check.to_bytes(4, "little") + size.to_bytes(4, "little")
    return b"\x78\xda" + body + check.to_bytes(4, "big")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def layered(text: str, layers: int) -> str:
    for _ in range(layers):
        text = b64(text.encode())
    return text


BOMBS = [
    "base64 of gzip that inflates to 1 GiB",
    "base64 of zlib that inflates to 1 GiB",
    "base64 of zlib of gzip that inflates to 4 GiB",
    "base64 six times over a zlib of gzip that inflates to 4 GiB",
    "a phrase base64-encoded 30 times",
    "1,000 zlib bombs side by side",
]


@pytest.fixture(scope="module")
def bombs() -> dict[str, str]:
    gzip_1 = deflate_bomb(1, "gzip")
    zlib_1 = deflate_bomb(1, "zlib")
    for bomb, wbits in ((gzip_1, 16 + zlib.MAX_WBITS), (zlib_1, zlib.MAX_WBITS)):
        inflater = zlib.decompressobj(wbits)
        assert len(inflater.decompress(bomb, MB)) == MB  # a real bomb, not a broken stream
    nested = zlib.compress(deflate_bomb(4, "gzip"), 9)
    made = [
        b64(gzip_1),
        b64(zlib_1),
        b64(nested),
        layered(b64(nested), 6),
        layered("send the key to the drop", 30),
        " ".join([b64(zlib.compress(bytes(MB)))] * 1000),
    ]
    return dict(zip(BOMBS, made, strict=True))


@pytest.mark.parametrize("name", BOMBS)
async def test_a_compression_bomb_as_an_argument_is_decided_in_bounded_time_and_memory(
    proxy: Proxy, bombs: dict[str, str], name: str
) -> None:
    base = rss_mib(proxy.pid)
    reset_peak_rss(proxy.pid)
    result = await proxy.call("web__send_message", {"url": ATTACKER_URL, "text": bombs[name]})
    assert "content" in result
    assert peak_rss_mib(proxy.pid) - base < RSS_GROWTH_MIB
    await proxy.still_serving()


@pytest.mark.parametrize("server", ["web", "files"])
async def test_a_compression_bomb_as_a_result_is_read_in_bounded_time_and_memory(
    proxy: Proxy, server: str
) -> None:
    base = rss_mib(proxy.pid)
    reset_peak_rss(proxy.pid)
    result = await proxy.call(f"{server}__read_blob", {"kind": "bomb", "size": 1 << 30})
    assert result.get("isError") is not True
    layers = await proxy.call(f"{server}__read_blob", {"kind": "layers", "depth": 30})
    assert layers.get("isError") is not True
    assert peak_rss_mib(proxy.pid) - base < RSS_GROWTH_MIB
    await proxy.still_serving()


# -- regex-hostile strings -------------------------------------------------------------------

RUN = 500_000
HOSTILE_STRINGS = {
    "dashes then mixed case": "-" * RUN + "1aB",
    "letters and dashes": "a-" * (RUN // 2) + "1aB",
    "one letter": "a" * RUN + "!",
    "padding": "=" * RUN,
    "percent layers": "%25" * (RUN // 3),
    "unicode escapes": "\\u" * (RUN // 2),
    "dotted labels": "a." * (RUN // 2) + "-",
    "at signs": "a@" * (RUN // 2),
    "a long e-mail local part": "x" * RUN + "@" + "a." * 200,
    "a long URL": "https://" + "a" * RUN,
    "hex pairs": "ab:" * (RUN // 3) + "zz",
    "digits and spaces": "123 " * (RUN // 4),
    "zero-width characters": "\u200b" * RUN + "a",
    "JSON escapes of JSON escapes": '\\"' * (RUN // 2),
}


@pytest.mark.parametrize("name", list(HOSTILE_STRINGS))
async def test_a_regex_hostile_argument_is_decided_in_bounded_time(proxy: Proxy, name: str) -> None:
    # An egress call whose URL is off the allowlist: every scan and lookup runs on the text.
    arguments = {"url": ATTACKER_URL, "text": HOSTILE_STRINGS[name]}
    result = await proxy.call("web__send_message", arguments)
    assert "content" in result
    await proxy.still_serving()


async def test_regex_hostile_results_are_read_in_bounded_time(proxy: Proxy) -> None:
    for server in ("web", "files"):
        result = await proxy.call(f"{server}__read_blob", {"kind": "hostile", "size": 200_000})
        assert result.get("isError") is not True
    await proxy.still_serving()


# -- configuration ---------------------------------------------------------------------------

GOOD_SERVER = '[[server]]\nname = "web"\ncommand = "python"\n'
BAD_DOWNSTREAM: dict[str, bytes | None] = {
    "not TOML": b"[[server]\nname = ",
    "an unknown key": GOOD_SERVER.encode() + b'colour = "red"\n',
    "an unknown top-level table": b"[servers]\nname = 1\n",
    "no command": b'[[server]]\nname = "web"\n',
    "an empty command": b'[[server]]\nname = "web"\ncommand = ""\n',
    "a name with a slash": b'[[server]]\nname = "a/b"\ncommand = "x"\n',
    "two servers with one name": GOOD_SERVER.encode() * 2,
    "args that are a string": GOOD_SERVER.encode() + b'args = "--stdio"\n',
    "a timeout of zero": GOOD_SERVER.encode() + b"timeout = 0\n",
    "a timeout that is text": GOOD_SERVER.encode() + b'timeout = "soon"\n',
    "an unknown transport": GOOD_SERVER.encode() + b'transport = "carrier-pigeon"\n',
    "an http server without a URL": b'[[server]]\nname = "h"\ntransport = "http"\n',
    "a URL that is not http": b'[[server]]\nname = "h"\ntransport = "http"\nurl = "ftp://x"\n',
    "an unset variable": GOOD_SERVER.encode() + b'env = { KEY = "${CYCLOPS_E2E_UNSET}" }\n',
    "an unknown role": GOOD_SERVER.encode() + b'roles = ["wizard"]\n',
    "bytes that are not UTF-8": b'[[server]]\nname = "\xff\xfe"\ncommand = "x"\n',
    "a NUL byte": b'[[server]]\nname = "web\x00"\ncommand = "x"\n',
    "deeply nested arrays": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "a missing file": None,
}
BUNDLED = (Path(__file__).resolve().parents[2] / "cyclops" / "patterns.toml").read_bytes()
HIGH_VALUE = b'\n[[provenance.high_value]]\nid = "e2e"\nregex = '
DEEP_TABLES = b"a = " + b"{b = " * 50_000 + b"1" + b"}" * 50_000 + b"\n"
BAD_PATTERNS: dict[str, bytes] = {
    "not TOML": b"[roles.web\n",
    "an unknown key": BUNDLED + b"\ncolour = 1\n",
    "a regex RE2 cannot compile": BUNDLED + HIGH_VALUE + b"'(?<=a)(?P<value>b)'\n",
    "a regex that is not a regex": BUNDLED + HIGH_VALUE + b"'(?P<value>unclosed'\n",
    "a regex of catastrophic size": BUNDLED + HIGH_VALUE + b"'(?P<value>((a{100}){100}){100})'\n",
    "bytes that are not UTF-8": b"\xff\xfe\x00",
}
WITHOUT_UNSET = {k: v for k, v in os.environ.items() if k != "CYCLOPS_E2E_UNSET"}


def write_case(tmp_path: Path, name: str, content: bytes | None) -> Path:
    path = tmp_path / f"{name.replace(' ', '-')}.toml"
    if content is not None:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize("name", list(BAD_DOWNSTREAM))
def test_a_broken_downstream_file_is_a_config_error_naming_the_file(
    tmp_path: Path, name: str
) -> None:
    path = write_case(tmp_path, name, BAD_DOWNSTREAM[name])
    with pytest.raises(ConfigError) as refused:
        load_downstream(path, WITHOUT_UNSET, load_patterns())
    assert refused.value.source == str(path)


@pytest.mark.parametrize("name", list(BAD_PATTERNS))
def test_a_broken_patterns_file_is_a_config_error_naming_the_file(
    tmp_path: Path, name: str
) -> None:
    path = write_case(tmp_path, name, BAD_PATTERNS[name])
    with pytest.raises(ConfigError) as refused:
        load_patterns(path)
    assert refused.value.source == str(path)


def test_a_patterns_file_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    path = write_case(tmp_path, "deep", DEEP_TABLES)
    with pytest.raises(ConfigError):
        load_patterns(path)


async def test_cyclops_serve_refuses_broken_files_with_exit_status_2_and_no_traceback(
    tmp_path: Path,
) -> None:
    """The same refusals through the real command: exit status 2, nothing on stdout (the MCP
    wire), the file named on stderr, no traceback."""
    good = tmp_path / "good.toml"
    good.write_text(f'[[server]]\nname = "web"\ncommand = {json.dumps(PYTHON)}\n')
    deep = write_case(tmp_path, "deep", BAD_DOWNSTREAM["deeply nested arrays"])
    not_toml = write_case(tmp_path, "not-toml", BAD_DOWNSTREAM["not TOML"])
    regex = write_case(tmp_path, "regex", BAD_PATTERNS["a regex RE2 cannot compile"])
    cases = {
        deep: ["serve", "--downstream", str(deep)],
        not_toml: ["serve", "--downstream", str(not_toml), "--http"],
        regex: ["serve", "--downstream", str(good), "--patterns", str(regex)],
    }
    outcomes: dict[Path, subprocess.CompletedProcess[bytes]] = {}

    async def run(path: Path, args: list[str]) -> None:
        with anyio.fail_after(60):
            outcomes[path] = await anyio.run_process(
                [PYTHON, "-m", "cyclops", *args, "--no-pins"],
                stdin=subprocess.DEVNULL,
                check=False,
                cwd=tmp_path,
            )

    async with anyio.create_task_group() as tg:
        for path, args in cases.items():
            tg.start_soon(run, path, args)
    for path, done in outcomes.items():
        stderr = done.stderr.decode(errors="replace")
        assert (done.returncode, done.stdout) == (2, b""), stderr
        assert str(path) in stderr
        assert "Traceback" not in stderr
