"""The bundled attack replayed with the decision log and the OCSF export on: every byte cyclops
wrote is searched for the secrets the trace carries, raw, base64 and hex."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from report_support import OCSF_SCHEMA, assert_no_leak, example_text, secrets_of

from cyclops.cli import EXIT_OK, main
from cyclops.core import Mode

PRIVATE_READS = frozenset({"read_text_file", "get_file_contents"})


def test_the_secrets_searched_for_are_really_in_the_trace() -> None:
    secrets = secrets_of(example_text("attack.jsonl"), PRIVATE_READS)
    assert any("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA" in s for s in secrets)  # the SSH key
    assert any("dk_7Hq2LmZp9RtXv4Nw" in s for s in secrets)  # the private README's deploy key


@pytest.mark.parametrize("mode", list(Mode))
def test_no_secret_of_the_attack_reaches_the_log_the_verdicts_or_the_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: Mode
) -> None:
    log, verdicts, ocsf = tmp_path / "d.jsonl", tmp_path / "verdicts", tmp_path / "ocsf.jsonl"
    argv = ["replay", "--example", "attack", "--mode", mode.value, "--decision-log", str(log)]
    assert main([*argv, "--out", str(verdicts)]) == EXIT_OK
    files = [str(p) for p in sorted(verdicts.glob("*.json"))]
    assert main(["export", "--ocsf", str(log), *files, "-o", str(ocsf)]) == EXIT_OK
    assert main(["audit", "verify", str(log)]) == EXIT_OK
    captured = capsys.readouterr()

    events = [json.loads(line) for line in ocsf.read_text().splitlines()]
    # Two toxic flows and one secret control (the key in the post), from the log and the verdicts.
    assert len(events) == 6
    for event in events:
        jsonschema.validate(event, OCSF_SCHEMA)
    written = "\n".join(
        [p.read_text() for p in sorted(tmp_path.rglob("*")) if p.is_file()]
        + [captured.out, captured.err]
    )
    assert_no_leak(written, secrets_of(example_text("attack.jsonl"), PRIVATE_READS))
    for line in example_text("attack.jsonl").splitlines():
        for value in json.loads(line)["arguments"].values():
            if isinstance(value, str) and len(value) >= 24:  # bodies, payloads, URLs
                assert value not in written
