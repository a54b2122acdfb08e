"""The detection core: pure, synchronous, sans-I/O.

Fed calls and results, it returns decisions and a verdict. Nothing in here awaits, opens a
socket or a file, reads a clock or logs; time and configuration text are passed in.
"""

from .patterns import Patterns, parse_patterns
from .session import Session
from .tomlreader import ConfigError
from .types import (
    Action,
    Capability,
    ChainLink,
    ControlFinding,
    ControlKind,
    Decision,
    Evidence,
    EvidenceKind,
    Flow,
    FlowClass,
    Label,
    Mode,
    Owasp,
    Reason,
    Severity,
    ToolCall,
    ToolResult,
)
from .verdict import ControlEvent, Eviction, Metrics, Verdict

__all__ = [
    "Action",
    "Capability",
    "ChainLink",
    "ConfigError",
    "ControlEvent",
    "ControlFinding",
    "ControlKind",
    "Decision",
    "Eviction",
    "Evidence",
    "EvidenceKind",
    "Flow",
    "FlowClass",
    "Label",
    "Metrics",
    "Mode",
    "Owasp",
    "Patterns",
    "Reason",
    "Session",
    "Severity",
    "ToolCall",
    "ToolResult",
    "Verdict",
    "parse_patterns",
]
