"""What the benchmarks ran on, for their reports."""

from __future__ import annotations

import os
import platform
from pathlib import Path

__all__ = ["cpu_model", "usable_cores"]


def cpu_model() -> str:
    """The CPU's model name (Linux), else the architecture."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.machine()


def usable_cores() -> int | None:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
