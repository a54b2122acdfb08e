"""The wire to the host over stdio, written from the event loop itself.

The SDK writes each message through anyio's file wrapper: a worker thread per write, which must
take the GIL from the event loop's thread. While the loop indexes a result, that thread waits
(up to the interpreter's 5 ms switch interval), and the response waits with it. Here the loop
writes the message with ``os.write`` on a non-blocking descriptor, and waits for the pipe to
drain only when it is full: a response is on its way before anything else runs.

The descriptor written is a duplicate of stdout; stdout itself then points at stderr while
serving (as the SDK does for its own writer), so that stray output never reaches the wire.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import anyio

__all__ = ["HostStdout", "host_stdout"]


class HostStdout(anyio.AsyncFile[str]):
    def __init__(self, fd: int) -> None:
        super().__init__(os.fdopen(fd, "w", encoding="utf-8", closefd=False))
        self._fd = fd

    async def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                written = os.write(self._fd, data)
            except BlockingIOError:  # the pipe is full: the host reads slower than we write
                await anyio.wait_writable(self._fd)
                continue
            data = data[written:]
        return len(text)

    async def flush(self) -> None:
        """Nothing is buffered."""


@contextmanager
def host_stdout() -> Iterator[HostStdout]:
    """The host's stdout as a :class:`HostStdout`, with fd 1 pointing at stderr meanwhile;
    everything is put back on exit."""
    sys.stdout.flush()
    wire = os.dup(1)
    os.dup2(2, 1)
    os.set_blocking(wire, False)
    try:
        yield HostStdout(wire)
    finally:
        os.set_blocking(wire, True)
        os.dup2(wire, 1)
        os.close(wire)
