from __future__ import annotations

import pytest

from cyclops.config import load_patterns
from cyclops.core import Mode, Patterns, Session


@pytest.fixture(scope="session")
def patterns() -> Patterns:
    return load_patterns()


@pytest.fixture
def prevent(patterns: Patterns) -> Session:
    return Session(patterns, Mode.PREVENT)


@pytest.fixture
def detect(patterns: Patterns) -> Session:
    return Session(patterns, Mode.DETECT)
