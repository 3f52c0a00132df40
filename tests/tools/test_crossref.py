"""Crossref client replayed from the recorded REST responses.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import httpx
import pytest

from agent.errors import SourceError
from agent.interfaces import HopFilter
from agent.literature import Record
from agent.tools.http import HostPolicy, HttpOptions, Pacer
from agent.tools.sources.crossref import CrossrefClient, follow_rate_headers
from tests.tools.helpers import FakeClock, fixture_json, fixture_response, json_response

API = "https://api.crossref.org"
S42256 = "crossref/work_by_doi_10.1038_s42256-024-00832-8_refs_without_doi_jats_abstract.json"


async def test_search_maps_items(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/works_query_ecology_rows2.json"))
    first, second = await CrossrefClient(options=options).search("ecology", limit=2)
    assert (first.id, first.doi, first.source, first.source_type) == (
        "10.1093/obo/9780199830060-0238",
        "10.1093/obo/9780199830060-0238",
        "crossref",
        "publisher",
    )
    assert first.title == "Communicating Ecology" and first.venue == "Ecology" and first.year == 2022
    assert first.abstract and "<" not in first.abstract
    assert second.authors and second.authors[0].endswith("Kessler")
    params = router.requests[0].url.params
    assert params["query"] == "ecology" and params["rows"] == "2" and "cursor" not in params


async def test_cursor_paging_and_missing_dates(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/works_query_widget_cursor_star.json"))
    records, cursor = await CrossrefClient(options=options).search_page("widget", rows=20)
    assert len(records) == 20 and cursor and cursor.startswith("DnF1ZXJ5")
    assert records[0].year is None  # date-parts [[null]]
    assert records[0].authors == [] and records[2].year == 2020
    assert router.requests[0].url.params["cursor"] == "*"


async def test_select_with_only_doi_and_title(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/works_query_ecology_select_DOI_title.json"))
    records = await CrossrefClient(options=options).search("ecology", limit=20)
    assert [r.title for r in records[:3]] == ["Communicating Ecology", "Ecosystem Ecology", "Chemical Ecology"]
    assert all(r.year is None and r.citation_count is None for r in records)


async def test_title_match_with_mailto_and_pdf_link(router, clock):
    options = HttpOptions(transport=router.transport, clock=clock, mailto="team@example.org")
    router.add("GET", f"{API}/works", fixture_response("crossref/works_query.title_rows1_mailto.json"))
    title = "Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study"
    record = await CrossrefClient(options=options).match_title(title)
    assert record is not None and record.doi == "10.1063/1.4938384" and record.year == 2015
    assert record.oa_pdf_url and record.oa_pdf_url.endswith("235306_1_online.pdf")
    request = router.requests[0]
    assert (
        request.url.params["mailto"] == "team@example.org"
        and "mailto:team@example.org" in request.headers["user-agent"]
    )
    assert request.url.params["query.bibliographic"] == title and request.url.params["rows"] == "1"


async def test_title_without_match_is_none(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/works_query.title_no_match_empty_items.json"))
    assert await CrossrefClient(options=options).match_title("A title nobody ever wrote down") is None


async def test_work_with_references(router, options):
    router.add(
        "GET",
        f"{API}/works/10.1371/journal.pone.0033693",
        fixture_response("crossref/work_by_doi_10.1371_journal.pone.0033693.json"),
    )
    record = await CrossrefClient(options=options).work("10.1371/journal.pone.0033693")
    assert record is not None and record.venue == "PLoS ONE" and record.citation_count == 72
    assert record.title == (
        "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia in the Basal Ganglia of Mice"
    )
    refs = fixture_json("crossref/work_by_doi_10.1371_journal.pone.0033693.json")["message"]["reference"]
    assert record.references == list(dict.fromkeys(r["DOI"].lower() for r in refs if "DOI" in r))
    assert record.authors[:2] == ["Shankar Sadasivan", "Brooks B. Pond"]


async def test_jats_abstract_is_stripped(router, options):
    router.add("GET", f"{API}/works/10.1038/s42256-024-00832-8", fixture_response(S42256))
    record = await CrossrefClient(options=options).work("https://doi.org/10.1038/S42256-024-00832-8")
    assert record is not None
    assert record.abstract.startswith("Large language models (LLMs) have shown strong performance")
    assert "jats" not in record.abstract and not record.abstract.startswith("Abstract")
    assert record.oa_pdf_url == "https://www.nature.com/articles/s42256-024-00832-8.pdf"


async def test_unknown_doi_plain_text_404_is_none(router, options):
    router.add("GET", f"{API}/works/10.1234/nope", fixture_response("crossref/error_404_resource_not_found.txt", 404))
    assert await CrossrefClient(options=options).work("10.1234/nope") is None


async def test_validation_failure_is_a_source_error(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/error_400_validation_failure_rows.json", 400))
    with pytest.raises(SourceError, match="HTTP 400: Integer specified as things but must be a positive integer"):
        await CrossrefClient(options=options).search("x", limit=1)


async def test_invalid_cursor_is_a_source_error(router, options):
    router.add("GET", f"{API}/works", fixture_response("crossref/error_404_invalid_cursor.json", 404))
    with pytest.raises(SourceError, match="HTTP 404: Cursor specified but it is invalid"):
        await CrossrefClient(options=options).search_page("x", rows=5, cursor="thing")


async def test_neighbours_batch_dois_and_match_doi_less_references_cheaply(router, options):
    refs = fixture_json(S42256)["message"]["reference"]
    with_doi = list(dict.fromkeys(r["DOI"].lower() for r in refs if r.get("DOI")))
    router.add("GET", f"{API}/works/10.1038/s42256-024-00832-8", fixture_response(S42256))

    def works(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        if "filter" in params:
            dois = [d.removeprefix("doi:") for d in params["filter"].split(",")]
            items = [
                {
                    "DOI": d,
                    "title": [f"Referenced work {d}"],
                    "issued": {"date-parts": [[2015]]},
                    "is-referenced-by-count": 1,
                }
                for d in dois[:2]
            ]
            return json_response({"status": "ok", "message": {"items": items}})
        # Bibliographic matching: only the GPT-3 reference finds its own title; the others get a wrong hit.
        text = params["query.bibliographic"]
        title = (
            "Language models are few-shot learners"
            if "few-shot learners" in text
            else "An unrelated paper about widgets"
        )
        return json_response(
            {
                "status": "ok",
                "message": {
                    "items": [{"DOI": "10.9/" + title[:8], "title": [title], "issued": {"date-parts": [[2020]]}}]
                },
            }
        )

    router.add("GET", f"{API}/works", works)
    client = CrossrefClient(options=options, title_match_budget=3)
    seed = Record(id="W4396723768", source="openalex", doi="10.1038/s42256-024-00832-8")
    got = await client.neighbours(seed, limit=50, gate=HopFilter())

    filter_calls = [r for r in router.requests if "filter" in r.url.params]
    title_calls = [
        r.url.params["query.bibliographic"] for r in router.requests if "query.bibliographic" in r.url.params
    ]
    assert [len(r.url.params["filter"].split(",")) for r in filter_calls] == [20, 20, 18]
    assert sum(len(r.url.params["filter"].split(",")) for r in filter_calls) == len(with_doi) == 58
    assert len(title_calls) == 3 and title_calls[0].startswith("Devlin, J.")  # the budget, in reference order
    matched = [r for r in got if r.title == "Language models are few-shot learners"]
    assert len(matched) == 1 and not any("widgets" in r.title for r in got)  # wrong hits are rejected
    assert len(got) == 7 and all(r.provenance == [] for r in got)  # the search service tags hop records
    assert await client.neighbours(Record(id="x", source="arxiv"), limit=5) == []


async def test_reference_matching_skips_what_the_hop_filter_would_drop(router, options):
    router.add(
        "GET",
        f"{API}/works/10.1/seed",
        json_response(
            {
                "status": "ok",
                "message": {
                    "DOI": "10.1/seed",
                    "reference": [
                        {
                            "key": "r1",
                            "unstructured": (
                                "Smith, J. Some early study of protein folding kinetics. J. Old Res. 12, 1-9 (1987)."
                            ),
                        },
                        {"key": "r2", "article-title": "Tiny"},
                    ],
                },
            }
        ),
    )
    client = CrossrefClient(options=options)
    assert (
        await client.neighbours(Record(id="10.1/seed", source="crossref", doi="10.1/seed"), limit=5, gate=HopFilter())
        == []
    )
    assert len(router.requests) == 1  # 1987 is before citation_min_year; a 4-letter title cannot be matched safely


def test_rate_headers_drive_the_pacer():
    pacer = Pacer(0.2, 1, FakeClock())
    follow_rate_headers(
        {"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s", "x-concurrency-limit": "5"}, pacer, HostPolicy()
    )
    assert pacer.min_interval_s == pytest.approx(0.02) and pacer.max_concurrency == 5
    follow_rate_headers(
        {"x-rate-limit-limit": "10", "x-rate-limit-interval": "1m", "x-concurrency-limit": "junk"}, pacer, HostPolicy()
    )
    assert pacer.min_interval_s == pytest.approx(6.0) and pacer.max_concurrency == 5
