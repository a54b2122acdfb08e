"""The wire to the host: every message arrives whole and in order, even when the host reads
slower than cyclops writes (the pipe fills up)."""

from __future__ import annotations

import os
import threading

import anyio
import pytest

from cyclops.proxy.hoststdout import HostStdout

pytestmark = pytest.mark.anyio


def _slow_reader(fd: int, into: bytearray) -> threading.Thread:
    """Reads ``fd`` to its end in small bites: a message many times the pipe's 64 KiB must
    wait for it, part by part."""

    def read() -> None:
        while chunk := os.read(fd, 4096):
            into.extend(chunk)

    thread = threading.Thread(target=read)
    thread.start()
    return thread


async def test_messages_larger_than_the_pipe_arrive_whole_and_in_order() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    received = bytearray()
    reader = _slow_reader(read_fd, received)
    messages = [f'{{"id": {i}, "text": "{"x" * (300_000 + i)}"}}\n' for i in range(8)]
    try:
        wire = HostStdout(write_fd)
        with anyio.fail_after(30):
            for message in messages:
                assert await wire.write(message) == len(message)
                await wire.flush()
    finally:
        os.close(write_fd)
        reader.join()
        os.close(read_fd)
    assert received.decode() == "".join(messages)


async def test_text_is_written_as_utf8() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    try:
        await HostStdout(write_fd).write("café ☕\n")
        assert os.read(read_fd, 100) == "café ☕\n".encode()
    finally:
        os.close(write_fd)
        os.close(read_fd)
