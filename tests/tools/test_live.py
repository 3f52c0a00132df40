"""build_live_tools and the academic-then-web routing, replayed through the whole live backend.

Every client built here gets an httpx.MockTransport: a `Router` with the recorded fixtures, or an empty
`Router` (which fails the test on any request) where a test only inspects what was built.
"""

from __future__ import annotations

import random

import httpx
import pytest

from agent.config import Context, sparkit_home
from agent.errors import ConfigurationError
from agent.interfaces import LiteratureSource
from agent.search import WebBudget, search_academic_then_web
from agent.tools.http import CallEvent, call_events
from agent.tools.live import LiveTools, build_live_tools
from agent.tools.models.cohere_rerank import CohereReranker
from agent.tools.models.voyage import VoyageEmbedder, VoyageReranker
from agent.tools.sources.brave import BraveSearchClient
from agent.tools.sources.pubchem import PubChemClient
from tests.tools.helpers import FakeClock, Router, fixture_response, json_response

ARXIV = "https://export.arxiv.org/api/query"
S2 = "https://api.semanticscholar.org/graph/v1/paper/search"
OPENALEX = "https://api.openalex.org/works"
CROSSREF = "https://api.crossref.org/works"
BRAVE = "https://api.search.brave.com/res/v1/web/search"
NO_REQUESTS = Router().transport  # an httpx.MockTransport with no routes: any request fails the test


def _tools(router: Router, clock: FakeClock, tmp_path, **settings) -> LiveTools:
    return build_live_tools(
        Context(**settings).corpus,
        reranker=Context(**settings).retrieval.reranker,
        transport=router.transport,
        cache_dir=tmp_path,
        clock=clock,
        rng=random.Random(3),
    )


def _academic_routes(router: Router) -> None:
    router.add("GET", ARXIV, fixture_response("arxiv/search_testing_start0_max10.xml"))
    router.add("GET", S2, fixture_response("semantic_scholar/paper_search_turing_fields_title.json"))
    router.add("GET", OPENALEX, fixture_response("openalex/works_filter_title.search_2_results.json"))
    router.add("GET", CROSSREF, fixture_response("crossref/works_query_ecology_rows2.json"))


def _empty_routes(router: Router) -> None:
    router.add("GET", ARXIV, fixture_response("arxiv/id_list_0000.0000_empty.xml"))
    router.add("GET", S2, json_response({"total": 0, "offset": 0, "data": []}))
    router.add("GET", OPENALEX, json_response({"meta": {"count": 0}, "results": []}))
    router.add("GET", CROSSREF, fixture_response("crossref/works_query.title_no_match_empty_items.json"))


def test_defaults_without_keys(tmp_path):
    tools = build_live_tools(Context().corpus, reranker=Context().retrieval.reranker, transport=NO_REQUESTS)
    assert [s.name for s in tools.sources] == ["arxiv", "semantic_scholar", "openalex", "crossref"]
    assert all(isinstance(s, LiteratureSource) for s in tools.sources)
    assert tools.web is None and tools.reranker is None and tools.embedder is None
    assert isinstance(tools.entity_expander, PubChemClient)
    assert tools.cache is not None and tools.cache.path.parent == sparkit_home() / "http-cache"


def test_keys_and_settings_select_optional_tools(monkeypatch, tmp_path):
    monkeypatch.setenv("BRAVE_API_KEY", "b-dummy-1")
    monkeypatch.setenv("VOYAGE_API_KEY", "v-dummy-1")
    tools = build_live_tools(
        Context(sources=["openalex"], reranker="voyage", enable_entity_expansion=False).corpus,
        reranker=Context(sources=["openalex"], reranker="voyage", enable_entity_expansion=False).retrieval.reranker,
        cache_dir=tmp_path,
        transport=NO_REQUESTS,
    )
    assert [s.name for s in tools.sources] == ["openalex"]
    assert isinstance(tools.web, BraveSearchClient) and tools.entity_expander is None
    assert isinstance(tools.reranker, VoyageReranker) and isinstance(tools.embedder, VoyageEmbedder)
    monkeypatch.setenv("COHERE_API_KEY", "c-dummy-1")
    assert isinstance(
        build_live_tools(
            Context(reranker="cohere").corpus,
            reranker=Context(reranker="cohere").retrieval.reranker,
            use_cache=False,
            transport=NO_REQUESTS,
        ).reranker,
        CohereReranker,
    )


