"""Fixtures for the live-client tests (helpers live in tests/tools/helpers.py)."""

from __future__ import annotations

import random

import pytest

from agent.tools.http import HttpOptions
from tests.tools.helpers import FakeClock, Router


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def router(clock: FakeClock) -> Router:
    return Router(clock)


@pytest.fixture
def options(router: Router, clock: FakeClock) -> HttpOptions:
    return HttpOptions(transport=router.transport, clock=clock, rng=random.Random(7))


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see real keys from the developer's environment."""
    for var in (
        "SEMANTIC_SCHOLAR_API_KEY",
        "S2_API_KEY",
        "OPENALEX_API_KEY",
        "CROSSREF_PLUS_TOKEN",
        "SPARKIT_MAILTO",
        "BRAVE_API_KEY",
        "COHERE_API_KEY",
        "VOYAGE_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
