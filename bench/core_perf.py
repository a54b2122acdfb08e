"""Speed and memory of the detection core, fed in-process (no proxy, no I/O).

    python bench/core_perf.py [--quick]
    python bench/core_perf.py --feed N      # N calls of one session: seconds and a digest

Measures, in one run:
1. feeding sessions of 100 / 1,000 / 10,000 calls with 2 KB results: total time, per-call median
   and p99, and the cost of one egress decision at the end of the session;
2. one call's cost against its payload size (1 KB to 1 MB), argument and result;
3. peak memory of a 10,000-call session, and of a 100,000-call session under a small cap, each
   in a fresh process (peak RSS minus the baseline before the session).

Sessions mix what agents do, one call in five each: web pages (untrusted), file reads and mail
reads (sensitive), file writes, posts (egress). The text is real: windows of the Python
documentation (``pydoc_data.topics``, 465 KB of English technical prose) for pages, mails and
posts, and of the standard library's source for files, picked with a fixed seed.

``--feed N`` only feeds the first N calls of one such session (seed 2026) and prints the seconds
it took and a digest of the decisions (action, flow classes, leaked bytes), so that two builds
can be compared call by call; under ``valgrind --tool=cachegrind`` it gives their instruction
counts (see docs/benchmarks.md). ``--feed N --by-kind`` also says where the time went: for each
of the five kinds of call, the seconds spent deciding it and reading its result, and medians.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import inspect
import json
import platform
import pydoc_data.topics
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns, Session, ToolCall, ToolResult

PROSE = "\n".join(pydoc_data.topics.topics.values())
CODE = "\n".join(inspect.getsource(m) for m in (argparse, json, random, statistics, inspect))
# Pages, mails and posts come from disjoint thirds of the prose: in a real session they are
# different texts (an agent's post copying a private mail is what detection is for).
_THIRD = len(PROSE) // 3
PAGES, MAILS, POSTS = (PROSE[i * _THIRD : (i + 1) * _THIRD] for i in range(3))

Step = tuple[ToolCall, ToolResult]
# Detect mode forwards every call, so every result is fed. In prevent mode the circuit breaker
# denies every egress call after five denials, and a denied call has no result: most pages
# would never reach the index.
MODE = Mode.DETECT


def _window(rng: random.Random, corpus: str, size: int) -> str:
    start = rng.randrange(0, len(corpus) - size)
    return corpus[start : start + size]


def _page(rng: random.Random, size: int) -> str:
    link = f"https://docs.example.org/{rng.randrange(10**6)}/reference.html"
    return f"{_window(rng, PAGES, size - len(link) - 1)} {link}"


def _mail(rng: random.Random, size: int) -> str:
    sender = f"From: {rng.choice(['dana', 'kai', 'li'])}{rng.randrange(100)}@partner.example\n"
    return sender + _window(rng, MAILS, size - len(sender))


def _step(rng: random.Random, i: int, size: int) -> Step:
    kind = i % 5
    if kind == 0:
        call = ToolCall("fetch", "fetch", {"url": f"https://site{i}.example.org/p"})
        return call, ToolResult((_page(rng, size),))
    if kind == 1:
        call = ToolCall("filesystem", "read_text_file", {"path": f"/home/u/src/mod{i}.py"})
        return call, ToolResult((_window(rng, CODE, size),))
    if kind == 2:
        call = ToolCall("gmail", "read_email", {"id": str(i)})
        return call, ToolResult((_mail(rng, size),))
    if kind == 3:
        args = {"path": f"/tmp/out{i}.py", "content": _window(rng, CODE, 200)}
        return ToolCall("filesystem", "write_file", args), ToolResult(("ok",))
    args = {"channel_id": "C1", "text": _window(rng, POSTS, 300)}
    return ToolCall("slack", "slack_post_message", args), ToolResult(('{"ok":true}',))


def _feed(session: Session, steps: list[Step]) -> list[float]:
    costs = []
    for call, result in steps:
        start = time.perf_counter()
        decision = session.decide(call)
        assert decision.forwards, "the bench feeds every result (detect mode)"
        session.observe(decision.index, result)
        costs.append(time.perf_counter() - start)
    return costs


KINDS = ("fetch a page", "read a file", "read a mail", "write a file", "post")
"""What ``_step`` makes of call ``i``, by ``i % 5``."""


def feed(patterns: Patterns, n: int, by_kind: bool = False) -> None:
    """Feed the first ``n`` calls of one session; print the seconds and the decisions' digest
    (and, ``by_kind``, where the time went)."""
    rng = random.Random(2026)
    steps = [_step(rng, i, 2048) for i in range(n)]
    session, digest = Session(patterns, MODE), hashlib.sha256()
    deciding: list[list[float]] = [[] for _ in KINDS]
    reading: list[list[float]] = [[] for _ in KINDS]
    start = time.perf_counter()
    for i, (call, result) in enumerate(steps):
        before = time.perf_counter() if by_kind else 0.0
        decision = session.decide(call)
        decided = time.perf_counter() if by_kind else 0.0
        session.observe(decision.index, result)
        if by_kind:
            deciding[i % 5].append(decided - before)
            reading[i % 5].append(time.perf_counter() - decided)
        flows = [f.flow_class.value for f in decision.flows]
        digest.update(f"{decision.action.value}|{flows}|{decision.leaked_bytes}\n".encode())
    seconds = time.perf_counter() - start
    verdict = session.verdict()
    print(
        f"{n} calls in {seconds:.2f} s; digest {digest.hexdigest()[:16]}, "
        f"{verdict.leaked_bytes} bytes leaked, {verdict.metrics.flagged} flagged"
    )
    if by_kind:
        print(f"{'call':<14}{'decide s':>9}{'median µs':>11}{'read s':>9}{'median µs':>11}")
        for kind, decide_s, read_s in zip(KINDS, deciding, reading, strict=True):
            print(
                f"{kind:<14}{sum(decide_s):>9.2f}{statistics.median(decide_s) * 1e6:>11.0f}"
                f"{sum(read_s):>9.2f}{statistics.median(read_s) * 1e6:>11.0f}"
            )


def _egress_cost(session: Session, rng: random.Random) -> float:
    args = {"channel_id": "C1", "text": _window(rng, POSTS, 2048)}
    return _time(partial(session.decide, ToolCall("slack", "slack_post_message", args)))


def _time(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def session_length(patterns: Patterns, lengths: list[int]) -> dict[str, object]:
    print("\n1. Session length (2 KB results), per call: decide + observe")
    print(f"{'calls':>8} {'total s':>9} {'median µs':>10} {'p99 µs':>9} {'egress decision ms':>19}")
    rows = {}
    for n in lengths:
        rng = random.Random(7)
        steps = [_step(rng, i, 2048) for i in range(n)]
        session = Session(patterns, MODE)
        gc.collect()
        start = time.perf_counter()
        costs = _feed(session, steps)
        total = time.perf_counter() - start
        egress = statistics.median(_egress_cost(session, rng) for _ in range(21))
        row = {
            "total_s": total,
            "median_us": statistics.median(costs) * 1e6,
            "p99_us": _p(costs, 0.99) * 1e6,
            "egress_ms": egress * 1e3,
        }
        rows[n] = row
        print(f"{n:>8} {total:>9.2f} {row['median_us']:>10.0f} {row['p99_us']:>9.0f}", end="")
        print(f" {row['egress_ms']:>19.2f}")
    first, last = min(rows), max(rows)
    ratio = rows[last]["median_us"] / rows[first]["median_us"]
    print(f"per-call median at {last:,} calls / at {first:,} calls: {ratio:.2f}x")
    return {"rows": rows, "median_ratio": ratio}


def payload_size(patterns: Patterns, sizes: list[int]) -> dict[int, dict[str, float]]:
    print("\n2. Payload size (one call after a 100-call session)")
    print(f"{'bytes':>9} {'egress argument ms':>19} {'untrusted result ms':>20}", end="")
    print(f" {'sensitive result ms':>20}")
    rows = {}
    for size in sizes:
        rng = random.Random(size)
        session = Session(patterns, MODE)
        _feed(session, [_step(rng, i, 2048) for i in range(100)])
        text = (POSTS * (1 + size // len(POSTS)))[:size]
        post = ToolCall("slack", "slack_post_message", {"channel_id": "C", "text": text})
        page = ToolCall("fetch", "fetch", {"url": "https://x.example/"})
        mail = ToolCall("gmail", "read_email", {"id": "1"})
        row = {
            "egress_argument_ms": _time(partial(session.decide, post)) * 1e3,
            "untrusted_result_ms": _time(partial(_observe, session, page, text)) * 1e3,
            "sensitive_result_ms": _time(partial(_observe, session, mail, text)) * 1e3,
        }
        rows[size] = row
        print(
            f"{size:>9} {row['egress_argument_ms']:>19.2f} {row['untrusted_result_ms']:>20.2f}",
            end="",
        )
        print(f" {row['sensitive_result_ms']:>20.2f}")
    return rows


def _observe(session: Session, call: ToolCall, text: str) -> None:
    decision = session.decide(call)
    session.observe(decision.index, ToolResult((text,)))


def memory(calls: int, capped: int) -> list[dict[str, float]]:
    """Peak resident memory of a fresh interpreter feeding one session (minus its baseline)."""
    print("\n3. Memory (peak RSS of a fresh process feeding one session, minus its baseline)")
    rows = []
    for n, cap in ((calls, None), (capped, (20_000, 200_000))):
        command = [sys.executable, __file__, "--memory-child", str(n)]
        if cap is not None:
            command += ["--cap", str(cap[0]), str(cap[1])]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        row = json.loads(done.stdout)
        rows.append(row)
        print(
            f"{n:>8,} calls, max_calls={row['max_calls']:,.0f}, "
            f"max_fingerprints={row['max_fingerprints']:,.0f}: {row['peak_mib']:.0f} MiB "
            f"({row['seconds']:.1f} s); evicted {row['evicted_calls']:,.0f} calls, "
            f"{row['evicted_segments']:,.0f} indexed results"
        )
    return rows


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _memory_child(n: int, cap: list[int] | None) -> None:
    patterns = load_patterns()
    if cap:
        limits = replace(patterns.limits, max_calls=cap[0], max_fingerprints=cap[1])
        patterns = replace(patterns, limits=limits)
    session = Session(patterns, MODE)
    rng = random.Random(11)
    gc.collect()
    baseline = _status_kib("VmRSS")
    start = time.perf_counter()
    for i in range(n):
        _feed(session, [_step(rng, i, 2048)])
    seconds = time.perf_counter() - start
    # VmHWM, not getrusage's ru_maxrss: the latter survives exec and would start at the
    # benchmark parent's own peak.
    peak = _status_kib("VmHWM")
    evicted = session.verdict().evicted
    print(
        json.dumps(
            {
                "calls": n,
                "max_calls": patterns.limits.max_calls,
                "max_fingerprints": patterns.limits.max_fingerprints,
                "peak_mib": (peak - baseline) / 1024,
                "seconds": seconds,
                "evicted_calls": evicted.calls,
                "evicted_segments": evicted.segments,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--feed", type=int, metavar="N", help="only feed N calls (a digest)")
    parser.add_argument(
        "--by-kind", action="store_true", help="with --feed: the time per kind of call"
    )
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cap", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        _memory_child(args.memory_child, args.cap)
        return
    patterns = load_patterns()
    if args.feed:
        feed(patterns, args.feed, args.by_kind)
        return
    print(f"cyclops core benchmark — Python {platform.python_version()} on {platform.machine()}")
    lengths = [100, 1_000] if args.quick else [100, 1_000, 10_000]
    sizes = [1024, 16_384] if args.quick else [1024, 16_384, 131_072, 1_048_576]
    figures = {
        "session_length": session_length(patterns, lengths),
        "payload_size": payload_size(patterns, sizes),
        "memory": memory(1_000 if args.quick else 10_000, 2_000 if args.quick else 100_000),
    }
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
