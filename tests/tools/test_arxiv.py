"""arXiv client replayed from the recorded Atom feeds.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest

from agent.errors import SourceError
from agent.interfaces import LiteratureSource
from agent.literature import Record
from agent.tools.sources.arxiv import ArxivClient, build_search_query, parse_feed
from tests.tools.helpers import fixture_bytes, fixture_response

ARXIV = "https://export.arxiv.org/api/query"


def feed_records(fixture: str) -> list[Record]:
    """The records of a recorded id_list feed, through the parser every search uses."""
    return parse_feed(ET.fromstring(fixture_bytes(fixture))).records


async def test_search_page_maps_every_field(router, options):
    router.add("GET", ARXIV, fixture_response("arxiv/search_testing_start0_max10.xml"))
    client = ArxivClient(options=options)
    assert isinstance(client, LiteratureSource) and client.supports_citations is False
    records = await client.search("testing", limit=10)
    assert len(records) == 10
    first = records[0]
    assert first.id == "2202.12139v1" and first.arxiv_id == "2202.12139" and first.arxiv_version == "v1"
    assert first.title == "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    assert first.abstract.startswith("Deep Learning (DL) has revolutionized") and first.sentences
    assert first.year == 2022
    assert first.authors == ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]
    assert first.doi == "10.1109/icstw55395.2022.00035"
    assert first.venue.startswith("Artificial Intelligence in Software Testing")
    assert first.oa_pdf_url == "https://arxiv.org/pdf/2202.12139v1"
    assert first.url == "https://arxiv.org/abs/2202.12139v1"
    assert (first.source, first.source_type) == ("arxiv", "preprint")
    assert first.provenance[0].query == "testing" and first.provenance[0].via == "search"
    params = router.requests[0].url.params
    assert params["search_query"] == "all:testing" and params["sortBy"] == "relevance" and params["max_results"] == "10"


async def test_second_page_and_versions(router, options):
    router.add("GET", ARXIV, fixture_response("arxiv/search_testing_start10_max10.xml"))
    records = await ArxivClient(options=options).search("testing", limit=10)
    by_id = {r.id: r for r in records}
    assert "2406.19956v3" in by_id and by_id["2406.19956v3"].arxiv_version == "v3"
    assert by_id["2407.18756v1"].doi == "10.1145/3679006.3685071"


def test_feed_with_many_authors_and_non_ascii():
    (record,) = feed_records("arxiv/id_list_1707.08567.xml")
    assert record.title == "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    assert len(record.authors) == 34 and "Dirk Wübben" in record.authors and record.year == 2017
    assert record.provenance == []  # provenance comes from the search that found it


def test_feed_where_one_id_does_not_exist():
    assert [r.arxiv_id for r in feed_records("arxiv/id_list_0808.05394_1707.08567.xml")] == ["1707.08567"]


def test_old_style_id_with_affiliations_and_journal_ref():
    (record,) = feed_records("arxiv/id_list_astro-ph_0601001_oldstyle.xml")
    assert (record.id, record.arxiv_id, record.arxiv_version) == ("astro-ph/0601001v1", "astro-ph/0601001", "v1")
    assert record.venue == "ActaAstron.56:1-50,2006"
    assert record.institutions == ["Ohio State", "CfA", "Warsaw University Observatory"]
    assert record.abstract.startswith("We derive the frequencies")  # leading whitespace collapsed
    assert "arxiv:astro-ph/0601001" in record.dedupe_keys()


def test_versioned_id_is_kept_for_citation():
    (record,) = feed_records("arxiv/id_list_2104.12255v1_versioned.xml")
    assert record.id == "2104.12255v1" and record.arxiv_id == "2104.12255" and record.title == "0"


async def test_unknown_id_is_an_empty_result(router, options):
    router.add("GET", ARXIV, fixture_response("arxiv/id_list_0000.0000_empty.xml"))
    assert await ArxivClient(options=options).search("0000.0000", limit=5) == []
    assert len(router.requests) == 1  # totalResults 0: a real empty answer, not retried


async def test_malformed_id_is_a_source_error_with_the_api_message(router, options):
    router.add("GET", ARXIV, fixture_response("arxiv/error_400_malformed_id_abc.xml", 400))
    with pytest.raises(SourceError, match="arxiv: query rejected: incorrect id format for abc"):
        await ArxivClient(options=options).search("abc", limit=5)


async def test_transient_empty_page_is_retried_without_the_cache(router, options):
    empty_but_claims_results = (
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" '
        b'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><opensearch:totalResults>214881'
        b"</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex></feed>"
    )
    router.add(
        "GET",
        ARXIV,
        httpx.Response(200, content=empty_but_claims_results),
        fixture_response("arxiv/search_testing_start0_max10.xml"),
    )
    records = await ArxivClient(options=options).search("testing", limit=5)
    assert len(records) == 5 and len(router.requests) == 2


async def test_neighbours_is_empty_without_a_citation_graph(options):
    assert (
        await ArxivClient(options=options).neighbours(Record(id="x", source="arxiv", arxiv_id="2104.12255"), limit=5)
        == []
    )


def test_query_builder():
    assert build_search_query("testing") == "all:testing"
    assert (
        build_search_query('the "graphene oxide" membranes for water')
        == 'all:"graphene oxide" AND all:membranes AND all:water'
    )
    assert build_search_query("ti:transformer AND au:vaswani") == "ti:transformer AND au:vaswani"
    assert build_search_query("of the") == "all:of the"  # nothing but stopwords: fall back to the raw text
    assert build_search_query("COVID-19 vaccine efficacy trial outcomes mortality") == (
        "all:covid-19 AND all:vaccine AND all:efficacy AND all:trial AND all:outcomes"
    )
