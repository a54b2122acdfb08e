"""Detection quality of cyclops on the bench corpus (see corpus.py), in detect mode.

    python bench/quality.py [--seed N] [--n N] [--json FILE]

Per category: recall (toxic categories) or false-positive rate (benign, hard_negative), whether
the first flag came at the attack call, earlier (suspicious) or later, whether the flow class
matched, and for exfiltration categories the leaked bytes cyclops measured against the bytes the
attack really sent. Prints case names only, never their content. Always exits 0: this is a
measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus import CATEGORIES, Case, generate

from cyclops.config import load_patterns
from cyclops.core import Mode
from cyclops.replay import replay
from cyclops.trace import parse_trace

TARGETS = {"recall_min": 0.98, "false_positive_rate_max": 0.01, "leak_tolerance": 0.10}
Decisions = dict[str, list[dict[str, Any]]]


@dataclass
class Tally:
    """The figures of one category."""

    cases: int = 0
    detected: int = 0
    at_attack: int = 0
    early: int = 0
    late: int = 0
    class_match: int = 0
    within: int = 0
    ratios: list[float] = field(default_factory=list)
    classes: Counter[str] = field(default_factory=Counter)
    names: list[str] = field(default_factory=list)
    """Missed (toxic) or falsely flagged (benign) cases."""
    off_bytes: list[str] = field(default_factory=list)


def run(cases: list[Case]) -> tuple[Decisions, float, dict[str, str]]:
    """Every case's decision lines, the seconds the whole replay took, and any crashes."""
    patterns = load_patterns()
    records = parse_trace(json.dumps(r) for case in cases for r in case.records)
    decisions: Decisions = defaultdict(list)

    def emit(line: str) -> None:
        data = json.loads(line)
        decisions[data["session"]].append(data)

    start = time.perf_counter()
    try:
        replay(records, patterns, Mode.DETECT, emit)
    except Exception:  # noqa: BLE001 - a crash is a finding; find the case(s) one by one
        decisions.clear()
        crashes = run_one_by_one(cases, decisions)
        return decisions, time.perf_counter() - start, crashes
    return decisions, time.perf_counter() - start, {}


def run_one_by_one(cases: list[Case], decisions: Decisions) -> dict[str, str]:
    patterns, crashes = load_patterns(), {}
    for case in cases:

        def emit(line: str, name: str = case.name) -> None:
            decisions[name].append(json.loads(line))

        try:
            replay(parse_trace(json.dumps(r) for r in case.records), patterns, Mode.DETECT, emit)
        except Exception:  # noqa: BLE001 - reported, not hidden
            crashes[case.name] = traceback.format_exc()
    return crashes


def flagged(decision: dict[str, Any]) -> bool:
    return decision.get("decision") != "allow"


def score(cases: list[Case], decisions: Decisions) -> dict[str, Tally]:
    tallies = {category: Tally() for category in CATEGORIES}
    for case in cases:
        tally, calls = tallies[case.category], decisions.get(case.name, [])
        tally.cases += 1
        first = next((i for i, d in enumerate(calls) if flagged(d)), None)
        if first is not None:
            tally.detected += 1
        if (first is None) == case.toxic:
            tally.names.append(case.name)
        if case.toxic and first is not None:
            score_toxic(case, calls, first, tally)
        if case.secret_bytes:
            score_bytes(case, calls, tally)
    return tallies


def score_toxic(case: Case, calls: list[dict[str, Any]], first: int, tally: Tally) -> None:
    """Was the attack call flagged; did the first flag come earlier (suspicious) or too late?"""
    attack = case.attack_index if case.attack_index is not None else first
    attacked = attack < len(calls) and flagged(calls[attack])
    tally.at_attack += attacked
    tally.early += first < attack and not is_piece(case, first)
    tally.late += first > attack
    judged = calls[attack] if attacked else calls[first]
    tally.classes.update(judged.get("flows", []))
    tally.class_match += case.expected_class in judged.get("flows", [])


def is_piece(case: Case, index: int) -> bool:
    """In a split case, an earlier call to the same sink carries a piece: flagging it is fair."""
    if case.category != "split" or case.attack_index is None:
        return False
    call, attack = case.records[index], case.records[case.attack_index]
    return (call["server"], call["tool"]) == (attack["server"], attack["tool"])


