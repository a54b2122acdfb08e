"""Decisions must not depend on the process: a replay runs in another process than the live
session did, and Python salts ``hash`` of a str differently in each."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Looks up every run of 5 to 7 words of a private text: shorter than the 8 words whose copy
# winnowing guarantees to find, so which of them are found depends on which fingerprints were
# kept, and nothing else.
_PROBE = """
import json, pydoc_data.topics
from cyclops.core.canon import clean, matchable
from cyclops.core.fingerprints import FingerprintIndex
from cyclops.core.patterns import ProvenanceSettings
from cyclops.core.types import Label

text = matchable(clean(pydoc_data.topics.topics["assignment"][:6000]))
index = FingerprintIndex(ProvenanceSettings(), max_fingerprints=1_000_000)
index.add(0, frozenset({Label.SENSITIVE}), text, [])
words = text.split()
found = []
for size in (5, 6, 7):
    for start in range(len(words) - size):
        query = " ".join(words[start : start + size])
        found.append(sorted({(h.start, h.end) for h in index.shingles(query)}))
print(json.dumps(found))
"""


def _shingles_found(hash_seed: int) -> list[list[list[int]]]:
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    found: list[list[list[int]]] = json.loads(done.stdout)
    return found


def test_the_fingerprints_kept_are_the_same_whatever_the_hash_seed() -> None:
    first = _shingles_found(0)
    assert any(first), "the probe must find some short copies, or it tests nothing"
    assert not all(first), "the probe must miss some short copies, or it tests nothing"
    for seed in (1, 2):
        assert _shingles_found(seed) == first
