"""Speed and memory of the detection core, fed in-process (no proxy, no I/O).

    python bench/core_perf.py [--quick]

Measures, in one run:
1. feeding sessions of 100 / 1,000 / 10,000 calls with 2 KB results: total time, per-call median
   and p99, and the cost of one egress decision at the end of the session;
2. one call's cost against its payload size (1 KB to 1 MB), argument and result;
3. peak memory of a 10,000-call session, and of a 100,000-call session under a small cap.

Sessions mix what agents do, one call in five each: web pages (untrusted), file reads and mail
reads (sensitive), file writes, posts (egress). Content is generated from a fixed seed (see
``_prose``): words, URLs, identifiers, numbers and random tokens.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import string
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns, Session, ToolCall, ToolResult
from cyclops.core.commonwords import COMMON_WORDS

VOCABULARY = sorted(COMMON_WORDS) + [
    "".join(random.Random(i).choices(string.ascii_lowercase, k=4 + i % 8)) for i in range(3000)
]


def _prose(rng: random.Random, size: int) -> str:
    """Text shaped like a web page, a mail or a source file turned to text.

    About 93% words (common English plus 3,000 made-up ones), 3% URLs, 2% identifiers with
    digits, 1% numbers, 1% random 24-character tokens (keys, hashes, ids).
    """
    out: list[str] = []
    length = 0
    while length < size:
        kind = rng.random()
        if kind < 0.93:
            piece = rng.choice(VOCABULARY)
        elif kind < 0.96:
            piece = f"https://{rng.choice(VOCABULARY)}.example.org/{rng.choice(VOCABULARY)}/{rng.randrange(10**6)}"
        elif kind < 0.98:
            piece = f"{rng.choice(VOCABULARY)}_{rng.choice(VOCABULARY)}{rng.randrange(100)}()"
        elif kind < 0.99:
            piece = str(rng.randrange(10**7))
        else:
            piece = "".join(rng.choices(string.ascii_letters + string.digits, k=24))
        out.append(piece)
        length += len(piece) + 1
    return " ".join(out)[:size]


def _step(rng: random.Random, i: int, size: int) -> tuple[ToolCall, ToolResult | None]:
    kind = i % 5
    if kind == 0:
        return ToolCall("fetch", "fetch", {"url": f"https://site{i}.example.org/p"}), ToolResult(
            (_prose(rng, size),)
        )
    if kind == 1:
        return ToolCall(
            "filesystem", "read_text_file", {"path": f"/home/u/src/mod{i}.py"}
        ), ToolResult((_prose(rng, size),))
    if kind == 2:
        return ToolCall("gmail", "read_email", {"id": str(i)}), ToolResult((_prose(rng, size),))
    if kind == 3:
        body = _prose(rng, 200)
        return ToolCall(
            "filesystem", "write_file", {"path": f"/tmp/out{i}.md", "content": body}
        ), ToolResult(("ok",))
    return ToolCall(
        "slack", "slack_post_message", {"channel_id": "C1", "text": _prose(rng, 300)}
    ), ToolResult(('{"ok":true}',))


def _feed(session: Session, steps: list[tuple[ToolCall, ToolResult | None]]) -> list[float]:
    costs = []
    for call, result in steps:
        start = time.perf_counter()
        decision = session.decide(call)
        if result is not None and decision.forwards:
            session.observe(decision.index, result)
        costs.append(time.perf_counter() - start)
    return costs


def _egress_cost(session: Session, rng: random.Random) -> float:
    call = ToolCall("slack", "slack_post_message", {"channel_id": "C1", "text": _prose(rng, 2048)})
    start = time.perf_counter()
    session.decide(call)
    return time.perf_counter() - start


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def session_length(patterns: Patterns, lengths: list[int]) -> None:
    print("\n1. Session length (2 KB results), per call: decide + observe")
    print(f"{'calls':>8} {'total s':>9} {'median µs':>10} {'p99 µs':>9} {'egress decision ms':>19}")
    medians = {}
    for n in lengths:
        rng = random.Random(7)
        steps = [_step(rng, i, 2048) for i in range(n)]
        session = Session(patterns, Mode.PREVENT)
        gc.collect()
        start = time.perf_counter()
        costs = _feed(session, steps)
        total = time.perf_counter() - start
        egress = statistics.median(_egress_cost(session, rng) for _ in range(20))
        medians[n] = statistics.median(costs)
        p99 = _p(costs, 0.99)
        row = f"{n:>8} {total:>9.2f} {medians[n] * 1e6:>10.0f} {p99 * 1e6:>9.0f}"
        print(f"{row} {egress * 1e3:>19.2f}")
    if len(lengths) > 1:
        ratio = medians[lengths[-1]] / medians[lengths[0]]
        print(f"per-call median at {lengths[-1]:,} calls / at {lengths[0]:,} calls: {ratio:.2f}x")


def payload_size(patterns: Patterns, sizes: list[int]) -> None:
    print("\n2. Payload size (one call after a 100-call session)")
    print(f"{'bytes':>9} {'egress argument ms':>19} {'untrusted result ms':>20}", end="")
    print(f" {'sensitive result ms':>20}")
    for size in sizes:
        rng = random.Random(size)
        session = Session(patterns, Mode.PREVENT)
        _feed(session, [_step(rng, i, 2048) for i in range(100)])
        text = _prose(rng, size)
        post = ToolCall("slack", "slack_post_message", {"channel_id": "C", "text": text})
        page = ToolCall("fetch", "fetch", {"url": "https://x.example/"})
        mail = ToolCall("gmail", "read_email", {"id": "1"})
        arg = _time(partial(session.decide, post))
        untrusted = _time(partial(_observe, session, page, text))
        sensitive = _time(partial(_observe, session, mail, text))
        print(f"{size:>9} {arg * 1e3:>19.2f} {untrusted * 1e3:>20.2f} {sensitive * 1e3:>20.2f}")


def _observe(session: Session, call: ToolCall, text: str) -> None:
    decision = session.decide(call)
    session.observe(decision.index, ToolResult((text,)))


def _time(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def memory(patterns: Patterns, calls: int, capped: int) -> None:
    print("\n3. Memory (tracemalloc peak of the session's own allocations)")
    for n, limits in (
        (calls, patterns.limits),
        (capped, replace(patterns.limits, max_calls=20_000, max_fingerprints=200_000)),
    ):
        rng = random.Random(11)
        session = Session(replace(patterns, limits=limits), Mode.PREVENT)
        gc.collect()
        tracemalloc.start()
        start = time.perf_counter()
        for i in range(n):
            _feed(session, [_step(rng, i, 2048)])
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        evicted = session.verdict().evicted
        print(
            f"{n:>8,} calls, max_calls={limits.max_calls:,}, "
            f"max_fingerprints={limits.max_fingerprints:,}: peak {peak / 2**20:.0f} MiB, "
            f"{elapsed:.1f} s under tracing; evicted {evicted.calls:,} calls, "
            f"{evicted.segments:,} indexed results"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args()
    patterns = load_patterns()
    print(f"cyclops core benchmark — Python {platform.python_version()} on {platform.machine()}")
    lengths = [100, 1_000] if args.quick else [100, 1_000, 10_000]
    sizes = [1024, 16_384] if args.quick else [1024, 16_384, 131_072, 1_048_576]
    session_length(patterns, lengths)
    payload_size(patterns, sizes)
    memory(patterns, 1_000 if args.quick else 10_000, 2_000 if args.quick else 100_000)


if __name__ == "__main__":
    main()
