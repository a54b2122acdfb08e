"""``cyclops scan`` and ``cyclops wrap``: a host's MCP servers judged before anything runs.

A scan labels every tool (patterns.toml first, a conservative guess where no rule covers it),
builds the capability graph — private stores → readers → the agent's context → writers → public
sinks, untrusted sources → the context — counts and lists the leak routes through it, finds the
minimum cut that closes them all, and checks the cut by searching again (the receipt).

The analysis (:mod:`.labels`, :mod:`.graph`, :mod:`.analysis`, :mod:`.render`, :mod:`.policy`)
is pure; :mod:`.live` starts servers, :mod:`.wrap` and :mod:`.command` touch files.
"""

from .analysis import RuntimeRule, ScanResult, ScanWarning, WarningKind, scan
from .cut import CutSide, Task, TieBreak
from .graph import Direction, Grant
from .snapshot import ServerTools, Snapshot, ToolSpec, dump_snapshot, parse_snapshot

__all__ = [
    "CutSide",
    "Direction",
    "Grant",
    "RuntimeRule",
    "ScanResult",
    "ScanWarning",
    "ServerTools",
    "Snapshot",
    "Task",
    "TieBreak",
    "ToolSpec",
    "WarningKind",
    "dump_snapshot",
    "parse_snapshot",
    "scan",
]
