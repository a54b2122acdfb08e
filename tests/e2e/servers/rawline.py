"""A stdio MCP server written by hand (no SDK), for cyclops's fault tests: it writes exactly the
bytes a test asks for, valid or not.

``python rawline.py [--log FILE]`` answers ``initialize``, ``ping``, ``tools/list`` and these tools:

- ``garbage(count)``: writes ``count`` rounds of junk to stdout (lines that are not JSON, not
  UTF-8, JSON that is not JSON-RPC, a response to a request never made, a notification with bad
  params, brackets nested past any parser's limit), then the valid result ``"after garbage"``.
- ``deep(depth)``: a result whose structured content is nested ``depth`` levels deep.
- ``flood(count)``: ``count`` log notifications and, if the call carried a progress token,
  ``count`` progress notifications, as fast as the pipe takes them; then the result.
- ``hang``: never answers (later requests are still answered).
- ``whoami``: this process's id.
- ``echo(text)``: writes ``text`` to stdout as a line of its own, not JSON-RPC (a server that
  prints what it read, by mistake), then the result ``"echoed"``.

Every request and notification received is appended to ``--log`` (one JSON line each, with the
time), so a test can see what reached the server, e.g. a cancellation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, BinaryIO

TOOLS = [
    {"name": name, "description": description, "inputSchema": {"type": "object"}}
    for name, description in [
        ("garbage", "Write junk to stdout, then answer."),
        ("deep", "Answer with deeply nested structured content."),
        ("flood", "Send many notifications, then answer."),
        ("hang", "Never answer."),
        ("whoami", "Return this server's process id."),
        ("echo", "Print the text to stdout (a server that prints what it reads), then answer."),
    ]
]
JUNK = [
    b"this is not json\n",
    b"\xff\xfe\x00 not utf-8 \x80\x81\n",
    b"{\n",
    b"[1, 2, 3]\n",
    b'{"hello": "world"}\n',
    b'{"jsonrpc": "2.0", "id": 987654321, "result": {}}\n',
    b'{"jsonrpc": "2.0", "method": "notifications/message", "params": "not an object"}\n',
    b"[" * 100_000 + b"\n",
    b"\n",
]


def text_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


class RawServer:
    def __init__(self, out: BinaryIO, log: str | None) -> None:
        self.out = out
        self.log = log

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def note(self, message: Any) -> None:
        if self.log:
            with open(self.log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"at": time.time(), "message": message}) + "\n")

    def handle(self, message: dict[str, Any]) -> None:
        self.note(message)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            return  # a notification (initialized, cancelled, ...)
        params = message.get("params") or {}
        if method == "initialize":
            self.answer(
                request_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "e2e-rawline", "version": "1"},
                },
            )
        elif method == "tools/list":
            self.answer(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            self.call(request_id, params)
        elif method == "ping":
            self.answer(request_id, {})
        else:
            error = {"code": -32601, "message": "Method not found"}
            self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def call(self, request_id: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        arguments = params.get("arguments") or {}
        if name == "garbage":
            for _ in range(int(arguments.get("count", 1))):
                for junk in JUNK:
                    self.write(junk)
            self.answer(request_id, text_result("after garbage"))
        elif name == "deep":
            # Written by hand: json.dumps itself stops at Python's recursion limit.
            depth = int(arguments.get("depth", 1))
            deep = "[" * depth + '"the bottom"' + "]" * depth
            content = json.dumps(text_result("deep"))[:-1]
            result = f'{content}, "structuredContent": {{"deep": {deep}}}}}'
            line = f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "result": {result}}}'
            self.write(line.encode() + b"\n")
        elif name == "flood":
            count = int(arguments.get("count", 1))
            token = (params.get("_meta") or {}).get("progressToken")
            for n in range(count):
                log = {"level": "info", "logger": "flood", "data": f"notification {n}"}
                self.send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
                if token is not None:
                    progress = {"progressToken": token, "progress": n + 1, "total": count}
                    self.send(
                        {"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}
                    )
            self.answer(request_id, text_result(f"sent {count} notifications"))
        elif name == "hang":
            return
        elif name == "echo":
            self.write(str(arguments.get("text", "")).replace("\n", " ").encode() + b"\n")
            self.answer(request_id, text_result("echoed"))
        elif name == "whoami":
            self.answer(request_id, text_result(str(os.getpid())))
        else:
            self.answer(request_id, text_result(f"unknown tool {name}", isError=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log", help="append every message received here (JSON lines)")
    server = RawServer(sys.stdout.buffer, parser.parse_args().log)
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            server.handle(message)


if __name__ == "__main__":
    main()
