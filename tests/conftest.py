"""Shared test setup: no network, no LangSmith, an isolated SPARKIT_HOME, paths to ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.network_guard import network_blocked

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
FIXTURES = SHARED / "fixtures"

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["SPARKIT_TRACE"] = "0"  # tests that want a trace ask for one
os.environ.pop("LANGCHAIN_TRACING_V2", None)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="session")
def no_network():
    """Any connection or DNS lookup outside loopback fails the test that made it."""
    with network_blocked():
        yield


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Each test writes checkpoints, traces and caches into its own folder."""
    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path / "sparkit-home"))
    monkeypatch.delenv("SPARKIT_CORPUS", raising=False)
    monkeypatch.setenv("SPARKIT_BACKGROUND_SENTENCES", "0")  # no detached sentence-store builds after a test's `ask`
    yield
