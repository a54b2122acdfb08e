"""The honest corpus of bench/poisoning: real servers' descriptions make no server hostile."""

from __future__ import annotations

import sys
from pathlib import Path

from cyclops.core import Patterns
from cyclops.core.pins import instructing_texts

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import poisoning_eval


def test_no_description_of_128_real_servers_poisons(patterns: Patterns) -> None:
    servers, instructions = poisoning_eval.real_servers()
    assert len(servers) >= 128
    poisoning = {
        server: listing
        for server, tools in servers.items()
        if (listing := instructing_texts(patterns, tools, instructions.get(server)))
    }
    assert poisoning == {}
