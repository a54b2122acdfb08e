from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns, Session


@pytest.fixture(scope="session", autouse=True)
def private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every cyclops the tests start keeps its state (pins, verdicts) in a temp folder, not in
    the developer's ~/.local/state."""
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        del os.environ["XDG_STATE_HOME"]
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture(scope="session")
def patterns() -> Patterns:
    return load_patterns()


@pytest.fixture
def prevent(patterns: Patterns) -> Session:
    return Session(patterns, Mode.PREVENT)


@pytest.fixture
def detect(patterns: Patterns) -> Session:
    return Session(patterns, Mode.DETECT)
