"""`library fetch` through the live clients, replayed from the recorded fixtures by an `httpx.MockTransport` (nothing
leaves the machine): records and abstracts land in the library, only the sources' API hosts are asked (a PDF link in
a result is kept, never requested), and a repeated fetch is served by the shared HTTP cache."""

from __future__ import annotations

import random

import httpx
import pytest

from agent.errors import InputError
from agent.library.fetch import fetch_into_library, interleave
from agent.library.store import Library
from agent.literature import Record
from tests.tools.helpers import FakeClock, Router, fixture_response, json_response

ARXIV = "https://export.arxiv.org/api/query"
S2 = "https://api.semanticscholar.org/graph/v1/paper/search"
OPENALEX = "https://api.openalex.org/works"
CROSSREF = "https://api.crossref.org/works"
OA_PDF = "https://example.org/open/paper.pdf"


def _routes(router: Router) -> None:
    router.add("GET", ARXIV, fixture_response("arxiv/search_testing_start0_max10.xml"))
    router.add(
        "GET",
        S2,
        json_response(
            {
                "total": 1,
                "offset": 0,
                "data": [
                    {
                        "paperId": "abc123",
                        "title": "An open-access paper on testing software",
                        "year": 2020,
                        "abstract": "We test software thoroughly.",
                        "openAccessPdf": {"url": OA_PDF, "status": "GOLD"},
                        "externalIds": {"DOI": "10.5555/oa.1"},
                        "authors": [{"name": "Ann Open"}],
                    }
                ],
            }
        ),
    )
    router.add("GET", OPENALEX, fixture_response("openalex/works_filter_title.search_2_results.json"))
    router.add("GET", CROSSREF, fixture_response("crossref/works_query_ecology_rows2.json"))


async def test_fetch_adds_records_from_every_source_and_reuses_the_cache(tmp_path, encoder):
    clock = FakeClock()
    router = Router(clock)
    _routes(router)
    library = Library(tmp_path / "lib")
    options = {
        "transport": httpx.MockTransport(router.handler),
        "cache_dir": tmp_path / "http-cache",
        "clock": clock,
        "rng": random.Random(1),
    }
    report = await fetch_into_library(library, "testing", limit=8, **options)
    docs = library.documents()
    assert report.added == [d.id for d in docs] and len(docs) == 8
    assert {d.kind for d in docs} == {"fetch"} and {d.source for d in docs} == {
        "arxiv",
        "semantic_scholar",
        "openalex",
        "crossref",
    }
    assert sum(bool(d.abstract) for d in docs) >= 4
    open_access = next(d for d in docs if d.source == "semantic_scholar")
    assert open_access.oa_pdf_url == OA_PDF and open_access.doi == "10.5555/oa.1"
    assert any("open-access PDF" in note for note in report.notes)
    assert {r.url.host for r in router.requests} == {
        "export.arxiv.org",
        "api.semanticscholar.org",
        "api.openalex.org",
        "api.crossref.org",
    }
    index = library.index()
    assert (
        index.records[index.lexical("open-access paper testing software", 1)[0][0]].location.document_id
        == open_access.id
    )
    requests = len(router.requests)
    again = await fetch_into_library(library, "testing", limit=8, **options)
    assert len(router.requests) == requests, "a repeated fetch is answered from the HTTP cache"
    assert again.added == [] and sorted(again.duplicates) == sorted(d.id for d in docs)


async def test_a_failing_source_is_reported_and_the_others_are_kept(tmp_path, encoder):
    clock = FakeClock()
    router = Router(clock)
    _routes(router)
    router.add("GET", CROSSREF, json_response({"status": "error"}, status=400))
    report = await fetch_into_library(
        Library(tmp_path / "lib"),
        "testing",
        limit=3,
        sources=["crossref", "semantic_scholar"],
        transport=httpx.MockTransport(router.handler),
        use_cache=False,
        clock=clock,
        rng=random.Random(1),
    )
    assert report.added and any(note.startswith("source failed: crossref") for note in report.notes)


async def test_fetch_validates_its_arguments(tmp_path):
    router = Router()  # no routes: a request that got past the checks would fail the test, never reach a host
    replay = httpx.MockTransport(router.handler)
    with pytest.raises(InputError, match="needs a query"):
        await fetch_into_library(Library(tmp_path / "lib"), "  ", transport=replay)
    with pytest.raises(InputError, match="between 1 and 200"):
        await fetch_into_library(Library(tmp_path / "lib"), "q", limit=0, transport=replay)
    assert router.requests == []


def test_interleave_takes_each_source_in_turn_and_merges_the_same_work():
    a = [Record(id=f"a{i}", source="arxiv", title=f"Paper number {i} from arxiv") for i in range(3)]
    b = [Record(id="b0", source="openalex", title="Paper number 0 from arxiv", abstract="The abstract.", doi="10.1/x")]
    merged = interleave([a, b], 2)
    assert (
        [r.id for r in merged] == ["a0", "a1"] and merged[0].abstract == "The abstract." and merged[0].doi == "10.1/x"
    )
