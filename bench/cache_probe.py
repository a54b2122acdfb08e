"""The proxy benchmark's calls fed to the core in process, with memory touched between calls.

    python bench/cache_probe.py [--calls 1000] [--touch-mb 0 8 32]

Each call is ``bench/proxy_perf.py``'s: ``filesystem/read_text_file`` returning a 2 KB window of
the Python documentation, decided and its result read by one ``Session`` in prevent mode, as the
proxy does. Between two calls the probe writes to ``--touch-mb`` megabytes of memory, standing
in for what the client, the server and the proxy's own forwarding do between calls in the proxy
bench: it evicts what the core had cached. Prints the median time to decide and to read a
result for each size; the gap to the untouched run is the price of cold caches.
"""

from __future__ import annotations

import argparse
import statistics
import time

from perf_server import read_text_file

from cyclops import guard
from cyclops.config import load_patterns
from cyclops.core import Mode, Session, ToolCall

WARMUP = 50


def probe(calls: int, touch_mb: int) -> tuple[float, float]:
    """Median seconds to decide a call and to read its result."""
    session = Session(load_patterns(None), Mode.PREVENT, "probe")
    session.declare_tools("filesystem", ["read_text_file"])
    junk = bytearray(touch_mb << 20)
    zeros = bytes(len(junk[::64]))
    decide, read = [], []
    for i in range(WARMUP + calls):
        if junk:
            junk[::64] = zeros  # one write per cache line
        path = f"/home/u/notes/{i}.md"
        text = read_text_file(path)
        start = time.perf_counter()
        decision = guard.decide(session, ToolCall("filesystem", "read_text_file", {"path": path}))
        decided = time.perf_counter()
        result = {
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"result": text},
        }
        guard.observe(session, decision.index, result)
        if i >= WARMUP:
            decide.append(decided - start)
            read.append(time.perf_counter() - decided)
    return statistics.median(decide), statistics.median(read)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--touch-mb", type=int, nargs="+", default=[0, 8, 32])
    args = parser.parse_args()
    print(f"{args.calls} calls of read_text_file (bench/perf_server.py), prevent mode")
    for size in args.touch_mb:
        decide, read = probe(args.calls, size)
        print(
            f"touching {size:3d} MB between calls: decide {decide * 1e6:5.0f} µs, "
            f"read the result {read * 1e6:5.0f} µs"
        )


if __name__ == "__main__":
    main()
