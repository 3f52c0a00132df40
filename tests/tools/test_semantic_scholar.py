"""Semantic Scholar client replayed from the recorded Graph API responses.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import json

import httpx
import pytest

from agent.errors import SourceError
from agent.interfaces import HopFilter
from agent.literature import Record
from agent.tools.http import error_detail
from agent.tools.sources.semantic_scholar import SemanticScholarClient, paper_to_record, s2_paper_id
from tests.tools.helpers import fixture_bytes, fixture_json, fixture_response, json_response

API = "https://api.semanticscholar.org/graph/v1"


async def test_search_sends_fields_and_maps_titles(router, options):
    router.add("GET", f"{API}/paper/search", fixture_response("semantic_scholar/paper_search_turing_fields_title.json"))
    records = await SemanticScholarClient(options=options).search("Turing-test machines", limit=100)
    assert len(records) == 100
    assert records[4].title == "Neural Turing Machines" and records[4].id == records[4].s2_id
    assert all(r.source == "semantic_scholar" and r.source_type == "index" for r in records)
    params = router.requests[0].url.params
    assert params["query"] == "Turing test machines"  # hyphens match nothing on S2
    assert "abstract" in params["fields"] and "fieldsOfStudy" not in params


async def test_open_access_pdf_shapes(router, options):
    router.add(
        "GET", f"{API}/paper/search", fixture_response("semantic_scholar/paper_search_turing_openAccessPdf.json")
    )
    records = await SemanticScholarClient(options=options).search("turing", limit=5)
    assert records[0].oa_pdf_url == "https://mededu.jmir.org/2023/1/e46939/PDF"
    assert records[2].oa_pdf_url == "http://arxiv.org/pdf/2301.10035"  # status CLOSED but a usable URL


def test_paper_with_empty_open_access_pdf():
    record = paper_to_record(
        fixture_json("semantic_scholar/paper_search_match_attention_empty_openAccessPdf.json")["data"][0]
    )
    assert record is not None and record.arxiv_id == "1706.03762" and record.oa_pdf_url is None
    assert record.venue == "Neural Information Processing Systems" and record.citation_count == 136941
    assert record.authors[0] == "Ashish Vaswani" and record.year == 2017


def test_not_found_bodies_give_their_message():
    for fixture, message in (
        ("semantic_scholar/error_404_title_match_not_found.json", "Title match not found"),
        ("semantic_scholar/error_404_paper_not_found.json", "Paper with id 0 not found"),
        ("semantic_scholar/error_404_DOI_not_found.json", "Paper with id DOI:10.1101/2024.04.01.587366 not found"),
    ):
        assert error_detail(fixture_bytes(fixture), {"content-type": "application/json"}) == message


def test_every_paper_of_a_bulk_page_maps_to_a_record():
    papers = fixture_json("semantic_scholar/paper_search_bulk_kubernetes_token.json")["data"]
    records = [paper_to_record(p) for p in papers]
    assert len(records) == 1000 and all(r is not None and r.title for r in records)


def test_details_with_title_only():
    record = paper_to_record(fixture_json("semantic_scholar/paper_details_fields_title.json"))
    assert record is not None and record.title == "Computing Machinery and Intelligence"


def test_details_with_all_fields():
    record = paper_to_record(
        fixture_json("semantic_scholar/paper_details_all_fields_with_citations_refs_embedding.json")
    )
    assert record is not None
    assert (record.year, record.doi, record.citation_count) == (1950, "10.1093/mind/lix.236.433", 10059)
    assert record.authors == ["A. Turing"] and record.institutions == []
    assert record.venue == "The Philosophy of Artificial Intelligence"
    assert record.abstract.startswith("I propose to consider the question")


def test_details_by_doi_prefix_with_license():
    record = paper_to_record(fixture_json("semantic_scholar/paper_details_by_DOI_prefix_openAccessPdf_license.json"))
    assert record is not None and record.pmid == "40120586" and record.doi == "10.1016/j.xgen.2025.100814"
    assert record.venue == "bioRxiv" and record.oa_pdf_url == "https://doi.org/10.1016/j.xgen.2025.100814"


async def test_bad_fields_is_a_source_error_with_the_api_message(router, options):
    router.add(
        "GET", f"{API}/paper/search", fixture_response("semantic_scholar/error_400_unrecognized_fields.json", 400)
    )
    with pytest.raises(SourceError, match=r"HTTP 400: Unrecognized or unsupported fields: \[unknown\]"):
        await SemanticScholarClient(options=options).search("x", limit=1)
    assert len(router.requests) == 1  # a 400 is a bug, not retried


async def test_batch_keeps_alignment_with_nulls(router, options):
    router.add(
        "POST", f"{API}/paper/batch", fixture_response("semantic_scholar/paper_batch_post_all_fields_with_null.json")
    )
    ids = ["unknown", "CorpusId:470667", "b", "c"]
    records = await SemanticScholarClient(options=options).batch(ids)
    assert len(records) == 4 and records[0] is None
    assert records[1] is not None and records[1].doi == "10.2139/ssrn.288970" and records[1].year == 2001
    assert records[1].oa_pdf_url == "http://papers.nber.org/papers/w8841.pdf"
    assert json.loads(router.requests[0].content) == {"ids": ids}


async def test_batch_length_mismatch_is_an_error(router, options):
    router.add("POST", f"{API}/paper/batch", json_response([None]))
    with pytest.raises(SourceError, match="not a list aligned"):
        await SemanticScholarClient(options=options).batch(["a", "b"])


async def test_references_follow_next_and_skip_unresolved(router, options):
    url = f"{API}/paper/10.2139/ssrn.2250500/references"
    router.add(
        "GET", url, fixture_response("semantic_scholar/paper_references_page1_offset0.json"), params={"offset": "0"}
    )
    router.add(
        "GET",
        url,
        fixture_response("semantic_scholar/paper_references_page2_last_null_paperId.json"),
        params={"offset": "50"},
    )
    records = await SemanticScholarClient(options=options).references("10.2139/ssrn.2250500", limit=500)
    items = [
        *fixture_json("semantic_scholar/paper_references_page1_offset0.json")["data"],
        *fixture_json("semantic_scholar/paper_references_page2_last_null_paperId.json")["data"],
    ]
    resolved = [item["citedPaper"]["paperId"] for item in items if item["citedPaper"]["paperId"]]
    assert [r.id for r in records] == resolved and len(resolved) < len(items) == 67
    assert len(router.requests) == 2  # the last page has no `next`
    assert (
        records[0].title
        == "Group lending or individual lending? Evidence from a randomised field experiment in Mongolia"
    )


async def test_citations_first_and_last_page(router, options):
    url = f"{API}/paper/CorpusID:14514057/citations"
    router.add(
        "GET", url, fixture_response("semantic_scholar/paper_citations_page1_offset0.json"), params={"offset": "0"}
    )
    router.add(
        "GET",
        url,
        fixture_response("semantic_scholar/paper_citations_lastpage_offset1800.json"),
        params={"offset": "100"},
    )
    client = SemanticScholarClient(options=options)
    first = await client.citations("CorpusID:14514057", limit=100)
    assert len(first) == 100 and len(router.requests) == 1
    both = await client.citations("CorpusID:14514057", limit=1000)
    items = [
        item["citingPaper"]
        for page in (
            "semantic_scholar/paper_citations_page1_offset0.json",
            "semantic_scholar/paper_citations_lastpage_offset1800.json",
        )
        for item in fixture_json(page)["data"]
    ]
    assert [r.id for r in both] == [p["paperId"] for p in items if p["paperId"]] and len(items) == 181
    assert len(router.requests) == 3  # page 1 again, then the last page (no `next`): done


async def test_rich_reference_and_citation_items(router, options):
    ref = fixture_json("semantic_scholar/reference_item_with_contexts_intents.json")
    cite = fixture_json("semantic_scholar/citation_item_with_contexts_intents.json")
    router.add("GET", f"{API}/paper/abc/references", json_response({"offset": 0, "data": [ref]}))
    router.add("GET", f"{API}/paper/abc/citations", json_response({"offset": 0, "data": [cite]}))
    client = SemanticScholarClient(options=options)
    (cited,) = await client.references("abc", limit=10)
    (citing,) = await client.citations("abc", limit=10)
    assert (
        cited.arxiv_id == "1402.0030" and cited.title == "Neural Variational Inference and Learning in Belief Networks"
    )
    assert cited.venue == "International Conference on Machine Learning"
    assert citing.s2_id == cite["citingPaper"]["paperId"]


def _paper(pid: str, year: int, cites: int, abstract: str | None = "An abstract.") -> dict:
    return {
        "paperId": pid,
        "title": f"Paper {pid} about graphs",
        "year": year,
        "citationCount": cites,
        "abstract": abstract,
    }


async def test_neighbours_filter_interleave_and_fill_abstracts(router, options):
    refs = [
        _paper("r-old-famous", 2005, 500),
        _paper("r-too-old", 1990, 9000),
        _paper("r-new", 2021, 3, None),
        _paper("r-old-obscure", 2004, 2),
    ]
    cites = [_paper("c-1", 2022, 10), _paper("c-2", 2023, 40)]
    router.add(
        "GET",
        f"{API}/paper/DOI:10.1/seed/references",
        json_response({"offset": 0, "data": [{"citedPaper": p} for p in refs]}),
    )
    router.add(
        "GET",
        f"{API}/paper/DOI:10.1/seed/citations",
        json_response({"offset": 0, "data": [{"citingPaper": p} for p in cites]}),
    )
    router.add("POST", f"{API}/paper/batch", json_response([_paper("r-new", 2021, 3, "Full abstract from batch.")]))
    client = SemanticScholarClient(options=options)
    seed = Record(id="10.1/seed", source="crossref", doi="10.1/seed")
    got = await client.neighbours(seed, limit=10, gate=HopFilter())
    assert [r.id for r in got] == ["r-old-famous", "c-2", "r-new", "c-1"]  # most cited first, alternating
    assert all(r.provenance == [] for r in got)  # the search service tags hop records
    assert got[2].abstract == "Full abstract from batch."
    assert json.loads(router.requests[-1].content) == {"ids": ["r-new"]}


async def test_neighbours_without_a_usable_id(options):
    assert (
        await SemanticScholarClient(options=options).neighbours(
            Record(id="x", source="brave", url="https://a.b"), limit=5
        )
        == []
    )


def test_paper_id_forms():
    assert s2_paper_id(Record(id="1", source="x", s2_id="abc")) == "abc"
    assert s2_paper_id(Record(id="1", source="x", doi="https://doi.org/10.1/X")) == "DOI:10.1/x"
    assert s2_paper_id(Record(id="1", source="x", arxiv_id="2104.12255v2")) == "ARXIV:2104.12255"
    assert s2_paper_id(Record(id="1", source="x", pmid="123")) == "PMID:123"


async def test_key_is_sent_as_x_api_key_header(router, options):
    router.add("GET", f"{API}/paper/search", fixture_response("semantic_scholar/paper_search_turing_fields_title.json"))
    client = SemanticScholarClient(api_key="k-test-0001", options=options)
    await client.search("x", limit=1)
    request: httpx.Request = router.requests[0]
    assert request.headers["x-api-key"] == "k-test-0001" and "k-test-0001" not in str(request.url)
    assert client.http.pacer.min_interval_s >= 1.0
