"""OpenAlex client replayed from the recorded works responses.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import httpx

from agent.interfaces import HopFilter
from agent.literature import Record
from agent.tools.sources.openalex import OpenAlexClient, rebuild_abstract, work_to_record
from tests.tools.helpers import fixture_json, fixture_response, json_response

API = "https://api.openalex.org"


async def test_search_maps_works(router, options):
    router.add("GET", f"{API}/works", fixture_response("openalex/works_filter_title.search_2_results.json"))
    first, second = await OpenAlexClient(api_key="oa-key-0001", options=options).search("chemistry tools LLM", limit=5)
    assert (first.id, first.openalex_id, first.source, first.source_type) == (
        "W4396723768",
        "W4396723768",
        "openalex",
        "index",
    )
    assert first.doi == "10.1038/s42256-024-00832-8" and first.year == 2024 and first.citation_count == 236
    assert first.title == "Augmenting large language models with chemistry tools"
    assert first.authors[0] == "Andres M. Bran" and "École Polytechnique Fédérale de Lausanne" in first.institutions
    assert first.venue == "Nature Machine Intelligence"
    assert first.oa_pdf_url == "https://www.nature.com/articles/s42256-024-00832-8.pdf"
    assert len(first.references) == 57 and first.references[0].startswith("W")
    assert first.abstract and first.provenance[0].query == "chemistry tools LLM"
    assert second.arxiv_id == "2304.05376"  # arXiv's own DOI gives the arXiv id for dedupe
    assert second.oa_pdf_url == "https://arxiv.org/abs/2304.05376"  # no pdf_url: falls back to oa_url
    params = router.requests[0].url.params
    assert (
        params["search"] == "chemistry tools LLM" and params["per_page"] == "5" and params["api_key"] == "oa-key-0001"
    )
    assert "abstract_inverted_index" in params["select"]


async def test_search_result_with_abstract_rebuilt(router, options):
    router.add(
        "GET",
        f"{API}/works",
        fixture_response("openalex/works_filter_title.search_1_result_with_abstract_inverted_index.json"),
    )
    (record,) = await OpenAlexClient(options=options).search("copper oxide thin film", limit=5)
    inverted = fixture_json("openalex/works_filter_title.search_1_result_with_abstract_inverted_index.json")["results"][
        0
    ]["abstract_inverted_index"]
    assert len(record.abstract.split()) == sum(len(p) for p in inverted.values())
    assert record.oa_pdf_url is None and record.venue == "Journal of Applied Physics"


def test_abstract_uses_every_position():
    assert rebuild_abstract({"the": [0, 3], "cat": [1], "saw": [2], "dog": [4]}) == "the cat saw the dog"
    assert rebuild_abstract(None) == "" and rebuild_abstract({"bad": "x"}) == ""


async def test_singleton_with_repeated_words_in_abstract(router, options):
    router.add(
        "GET",
        f"{API}/works/doi:10.1073/pnas.1414271111",
        fixture_response("openalex/work_by_doi_10.1073_pnas.1414271111.json"),
    )
    record = await OpenAlexClient(options=options).work("https://doi.org/10.1073/pnas.1414271111")
    assert record is not None
    assert record.abstract.startswith("Significance The inadequate mechanical properties of engineered tissues")
    assert len(record.abstract.split()) == 126  # 93 distinct words at 126 positions
    assert record.pmid == "25349395" and len(record.references) == 73
    assert record.url == "https://doi.org/10.1073/pnas.1414271111"


async def test_singleton_with_null_abstract_and_v3_key(router, options):
    router.add(
        "GET",
        f"{API}/works/doi:10.1016/j.xgen.2025.100814",
        fixture_response("openalex/work_by_doi_10.1016_j.xgen.2025.100814_null_abstract.json"),
    )
    record = await OpenAlexClient(options=options).work("10.1016/j.xgen.2025.100814")
    assert record is not None and record.abstract == "" and record.sentences == []
    assert record.venue == "Cell Genomics" and record.oa_pdf_url == "https://doi.org/10.1016/j.xgen.2025.100814"


async def test_work_by_id(router, options):
    router.add("GET", f"{API}/works/W2741809807", fixture_response("openalex/work_W2741809807_by_id.json"))
    record = await OpenAlexClient(options=options).work("https://openalex.org/W2741809807")
    assert record is not None and record.doi == "10.7717/peerj.4375" and record.year == 2018
    assert record.oa_pdf_url == "https://peerj.com/articles/4375.pdf" and record.citation_count == 962


async def test_unknown_doi_html_404_is_none(router, options):
    router.add("GET", f"{API}/works/doi:10.1234/nope", fixture_response("openalex/error_404_work_not_found.html", 404))
    assert await OpenAlexClient(options=options).work("10.1234/nope") is None


def test_open_access_url_of_a_work():
    body = {**fixture_json("openalex/work_by_doi_select_open_access_doi.json"), "id": "https://openalex.org/W1"}
    record = work_to_record(body)  # no best_oa_location.pdf_url: the open_access URL is the fallback
    assert (
        record is not None
        and record.oa_pdf_url == "https://www.osti.gov/biblio/1329576"
        and record.doi == "10.1021/acs.jctc.5b00178"
    )


def _work(n: int, year: int, cites: int) -> dict:
    return {
        "id": f"https://openalex.org/W{n}",
        "title": f"Work number {n} on tissues",
        "publication_year": year,
        "cited_by_count": cites,
    }


async def test_neighbours_resolve_references_in_or_batches_and_citing(router, options):
    seed = fixture_json("openalex/work_by_doi_10.1073_pnas.1414271111.json")
    referenced = [w.rsplit("/", 1)[-1] for w in seed["referenced_works"]]
    router.add(
        "GET",
        f"{API}/works/doi:10.1073/pnas.1414271111",
        fixture_response("openalex/work_by_doi_10.1073_pnas.1414271111.json"),
    )

    def resolve(request: httpx.Request) -> httpx.Response:
        flt = request.url.params["filter"]
        if flt.startswith("cites:"):
            return json_response({"meta": {"count": 2}, "results": [_work(900, 2020, 5), _work(901, 1995, 900)]})
        ids = flt.removeprefix("openalex_id:").split("|")
        return json_response(
            {"meta": {"count": len(ids)}, "results": [_work(int(i[1:]), 2000 + k % 20, k) for k, i in enumerate(ids)]}
        )

    router.add("GET", f"{API}/works", resolve)
    client = OpenAlexClient(options=options)
    got = await client.neighbours(
        Record(id="10.1073/pnas.1414271111", source="crossref", doi="10.1073/pnas.1414271111"),
        limit=6,
        gate=HopFilter(),
    )

    filters = [r.url.params["filter"] for r in router.requests[1:]]
    batches = [f.removeprefix("openalex_id:").split("|") for f in filters if f.startswith("openalex_id:")]
    assert [len(b) for b in batches] == [50, 23] and [i for b in batches for i in b] == referenced
    assert "cites:W2109415576" in filters
    assert len(got) == 6 and got[1].id == "W900"  # interleaved: best reference, then best citing work
    assert "W901" not in {r.id for r in got}  # 1995: older than citation_min_year
    assert all(r.provenance == [] for r in got)  # the search service tags hop records
    assert all(r.year >= 2000 and (r.year >= 2010 or r.citation_count >= 50) for r in got)


async def test_neighbours_of_an_openalex_record_use_its_references(router, options):
    router.add("GET", f"{API}/works", json_response({"meta": {}, "results": [_work(5, 2020, 3)]}))
    seed = Record(id="W1", source="openalex", openalex_id="W1", references=["W5"])
    got = await OpenAlexClient(options=options).neighbours(seed, limit=3)
    assert [r.id for r in got] == ["W5"] and len(router.requests) == 2  # no singleton fetch needed
    assert await OpenAlexClient(options=options).neighbours(Record(id="x", source="arxiv"), limit=3) == []
