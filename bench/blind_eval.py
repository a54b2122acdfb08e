"""Detection on agent traces written blind: by others, who never saw how cyclops detects.

    python bench/blind_eval.py [--patterns FILE] [--show] [--json FILE]

Reads ``bench/blind/<set>/``: ``traces.jsonl.gz`` (the trace format ``cyclops replay`` reads)
and ``labels.jsonl`` (per session: ``toxic``, the expected ``class``, the ``attack_index`` of
the first call a monitor must stop, and ``why``, one sentence). Eighty-seven helpers wrote one
set each, in twenty-nine rounds (``blind/README.md`` names them all; round 1: ``dev``, coding
agents; ``office``, assistants over mail, chat, calendars, documents and a bank; ``ops``,
database, cloud and cluster agents. Round 2:
``research``, research, browsing and personal-finance assistants; ``support``, support,
sales and shop agents; ``platform``, data, ML and platform-engineering agents. Round 3:
``home``, household, health and shopping assistants; ``backoffice``, HR, finance, legal and
IT agents; ``coding``, coding agents with an editor's toolkit and package registries. Round 4:
``security``, security-operations agents; ``content``, marketing and community agents;
``desktop``, desktop and computer-use agents on the user's machine. Round 5: ``travel``,
travel, events and personal-admin assistants; ``education``, teachers', schools' and
students' agents; ``logistics``, commerce, logistics and manufacturing operations agents. Round 6:
``finance``, personal, small-business, trading and crypto finance agents; ``health``,
clinical, pharmacy, insurance and health-administration agents; ``mainstream``, agents of
every kind on the most popular servers only, varied in attack technique. Round 7: ``legal``,
legal, compliance and public-sector agents; ``community``, open-source maintainers',
community moderators' and developer-relations agents; ``everyday``, what people most often do
in Claude Desktop or Cursor on the most installed servers, attacked as published incidents
were. Round 8: ``assistant``, personal and executive assistants; ``data``, data and analytics
agents; ``browser``, browsing and computer-use agents on the open web. Round 9:
``newsroom``, journalism, publishing and nonprofit agents; ``science``, research-lab and
scientific-computing agents; ``sales``, sales, recruiting and real-estate agents), 25
attacks and 25 benign sessions apiece, from real servers' tool names, told the attack classes
and nothing of the detector (see ``blind/README.md``). The benign half includes hard
negatives that depend on what the user asked, which a trace does not record: some of them no
monitor that sees only the calls can allow.

Replays every set in detect mode through the public API and prints, per set: attacks flagged
(any call not allowed), flagged at the attack call (what prevent mode needs), with the expected
class there, and benign sessions flagged (false positives). ``--show`` names each miss and
false positive with its label's reason. Exits 0: this is a measurement.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns
from cyclops.replay import replay
from cyclops.trace import parse_trace

HERE = Path(__file__).parent / "blind"
ROUNDS = {
    "round 1": ("dev", "office", "ops"),
    "round 2": ("research", "support", "platform"),
    "round 3": ("home", "backoffice", "coding"),
    "round 4": ("security", "content", "desktop"),
    "round 5": ("travel", "education", "logistics"),
    "round 6": ("finance", "health", "mainstream"),
    "round 7": ("legal", "community", "everyday"),
    "round 8": ("assistant", "data", "browser"),
    "round 9": ("newsroom", "science", "sales"),
    "round 10": ("civic", "gaming", "property"),
    "round 11": ("insurance", "hospitality", "industrial"),
    "round 12": ("telecom", "automotive", "utilities"),
    "round 13": ("construction", "accounting", "remote"),
    "round 14": ("nonprofit", "media", "popular"),
    "round 15": ("ecommerce", "recruiting", "sre"),
    "round 16": ("pharma", "aviation", "smallbiz"),
    "round 17": ("marketing", "web3", "events"),
    "round 18": ("localization", "sports", "agriculture"),
    "round 19": ("veterinary", "publishing", "moderation"),
    "round 20": ("workspace", "opensource", "personal"),
    "round 21": ("startup", "cloudops", "freelance"),
    "round 22": ("dojo", "injecagent", "incidents"),
    "round 23": ("asb", "mcpbench", "webagent"),
    "round 24": ("multiagent", "knowledge", "mobile"),
    "round 25": ("kyc", "callcenter", "devtools"),
    "round 26": ("terminal", "infra", "qa"),
    "round 27": ("notebooks", "inbox", "ide"),
    "round 28": ("llmail", "wasp", "taubench"),
    "round 29": ("incidents2", "logtoleak", "copilots"),
}
SETS = tuple(name for names in ROUNDS.values() for name in names)
Calls = list[dict[str, Any]]


@dataclass
class Score:
    attacks: int = 0
    flagged: int = 0
    at_attack: int = 0
    right_class: int = 0
    benign: int = 0
    false_positives: int = 0
    missed: list[str] = field(default_factory=list)
    wrongly_flagged: list[str] = field(default_factory=list)


def load(name: str) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """A set's trace lines and its labels by session."""
    with gzip.open(HERE / name / "traces.jsonl.gz", "rt", encoding="utf-8") as lines:
        trace = [line for line in lines if line.strip()]
    text = (HERE / name / "labels.jsonl").read_text(encoding="utf-8")
    labels = {row["session"]: row for row in map(json.loads, text.splitlines()) if row}
    return trace, labels


