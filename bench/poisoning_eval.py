"""Tool poisoning: which descriptions make their server hostile, honest and poisoned.

    python bench/poisoning_eval.py [--patterns FILE] [--show]

Reads ``bench/poisoning/``:

- ``honest_servers.jsonl.gz``: the descriptions (and instructions) of 128 real MCP servers from
  npm and PyPI, as their ``tools/list`` gave them (see ``poisoning/SOURCES.md``); each server
  is judged whole, its own tools known, as the proxy judges it;
- ``poisoned_*.txt``: marker-free poisoned descriptions, one per line (``a``: ours; ``b``,
  ``c``, ``d``: written by others to the MCPTox paradigms, without seeing the detector);
- ``honest_*.txt``: honest descriptions written to look like attacks, one per line, judged
  twice: alone (no sibling tool known: the worst case) and with the tool names each mentions
  taken as its server's own.

Each line is judged as the only tool of its server. Prints a table; ``--show`` names what was
missed and what was wrongly made hostile. Exits 0.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from cyclops.config import load_patterns
from cyclops.core import Patterns
from cyclops.core.pins import instructing_texts

HERE = Path(__file__).parent / "poisoning"
_NAMES = re.compile(r"\b[a-z0-9]+(?:[_-][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _hostile(patterns: Patterns, description: str, siblings: frozenset[str] = frozenset()) -> bool:
    tools = [{"name": "t", "description": description}]
    tools += [{"name": name, "description": ""} for name in sorted(siblings)]
    return bool(instructing_texts(patterns, tools, None))


def real_servers() -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """The honest corpus: each server's tools (name, description) and its instructions."""
    servers: dict[str, list[dict[str, Any]]] = defaultdict(list)
    instructions: dict[str, str] = {}
    with gzip.open(HERE / "honest_servers.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["tool"] == "__instructions__":
                instructions[row["server"]] = row["description"]
            else:
                servers[row["server"]].append({"name": row["tool"], **row})
    return servers, instructions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patterns", type=Path)
    parser.add_argument("--show", action="store_true", help="name what was missed or made hostile")
    args = parser.parse_args()
    patterns = load_patterns(args.patterns)

    servers, instructions = real_servers()
    descriptions = sum(map(len, servers.values())) + len(instructions)
    hostile_servers = [
        server
        for server, tools in sorted(servers.items())
        if instructing_texts(patterns, tools, instructions.get(server))
    ]
    print(f"{'set':<34}{'lines':>7}{'hostile':>9}")
    print("-" * 50)
    real = f"real servers ({len(servers)})"
    print(f"{real:<34}{descriptions:>7}{len(hostile_servers):>9}")
    shown: list[str] = [f"  hostile server: {s}" for s in hostile_servers]
    for path in sorted(HERE.glob("poisoned_*.txt")):
        lines = _lines(path)
        missed = [line for line in lines if not _hostile(patterns, line)]
        print(f"{path.name:<34}{len(lines):>7}{len(lines) - len(missed):>9}")
        shown += [f"  missed ({path.name}): {line[:150]}" for line in missed]
    for path in sorted(HERE.glob("honest_*.txt")):
        lines = _lines(path)
        alone = [line for line in lines if _hostile(patterns, line)]
        known = [d for d in alone if _hostile(patterns, d, frozenset(_NAMES.findall(d)))]
        print(f"{path.name + ' (alone)':<34}{len(lines):>7}{len(alone):>9}")
        print(f"{path.name + ' (named tools its own)':<34}{len(lines):>7}{len(known):>9}")
        shown += [f"  hostile ({path.name}): {line[:150]}" for line in alone]
    if args.show:
        print("\n".join(shown))


if __name__ == "__main__":
    main()
