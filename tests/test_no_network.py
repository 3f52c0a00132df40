"""No network: every live source refuses the connection. The run must say so (status ERROR, the sources named, a
non-zero exit at the CLI) after round 1, and no host that refused is tried again (issue 39, item 4)."""

from __future__ import annotations

import random
from collections import Counter

import httpx
import pytest

from agent.api import ask
from agent.backend import live_backend, register_backend
from agent.cli import main
from agent.records import Status
from agent.tools.live import build_live_tools
from tests.fakes import unique_backend_name
from tests.tools.helpers import FakeClock

ACADEMIC_HOSTS = {"export.arxiv.org", "api.semanticscholar.org", "api.openalex.org", "api.crossref.org"}
NO_NETWORK = "no network: arXiv, Semantic Scholar, OpenAlex, Crossref unreachable (connection refused)"


@pytest.fixture
def refusing_backend(tmp_path):
    """A live backend whose every connection is refused; `attempts` counts the connection attempts per host."""
    attempts: Counter[str] = Counter()

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts[request.url.host] += 1
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    name = unique_backend_name()

    def factory(settings, documents=None):
        tools = build_live_tools(
            settings.corpus,
            reranker=settings.retrieval.reranker,
            transport=httpx.MockTransport(refuse),
            cache_dir=tmp_path / "cache",
            clock=FakeClock(),
            rng=random.Random(1),
        )
        return live_backend(settings, tools)

    register_backend(name, factory)
    return name, attempts


def test_no_network_ends_the_run_after_round_one_with_an_error_naming_the_sources(refusing_backend):
    name, attempts = refusing_backend
    answer = ask(
        "Does hypoglycemia increase the risk of dementia?",
        backend=name,
        enable_entity_expansion=False,
        stance_model="heuristic",
    )
    assert answer.status == Status.ERROR and answer.confidence == 0.0, answer.answer
    assert answer.stop_reason == NO_NETWORK and NO_NETWORK in answer.answer
    assert set(attempts) == ACADEMIC_HOSTS
    # each host: one failed connection retried once, then never again (the other round-1 queries fail without a try)
    assert all(count == 2 for count in attempts.values()), attempts
    assert [d.next for d in answer.decisions if d.at == "retrieve"] == ["report"]


def test_cli_exits_non_zero_without_network(refusing_backend, capsys):
    name, attempts = refusing_backend
    code = main(
        [
            "ask",
            "Does hypoglycemia increase the risk of dementia?",
            "--set",
            f"backend={name}",
            "--set",
            "enable_entity_expansion=false",
            "--set",
            "stance_model=heuristic",
            "--no-trace",
            "--quiet",
        ]
    )
    assert code != 0
    assert NO_NETWORK in capsys.readouterr().out
    assert sum(attempts.values()) == 2 * len(ACADEMIC_HOSTS)
