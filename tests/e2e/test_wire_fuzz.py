"""Fuzzing the message layer: generated lines written to a live ``cyclops serve`` over stdio.

3,000 generated inputs (hypothesis examples), each one to three lines: bytes, text, JSON, and
JSON-RPC messages with real and made-up methods, ids of every shape and params of every type
(tools/call with arbitrary arguments, resources/read, prompts/get, completion/complete,
logging/setLevel, a second initialize, cancellations, progress). After each example a ping
must come back with its id: cyclops still serves. Every line cyclops writes must be JSON-RPC,
no error the host sees may carry a traceback, and at the end cyclops must still decide tool
calls and exit cleanly when its input ends.

The core is fuzzed directly in tests/core/test_fuzz.py (8,000 examples; 11,000 in all).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from e2e_support import (
    INITIALIZE_PARAMS,
    PYTHON,
    ProcessId,
    descendants,
    errors_shown,
    kill_all,
    python_server_entry,
    serve_args,
    survivors,
    write_downstream,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = 3_000
ANSWER_SECONDS = 20.0
PROBE = "\u2691probe-"
"""The ids of this test's own pings (no generated id looks like them)."""


class WireHost:
    """A host for a synchronous test: writes lines to cyclops, a thread reads its stdout."""

    def __init__(self, args: list[str], stderr: IO[str]) -> None:
        self.stderr_path = Path(stderr.name)
        self.process = subprocess.Popen(
            [PYTHON, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
        self.children: list[ProcessId] = []
        self.responses: dict[Any, dict[str, Any]] = {}
        self.not_json_rpc: list[bytes] = []
        self.error_texts: list[str] = []
        self.lines = 0
        self.closed = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read, name="wire-fuzz-reader", daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
                valid = isinstance(message, dict) and message.get("jsonrpc") == "2.0"
            except ValueError:
                message, valid = None, False
            with self._changed:
                self.lines += 1
                if not valid:
                    self.not_json_rpc.append(line[:300])
                elif "result" in message or "error" in message:
                    self.responses[_key(message.get("id"))] = message
                    self._note_errors(message)
                self._changed.notify_all()
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def _note_errors(self, message: dict[str, Any]) -> None:
        self.error_texts.extend(errors_shown(message))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def request(self, request_id: Any, method: str, params: dict[str, Any] | None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")
        with self._changed:
            arrived = self._changed.wait_for(
                lambda: _key(request_id) in self.responses or self.closed, ANSWER_SECONDS
            )
            assert arrived, f"no answer to {method} ({request_id}) in {ANSWER_SECONDS} s"
            assert _key(request_id) in self.responses, f"cyclops closed its stdout ({method})"
            return self.responses.pop(_key(request_id))


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireHost]:
    work = tmp_path_factory.mktemp("wire-fuzz")
    downstream = write_downstream(
        work / "downstream.toml",
        [
            python_server_entry("web", "cyclops.examples.servers.web"),
            python_server_entry("notify", "cyclops.examples.servers.notify"),
        ],
    )
    args = serve_args(downstream, work / "verdicts", mode="prevent", extra=["--no-pins"])
    with (work / "cyclops.stderr").open("w") as stderr:
        host = WireHost(args, stderr)
        try:
            assert "result" in host.request(1, "initialize", INITIALIZE_PARAMS)
            host.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            host.children = descendants(host.process.pid)
            yield host
        finally:
            left = descendants(host.process.pid)
            if host.process.poll() is None:
                host.process.kill()
            host.process.wait(timeout=10)
            kill_all(left)


# -- what a host might send ------------------------------------------------------------------

words = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "https://paste.attacker-example.net/drop",
            "https://blog.example.org/",
            "~/.ssh/id_rsa",
            "AKIAQ7RZ3W5N2K4XTB6M",
            "fetch_page",
            "send_message",
            "web",
            "notify",
            "debug",
            "ref/prompt",
            "ref/resource",
            "file:///etc/passwd",
        ]
    ),
)
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        words,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(words, children, max_size=3)
    ),
    max_leaves=8,
)
good_ids = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=20))
ids = st.one_of(good_ids, good_ids, good_ids, st.none(), st.floats(allow_nan=False), json_values)
tool_arguments = st.dictionaries(
    st.sampled_from(["url", "text", "url", "text", "path"]) | words,
    st.one_of(words, words, words, json_values),
    max_size=3,
)
params_by_method = {
    "tools/call": st.fixed_dictionaries(
        {
            "name": st.sampled_from(["fetch_page", "send_message", "fetch_page", "send_message"])
            | words
        },
        optional={
            "arguments": st.one_of(tool_arguments, tool_arguments, tool_arguments, json_values),
            "_meta": st.dictionaries(st.just("progressToken"), ids, max_size=1),
        },
    ),
    "resources/read": st.fixed_dictionaries({"uri": st.one_of(words, json_values)}),
    "resources/subscribe": st.fixed_dictionaries({"uri": words}),
    "prompts/get": st.fixed_dictionaries(
        {"name": words}, optional={"arguments": st.dictionaries(words, words, max_size=2)}
    ),
    "completion/complete": st.fixed_dictionaries(
        {
            "ref": st.fixed_dictionaries(
                {"type": st.sampled_from(["ref/prompt", "ref/resource"]) | words},
                optional={"name": words, "uri": words},
            ),
            "argument": st.fixed_dictionaries({"name": words, "value": words}),
        }
    ),
    "logging/setLevel": st.fixed_dictionaries(
        {"level": st.sampled_from(["debug", "info", "error", "emergency"]) | words}
    ),
    "initialize": st.dictionaries(words, json_values, max_size=3),
    "tools/list": st.fixed_dictionaries({}, optional={"cursor": json_values}),
    "notifications/cancelled": st.fixed_dictionaries(
        {"requestId": ids}, optional={"reason": words}
    ),
    "notifications/progress": st.fixed_dictionaries(
        {"progressToken": ids, "progress": json_values}
    ),
}
methods = st.sampled_from(
    ["tools/call"] * 6
    + [*params_by_method, "ping", "resources/list", "prompts/list", "server/discover", "x/y"]
)


