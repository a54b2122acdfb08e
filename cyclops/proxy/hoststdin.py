"""The host's stdin as lines, read by a daemon thread so that shutdown never waits for input.

anyio's file wrapper reads in a worker thread that the interpreter joins at exit: after SIGTERM
cyclops would hang until the host sent one more line or closed the pipe. One daemon thread reads
here instead, with ``os.read`` on the descriptor (a daemon thread must not hold a buffered
reader's lock when the interpreter finalises); a read cancelled at shutdown is simply abandoned.
"""

from __future__ import annotations

import os
import queue
import sys
import threading

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["host_stdin"]

_CHUNK = 1 << 16

_Request = tuple[anyio.lowlevel.EventLoopToken, anyio.Event, list[str | OSError]]


class _DaemonLines(anyio.AsyncFile[str]):
    def __init__(self, fd: int) -> None:
        super().__init__(os.fdopen(fd, "r", encoding="utf-8", errors="replace", closefd=False))
        self._fd = fd
        self._pending = bytearray()
        self._requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None

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


def host_stdin(fd: int | None = None) -> anyio.AsyncFile[str]:
    """UTF-8 lines (undecodable bytes replaced) from ``fd``, by default the process's stdin."""
    return _DaemonLines(sys.stdin.fileno() if fd is None else fd)