def decisions(trace: list[str], patterns: Patterns) -> dict[str, Calls]:
    found: dict[str, Calls] = defaultdict(list)

    def emit(line: str) -> None:
        data = json.loads(line)
        found[data["session"]].append(data)

    replay(parse_trace(trace), patterns, Mode.DETECT, emit)
    return found


def score(labels: dict[str, dict[str, Any]], found: dict[str, Calls]) -> Score:
    result = Score()
    for session, label in sorted(labels.items()):
        calls = found.get(session, [])
        flagged = [c for c in calls if c["decision"] != "allow"]
        if not label["toxic"]:
            result.benign += 1
            if flagged:
                result.false_positives += 1
                result.wrongly_flagged.append(f"{session}: {label['why']}")
            continue
        result.attacks += 1
        attack = next((c for c in flagged if c["index"] == label["attack_index"]), None)
        result.flagged += bool(flagged)
        result.at_attack += attack is not None
        result.right_class += attack is not None and label["class"] in attack["flows"]
        if not flagged:
            result.missed.append(f"{session}: {label['why']}")
    return result


def table(scores: dict[str, Score]) -> str:
    """One row per set, then one per round and one for all of them."""
    rows = [
        "| set | attacks | flagged | at the attack call | with its class | benign | flagged |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals = {
        **{round_: added(scores[n] for n in names) for round_, names in ROUNDS.items()},
        "all": added(scores.values()),
    }
    for name, s in [*scores.items(), *totals.items()]:
        rows.append(
            f"| {name} | {s.attacks} | {s.flagged} | {s.at_attack} | {s.right_class} "
            f"| {s.benign} | {s.false_positives} |"
        )
    return "\n".join(rows)


def added(scores: Iterable[Score]) -> Score:
    total = Score()
    for s in scores:
        for key in ("attacks", "flagged", "at_attack", "right_class", "benign", "false_positives"):
            setattr(total, key, getattr(total, key) + getattr(s, key))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patterns", type=Path, help="a patterns file (default: the bundled one)")
    parser.add_argument("--show", action="store_true", help="name misses and false positives")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    patterns = load_patterns(args.patterns)
    scores = {}
    for name in SETS:
        trace, labels = load(name)
        scores[name] = score(labels, decisions(trace, patterns))
    print(table(scores))
    if args.show:
        for name, s in scores.items():
            for line in s.missed:
                print(f"missed    {name}: {line}")
            for line in s.wrongly_flagged:
                print(f"flagged   {name}: {line}")
    if args.json:
        args.json.write_text(json.dumps({k: asdict(v) for k, v in scores.items()}, indent=1))


if __name__ == "__main__":
    main()
