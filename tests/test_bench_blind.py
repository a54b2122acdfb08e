"""The blind trace sets of bench/blind parse, and their labels fit their sessions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cyclops.trace import parse_trace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import blind_eval


@pytest.mark.parametrize("name", blind_eval.SETS)
def test_every_session_of_a_blind_set_has_one_label_that_fits_it(name: str) -> None:
    trace, labels = blind_eval.load(name)
    calls: dict[str, int] = {}
    for record in parse_trace(trace):
        calls[record.session] = calls.get(record.session, 0) + 1
    assert set(calls) == set(labels)
    for session, label in labels.items():
        if label["toxic"]:
            assert label["class"] in {"exfiltration", "excessive_agency"}
            assert 0 <= label["attack_index"] < calls[session]
        else:
            assert label["class"] is None
            assert label["attack_index"] is None
    assert sum(label["toxic"] for label in labels.values()) == 25