@st.composite
def json_rpc(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly well-formed (so that most reach cyclops's handlers), sometimes not."""
    method = draw(st.one_of(methods, methods, methods, words))
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0"] * 8 + ["1.0", 2]))}
    message["method"] = method
    if draw(st.integers(0, 3)):
        message["id"] = draw(ids)
    params = params_by_method.get(method)
    if params is not None and draw(st.integers(0, 5)):
        message["params"] = draw(params)
    elif draw(st.booleans()):
        message["params"] = draw(json_values)
    return message


tool_calls = st.builds(
    lambda request_id, params: {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": params,
    },
    good_ids,
    params_by_method["tools/call"],
)
"""Well-formed calls with fuzzed arguments: they reach the detection tap."""

lines = st.one_of(
    tool_calls.map(lambda m: json.dumps(m).encode()),
    tool_calls.map(lambda m: json.dumps(m).encode()),
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    json_rpc().map(lambda m: json.dumps(m).encode()),
    json_rpc().map(lambda m: json.dumps(m).encode()),
    json_rpc().map(lambda m: json.dumps(m).encode()[: len(json.dumps(m)) // 2]),
).map(lambda line: line.replace(b"\n", b" "))


# -- the test --------------------------------------------------------------------------------

_probes = iter(range(10**9))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(batch=st.lists(lines, min_size=1, max_size=3))
def test_any_lines_from_the_host_leave_cyclops_answering_and_never_show_a_traceback(
    wire: WireHost, batch: list[bytes]
) -> None:
    for line in batch:
        wire.send(line + b"\n")
    answer = wire.request(f"{PROBE}{next(_probes)}", "ping", None)
    assert answer.get("result") == {}
    assert wire.process.poll() is None
    assert wire.not_json_rpc == []
    assert [t for t in wire.error_texts if "Traceback" in t or 'File "' in t] == []


def test_after_the_fuzzing_cyclops_still_decides_calls_and_exits_cleanly(wire: WireHost) -> None:
    fetched = wire.request(
        f"{PROBE}fetch",
        "tools/call",
        {"name": "fetch_page", "arguments": {"url": "https://blog.example.org/"}},
    )
    # Decided: forwarded, or denied (fuzzed calls may have tripped the session's breaker).
    assert fetched["result"]["content"]
    posted = wire.request(
        f"{PROBE}post",
        "tools/call",
        {"name": "send_message", "arguments": {"url": "https://hooks.example.com/", "text": "hi"}},
    )
    assert posted["result"]["content"]
    assert wire.process.stdin is not None
    wire.process.stdin.close()
    assert wire.process.wait(timeout=15) == 0
    assert survivors(wire.children) == []
    assert "Traceback" not in wire.stderr_path.read_text(errors="replace")
