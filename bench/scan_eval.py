"""Evaluate `cyclops scan` on the seeded cases of scan_cases.py, and time it.

    python bench/scan_eval.py [--seed 2026] [--runs 50] [--json figures.json]

Required, per the issue: every planted leak found; every cut closes all routes (receipt 0) with
the expected grants; clean configurations give an empty cut and no warnings; a 40-tool config
that chains through the hub is scanned in at most 2 s (server start-up not counted: the scan
reads a snapshot). Also checked: no route the oracle does not expect, the tie-break, the labels
and the self-contained tools. Exits 1 if a required check fails.

Timings (medians): ``scan()`` alone; the whole in-process pipeline after the servers are listed
(patterns parsed, snapshot parsed, scan, text report and JSON); and the ``cyclops scan --tools``
command, process start-up included.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import cpu_model, usable_cores
from scan_cases import Case, generate, sized_config

from cyclops.core.patterns import Patterns, parse_patterns
from cyclops.core.types import Capability
from cyclops.scan.analysis import ScanResult, WarningKind, scan
from cyclops.scan.render import text_report, to_json
from cyclops.scan.snapshot import parse_snapshot
from cyclops.scan.tasks import parse_tasks

LIMIT_SECONDS = 2.0


@dataclass
class Outcome:
    case: Case
    found_all: bool
    no_extra: bool
    cut_ok: bool
    receipt_ok: bool
    clean_ok: bool
    tie_ok: bool
    labels_ok: bool
    self_contained_ok: bool
    problems: list[str] = field(default_factory=list)

    @property
    def required(self) -> bool:
        return self.found_all and self.cut_ok and self.receipt_ok and self.clean_ok


def run_case(case: Case, patterns: Patterns) -> tuple[Outcome, ScanResult]:
    snapshot = parse_snapshot(json.dumps(case.snapshot()), case.name)
    tools = [Capability(s.name, t.name) for s in snapshot.servers for t in s.tools]
    tasks = parse_tasks(case.tasks_toml(), case.name, tools) if case.tasks else ()
    result = scan(snapshot, patterns, tasks, source=case.name, limit=0)
    found = {(str(r), str(w)) for g in result.routes.groups for r in g.readers for w in g.writers}
    grants = tuple(str(g) for g in result.cut.grants)
    labels = {
        str(t.capability): frozenset(x.value for x in t.labels) for t in result.labelling.tools
    }
    clean = not case.routes and not case.self_contained
    outcome = Outcome(
        case=case,
        found_all=case.routes <= found and result.routes.count == len(found),
        no_extra=found <= case.routes,
        cut_ok=sorted(grants) == sorted(case.cut.grants)
        and result.cut.chosen.side.value == case.cut.side,
        receipt_ok=result.receipt.count == 0,
        clean_ok=(not result.cut.grants and not result.warnings) if clean else True,
        tie_ok=result.cut.tie_break.value == case.cut.tie_break,
        labels_ok=labels == case.labels,
        self_contained_ok=tuple(str(c) for c in result.self_contained) == case.self_contained,
    )
    if not outcome.found_all:
        outcome.problems.append(f"missed routes: {sorted(case.routes - found)[:3]}")
    if not outcome.no_extra:
        outcome.problems.append(f"unexpected routes: {sorted(found - case.routes)[:3]}")
    if not outcome.cut_ok:
        outcome.problems.append(f"cut {grants} expected {case.cut.grants}")
    if not outcome.labels_ok:
        wrong = sorted(k for k in labels if labels[k] != case.labels.get(k))
        outcome.problems.append(f"labels differ: {wrong[:3]}")
    if not outcome.tie_ok:
        outcome.problems.append(
            f"tie-break {result.cut.tie_break.value}, expected {case.cut.tie_break}"
        )
    if clean and result.warnings:
        outcome.problems.append(
            f"warnings on a clean config: {[w.kind.value for w in result.warnings]}"
        )
    if case.routes and WarningKind.LEAK_ROUTES not in {w.kind for w in result.warnings}:
        outcome.problems.append("no leak-route warning")
    return outcome, result


def machine() -> str:
    """The CPU model and the cores this process may use."""
    return f"{cpu_model()}, {usable_cores()} cores"


def median_seconds(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timings(patterns_text: str, runs: int) -> dict[str, Any]:
    patterns = parse_patterns(patterns_text, "bundled")
    figures: dict[str, Any] = {}
    for size in (40, 400, 4000):
        case = sized_config(size)
        snapshot_text = json.dumps(case.snapshot())
        snapshot = parse_snapshot(snapshot_text, case.name)
        result = scan(snapshot, patterns)

        def pipeline(text: str = snapshot_text, name: str = case.name) -> None:
            parsed = parse_snapshot(text, name)
            done = scan(parsed, parse_patterns(patterns_text, "bundled"))
            text_report(done)
            json.dumps(to_json(done))

        n = runs if size <= 400 else max(runs // 10, 3)
        n_runs = n
        figures[str(size)] = {
            "tools": case.tool_count,
            "routes": result.routes.count,
            "cut_grants": len(result.cut.grants),
            "receipt": result.receipt.count,
            "scan_median_s": median_seconds(partial(scan, snapshot, patterns), n_runs),
            "pipeline_median_s": median_seconds(pipeline, n_runs),
        }
    case = sized_config(40)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tools.json"
        path.write_text(json.dumps(case.snapshot()))
        scan_command = [sys.executable, "-m", "cyclops", "scan", "--tools", str(path)]
        bare_command = [sys.executable, "-m", "cyclops", "--version"]
        scans: list[float] = []
        bare: list[float] = []
        for _ in range(max(runs // 5, 5)):  # interleaved, so that both see the same load
            for command, times in ((scan_command, scans), (bare_command, bare)):
                start = time.perf_counter()
                subprocess.run(command, capture_output=True, check=False)
                times.append(time.perf_counter() - start)
        figures["40"]["cli_median_s"] = statistics.median(scans)
        figures["40"]["cli_startup_median_s"] = statistics.median(bare)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--runs", type=int, default=50, help="timing runs (medians)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    patterns_text = resources.files("cyclops").joinpath("patterns.toml").read_text("utf-8")
    patterns = parse_patterns(patterns_text, "bundled")
    cases = generate(args.seed)
    outcomes = [run_case(case, patterns)[0] for case in cases]

    print(f"cyclops scan evaluation: {len(cases)} cases, seed {args.seed}")
    print(
        f"{'category':<16}{'cases':>6}{'leaks found':>13}{'no extra':>10}{'cut':>6}"
        f"{'receipt 0':>11}{'clean':>7}{'tie':>6}{'labels':>8}"
    )
    categories = sorted({o.case.category for o in outcomes})
    for category in [*categories, "all"]:
        rows = [o for o in outcomes if category in ("all", o.case.category)]

        def count(attribute: str, rows: list[Outcome] = rows) -> str:
            return f"{sum(getattr(o, attribute) for o in rows)}/{len(rows)}"

        print(
            f"{category:<16}{len(rows):>6}{count('found_all'):>13}{count('no_extra'):>10}"
            f"{count('cut_ok'):>6}{count('receipt_ok'):>11}{count('clean_ok'):>7}"
            f"{count('tie_ok'):>6}{count('labels_ok'):>8}"
        )
    planted = sum(len(o.case.routes) for o in outcomes)
    found = sum(len(o.case.routes) for o in outcomes if o.found_all)
    print(f"planted routes: {planted}, found: {found}")
    for outcome in outcomes:
        if outcome.problems:
            print(f"  {outcome.case.name}: {'; '.join(outcome.problems)}")

    figures = timings(patterns_text, args.runs)
    print(
        f"\ntiming on {machine()}, Python {platform.python_version()} ({args.runs} runs, medians):"
    )
    for row in figures.values():
        line = (
            f"  {row['tools']:>5} tools, {row['routes']:>8} routes, cut {row['cut_grants']:>4}: "
            f"scan {row['scan_median_s'] * 1000:8.1f} ms, with patterns, snapshot and "
            f"reports {row['pipeline_median_s'] * 1000:8.1f} ms"
        )
        print(line)
    forty = figures["40"]
    print(
        f"  the whole `cyclops scan --tools` process on 40 tools: {forty['cli_median_s']:.2f} s, "
        f"of which starting cyclops (`cyclops --version`: Python and the imports) "
        f"{forty['cli_startup_median_s']:.2f} s"
    )
    within = forty["pipeline_median_s"] <= LIMIT_SECONDS
    passed = all(o.required for o in outcomes) and within
    print(
        f"\nrequired checks: {'PASS' if passed else 'FAIL'} "
        f"({sum(o.required for o in outcomes)}/{len(outcomes)} cases; 40-tool scan "
        f"{'within' if within else 'over'} {LIMIT_SECONDS:g} s)"
    )
    if args.json is not None:
        summary = {
            "seed": args.seed,
            "cases": len(cases),
            "required_pass": sum(o.required for o in outcomes),
            "all_checks_pass": sum(not o.problems for o in outcomes),
            "planted_routes": planted,
            "timings": figures,
        }
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
