"""The bench corpus generator (bench/corpus.py) itself: deterministic, well-formed, labelled."""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from cyclops.trace import parse_trace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import corpus
import corpus_templates as ct

TOXIC = {"exfiltration", "encoded", "split", "excessive_agency"}
BYTES = {"exfiltration", "encoded", "split"}


@pytest.fixture(scope="module")
def cases() -> list[corpus.Case]:
    return corpus.generate()


def _dump(cases: list[corpus.Case]) -> str:
    return json.dumps([vars(case) for case in cases])


def test_the_same_seed_gives_the_same_corpus_and_another_seed_another() -> None:
    assert _dump(corpus.generate(7, 60)) == _dump(corpus.generate(7, 60))
    assert _dump(corpus.generate(7, 60)) != _dump(corpus.generate(8, 60))


def test_every_category_has_at_least_40_cases_and_there_are_300_or_more(
    cases: list[corpus.Case],
) -> None:
    counts = Counter(case.category for case in cases)
    assert set(counts) == set(corpus.CATEGORIES)
    assert min(counts.values()) >= 40
    assert len(cases) >= 300


def test_the_written_traces_parse_as_one_session_per_case(
    cases: list[corpus.Case], tmp_path: Path
) -> None:
    corpus.write_corpus(cases, tmp_path)
    lines = (tmp_path / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    records = parse_trace(lines)
    assert len(records) == sum(len(case.records) for case in cases)
    assert [r.session for r in records] == [r["session"] for c in cases for r in c.records]
    labels = [json.loads(line) for line in (tmp_path / "cases.jsonl").read_text().splitlines()]
    assert [label["name"] for label in labels] == [case.name for case in cases]
    assert all("records" not in label for label in labels)


def test_every_record_has_a_text_result_the_agent_saw(cases: list[corpus.Case]) -> None:
    for case in cases:
        for record in case.records:
            result = record["result"]
            if isinstance(result, dict):
                assert result["content"][0]["type"] == "text"
                assert isinstance(result["content"][0]["text"], str)
            else:
                assert isinstance(result, str)


def test_case_names_are_unique_and_every_record_carries_its_case_name(
    cases: list[corpus.Case],
) -> None:
    assert len({case.name for case in cases}) == len(cases)
    for case in cases:
        assert case.name.startswith(case.category)
        assert {record["session"] for record in case.records} == {case.name}


def test_toxic_cases_have_a_class_and_an_attack_index_within_the_case(
    cases: list[corpus.Case],
) -> None:
    for case in cases:
        assert case.toxic == (case.category in TOXIC)
        if case.toxic:
            assert case.expected_class in {"exfiltration", "secret_egress", "excessive_agency"}
            assert case.attack_index is not None
            assert 0 <= case.attack_index < len(case.records)
        else:
            assert (case.expected_class, case.attack_index, case.secret_bytes) == (None, None, None)


def test_exfiltration_categories_count_positive_secret_bytes(cases: list[corpus.Case]) -> None:
    for case in cases:
        if case.category in BYTES:
            assert case.secret_bytes is not None
            assert case.secret_bytes > 0
        else:
            assert case.secret_bytes is None


@pytest.mark.parametrize("make", ct.SECRETS)
def test_private_bytes_are_the_non_whitespace_characters_of_the_private_parts(
    make: ct.SecretMaker,
) -> None:
    for seed in range(20):
        rng = random.Random(seed)
        secret = make(rng, ct.Trace("t", rng))
        mask = corpus.private_mask(secret)
        assert len(mask) == len(secret.value)
        assert sum(mask) == secret.nbytes > 0
        assert all(part in secret.document for part in secret.parts)
        assert all(not any(c.isspace() for c in part) for part in secret.parts)


def test_split_slices_are_two_to_five_contiguous_pieces_of_six_or_more() -> None:
    rng = random.Random(1)
    for length in range(12, 90):
        slices = corpus.cut(rng, length)
        assert 2 <= len(slices) <= 5
        assert slices[0][0] == 0
        assert slices[-1][1] == length
        assert all(b - a >= 6 for a, b in slices)
        assert all(prev[1] == nxt[0] for prev, nxt in itertools.pairwise(slices))


def test_every_encoder_changes_a_typical_secret() -> None:
    value = "sk_live_Ab3#xY9!kQ"
    for name, (_, encode) in corpus.ENCODERS.items():
        assert encode(value) != value, name
