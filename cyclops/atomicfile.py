"""Writing a file so that a reader sees the old file or the new one, never a mix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(
    path: Path, data: bytes, *, mode: int | None = None, durable: bool = False
) -> None:
    """Write ``data`` to ``path`` through a temp file in the same folder and a rename: atomic
    against the process dying at any point. ``mode``: the file's permission bits (else the
    temp file's, 0600). ``durable``: fsync before the rename, against power loss too (it costs
    milliseconds: for configuration files, not per-call verdicts)."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    replaced = False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
        replaced = True
    finally:
        if not replaced:
            Path(temp).unlink(missing_ok=True)
