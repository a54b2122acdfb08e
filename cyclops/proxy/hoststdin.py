"""The host's stdin as lines, read by a daemon thread so that shutdown never waits for input;
and an answer to each line that asks something but is not a JSON-RPC request.

anyio's file wrapper reads in a worker thread that the interpreter joins at exit: after SIGTERM
cyclops would hang until the host sent one more line or closed the pipe. One daemon thread reads
here instead, with ``os.read`` on the descriptor (a daemon thread must not hold a buffered
reader's lock when the interpreter finalises); a read cancelled at shutdown is simply abandoned.

The SDK's stdio server turns a line it cannot validate into an exception on its read stream
and the server drops it: a host that sent a malformed request with an id would wait forever.
:func:`answering_invalid_requests` answers it with JSON-RPC's Invalid Request error instead.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
from mcp import types
from mcp.shared.message import SessionMessage

__all__ = ["HostLines", "answering_invalid_requests", "host_stdin", "invalid_request_error"]

_CHUNK = 1 << 16

_Request = tuple[anyio.lowlevel.EventLoopToken, anyio.Event, list[str | OSError]]


class HostLines(anyio.AsyncFile[str]):
    def __init__(self, fd: int) -> None:
        super().__init__(os.fdopen(fd, "r", encoding="utf-8", errors="replace", closefd=False))
        self._fd = fd
        self._pending = bytearray()
        self._requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None
        self.unconsumed: deque[str] = deque()
        """Lines read but not yet taken off the SDK's read stream, oldest first."""

    async def readline(self) -> str:
        if self._reader is None:
            self._reader = threading.Thread(target=self._serve, name="cyclops-stdin", daemon=True)
            self._reader.start()
        done = anyio.Event()
        box: list[str | OSError] = []
        self._requests.put((anyio.lowlevel.current_token(), done, box))
        await done.wait()
        if isinstance(box[0], OSError):
            raise box[0]
        if box[0]:
            self.unconsumed.append(box[0])
        return box[0]

    def _serve(self) -> None:
        while True:
            token, done, box = self._requests.get()
            try:
                box.append(self._next_line())
            except OSError as error:  # handed to the awaiting task, which raises it
                box.append(error)
            try:
                anyio.from_thread.run_sync(done.set, token=token)
            except RuntimeError:  # the event loop is gone: nobody is waiting any more
                return

    def _next_line(self) -> str:
        """The next line, newline included; ``""`` at end of input (as ``readline`` does)."""
        pending, searched = self._pending, 0
        while (cut := pending.find(b"\n", searched)) < 0:
            searched = len(pending)
            chunk = os.read(self._fd, _CHUNK)
            if not chunk:
                line = bytes(pending)
                pending.clear()
                return line.decode("utf-8", errors="replace")
            pending += chunk
        line = bytes(pending[: cut + 1])
        del pending[: cut + 1]
        return line.decode("utf-8", errors="replace")


def host_stdin(fd: int | None = None) -> HostLines:
    """UTF-8 lines (undecodable bytes replaced) from ``fd``, by default the process's stdin."""
    return HostLines(sys.stdin.fileno() if fd is None else fd)


@asynccontextmanager
async def answering_invalid_requests(
    read: anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
    write: anyio.abc.ObjectSendStream[SessionMessage],
    lines: HostLines,
) -> AsyncIterator[anyio.abc.ObjectReceiveStream[SessionMessage | Exception]]:
    """``read`` (from the SDK's stdio server reading ``lines``), each invalid request answered.

    The SDK's reader puts exactly one item on ``read`` for every line, in order, so the line an
    item came from is the oldest one in ``lines.unconsumed``.
    """
    relay, checked = anyio.create_memory_object_stream[SessionMessage | Exception](0)

    async def check() -> None:
        async with read, relay:
            async for item in read:
                line = lines.unconsumed.popleft() if lines.unconsumed else ""
                error = invalid_request_error(line) if isinstance(item, Exception) else None
                if error is not None:
                    await write.send(SessionMessage(error))
                else:
                    await relay.send(item)

    async with anyio.create_task_group() as tg:
        tg.start_soon(check)
        yield checked
        tg.cancel_scope.cancel()


def invalid_request_error(line: str) -> types.JSONRPCError | None:
    """The Invalid Request error (JSON-RPC 2.0 section 5.1) for a line the SDK could not read,
    if it asks something with an id that can be answered; None for anything else (junk, or a
    notification: there is nobody to answer)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request")
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