def test_configuration_errors():
    with pytest.raises(ConfigurationError, match="COHERE_API_KEY"):
        build_live_tools(
            Context(reranker="cohere").corpus,
            reranker=Context(reranker="cohere").retrieval.reranker,
            use_cache=False,
            transport=NO_REQUESTS,
        )
    with pytest.raises(ConfigurationError, match="unknown live source"):
        build_live_tools(
            Context(sources=["arxiv", "scopus"]).corpus,
            reranker=Context(sources=["arxiv", "scopus"]).retrieval.reranker,
            use_cache=False,
            transport=NO_REQUESTS,
        )


async def test_all_sources_in_parallel_through_the_replayed_backend(tmp_path):
    clock = FakeClock()
    router = Router(clock)
    _academic_routes(router)
    events: list[CallEvent] = []
    token = call_events.set(events)
    try:
        async with _tools(router, clock, tmp_path) as tools:
            outcome = await search_academic_then_web(
                tools.sources, tools.web, "testing", limit=2, web_budget=WebBudget(cap=1)
            )
    finally:
        call_events.reset(token)
    assert [r.source for r in outcome.records] == ["arxiv"] * 2 + ["semantic_scholar"] * 2 + ["openalex"] * 2 + [
        "crossref"
    ] * 2
    assert outcome.failures == [] and outcome.web_used is False
    assert sorted(e.source for e in events) == ["arxiv", "crossref", "openalex", "semantic_scholar"]


async def test_a_failing_source_is_reported_and_the_others_continue(tmp_path, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "b-dummy-1")
    clock = FakeClock()
    router = Router(clock)
    _academic_routes(router)
    router.add("GET", S2, fixture_response("semantic_scholar/error_400_unrecognized_fields.json", 400))
    budget = WebBudget(cap=2)
    tools = _tools(router, clock, tmp_path)
    outcome = await search_academic_then_web(tools.sources, tools.web, "testing", limit=3, web_budget=budget)
    assert [f.source for f in outcome.failures] == ["semantic_scholar"]
    assert "Unrecognized or unsupported fields" in str(outcome.failures[0])
    assert {r.source for r in outcome.records} == {"arxiv", "openalex", "crossref"}
    assert outcome.web_used is False and budget.used == 0
    await tools.aclose()


async def test_brave_only_when_every_academic_source_is_empty_and_budget_left(tmp_path, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "b-dummy-1")
    clock = FakeClock()
    router = Router(clock)
    _empty_routes(router)
    router.add("GET", S2, httpx.ConnectError("down"))  # a failed source counts as empty
    router.add("GET", BRAVE, fixture_response("brave/web_search_blue_tack_minimal.json"))
    budget = WebBudget(cap=1)
    async with _tools(router, clock, tmp_path) as tools:
        first = await search_academic_then_web(tools.sources, tools.web, "blue tack", limit=5, web_budget=budget)
        second = await search_academic_then_web(
            tools.sources, tools.web, "blue tack adhesive", limit=5, web_budget=budget
        )
    assert first.web_used and [r.source_type for r in first.records] == ["web"]
    assert [f.source for f in first.failures] == ["semantic_scholar"]
    assert second.web_used is False and second.records == [] and budget.used == budget.cap == 1
    assert sum(1 for r in router.requests if r.url.host == "api.search.brave.com") == 1


async def test_brave_failure_is_reported_and_spends_the_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "b-dummy-1")
    clock = FakeClock()
    router = Router(clock)
    _empty_routes(router)
    router.add("GET", BRAVE, fixture_response("brave/quoted_issue_error_429_rate_limited.json", 429))
    budget = WebBudget(cap=Context(brave_cap=3).budget.brave_cap)
    async with _tools(router, clock, tmp_path, sources=["crossref"]) as tools:
        outcome = await search_academic_then_web(tools.sources, tools.web, "nothing", limit=5, web_budget=budget)
    assert outcome.web_used and outcome.records == [] and [f.source for f in outcome.failures] == ["brave"]
    assert budget.used == 1 and budget.spend() and budget.spend() and not budget.spend()  # 2 of 3 left


async def test_bugs_are_not_swallowed(tmp_path):
    class Broken:
        name = "broken"
        supports_citations = False

        async def search(self, query, *, limit):
            raise KeyError("bug")

        async def neighbours(self, record, *, limit, gate=None):
            return []

    with pytest.raises(KeyError):
        await search_academic_then_web([Broken()], None, "q", limit=1, web_budget=WebBudget(cap=0))