def score_bytes(case: Case, calls: list[dict[str, Any]], tally: Tally) -> None:
    """Leaked bytes cyclops measured on the attack call(s), flagged or not, against the truth."""
    if not case.secret_bytes or case.attack_index is None:
        return
    if case.category == "split":
        leaked = sum(int(d.get("leaked_bytes", 0)) for d in calls)
    elif case.attack_index < len(calls):
        leaked = int(calls[case.attack_index].get("leaked_bytes", 0))
    else:
        leaked = 0
    ratio = leaked / case.secret_bytes
    tally.ratios.append(ratio)
    if abs(ratio - 1) <= 0.1:
        tally.within += 1
    else:
        tally.off_bytes.append(case.name)


def summary(tallies: dict[str, Tally]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for category, t in tallies.items():
        toxic = CATEGORIES[category][0] is not None
        row: dict[str, Any] = {"cases": t.cases, "detected": t.detected}
        row["recall" if toxic else "false_positive_rate"] = t.detected / t.cases if t.cases else 0
        row["missed" if toxic else "false_positives"] = t.names
        if toxic:
            row |= {"at_attack_call": t.at_attack, "early": t.early, "late": t.late}
            row |= {"class_match": t.class_match, "classes_seen": dict(t.classes)}
        if t.ratios:
            row |= {"leak_within_10pct": t.within / len(t.ratios), "outside_10pct": t.off_bytes}
            row["leak_median_ratio"] = statistics.median(t.ratios)
        out[category] = row
    return out


def pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def table(rows: dict[str, dict[str, Any]]) -> str:
    head = (
        f"{'category':<17}{'cases':>6}{'flagged':>8}  {'rate':>6} {'target':>7}"
        f"{'at-call':>8}{'early':>6}{'late':>5}{'class':>7}  {'leak±10%':>8} {'median':>7}"
    )
    lines = [head, "-" * len(head)]
    for category, r in rows.items():
        toxic = "recall" in r
        rate = pct(r["recall"] if toxic else r["false_positive_rate"])
        target = "≥ 98%" if toxic else "≤ 1%"
        line = f"{category:<17}{r['cases']:>6}{r['detected']:>8}  {rate:>6} {target:>7}"
        if toxic:
            line += f"{r['at_attack_call']:>8}{r['early']:>6}{r['late']:>5}{r['class_match']:>7}"
        if "leak_within_10pct" in r:
            line += f"  {pct(r['leak_within_10pct']):>8} {r['leak_median_ratio']:>7.2f}"
        lines.append(line)
    lines.append(
        "targets: recall ≥ 98%, false positives ≤ 1%, leaked bytes within ±10% of the truth"
    )
    return "\n".join(lines)


def names_report(rows: dict[str, dict[str, Any]], crashes: dict[str, str]) -> str:
    lines = []
    for category, r in rows.items():
        for key in ("missed", "false_positives", "outside_10pct"):
            if r.get(key):
                lines.append(f"{category} {key.replace('_', ' ')}: {' '.join(r[key])}")
        if r.get("classes_seen"):
            lines.append(f"{category} flow classes at the judged call: {r['classes_seen']}")
    lines += [f"CRASH {name}:\n{trace}" for name, trace in crashes.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cyclops detection quality on the bench corpus")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n", type=int, default=360)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    cases = generate(args.seed, args.n)
    decisions, seconds, crashes = run(cases)
    rows = summary(score(cases, decisions))
    calls = sum(len(c.records) for c in cases)
    print(f"cyclops on the bench corpus: seed {args.seed}, {len(cases)} cases, {calls} calls")
    print(f"replay took {seconds:.2f} s ({1e6 * seconds / max(calls, 1):.0f} µs per call)\n")
    print(table(rows))
    print("\n" + (names_report(rows, crashes) or "no misses, no false positives"))
    if args.json:
        data = {"seed": args.seed, "cases": len(cases), "calls": calls, "seconds": seconds}
        data |= {"targets": TARGETS, "categories": rows, "crashes": sorted(crashes)}
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
