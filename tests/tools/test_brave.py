"""Brave web search client replayed from the recorded response and the quoted 429 body.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import pytest

from agent.errors import ConfigurationError, SourceError
from agent.interfaces import LiteratureSource
from agent.tools.sources.brave import BraveSearchClient
from tests.tools.helpers import fixture_response

URL = "https://api.search.brave.com/res/v1/web/search"
KEY = "BSA-dummy-token-77"


async def test_web_results_become_web_records(router, options):
    router.add("GET", URL, fixture_response("brave/web_search_blue_tack_minimal.json"))
    client = BraveSearchClient(api_key=KEY, options=options)
    assert isinstance(client, LiteratureSource) and not client.supports_citations
    (record,) = await client.search("Blue tack", limit=5)
    assert (record.id, record.source, record.source_type) == ("https://en.wikipedia.org/wiki/Blu_Tack", "brave", "web")
    assert record.title == "Blu Tack - Wikipedia" and record.venue == "Wikipedia" and record.year == 2023
    assert record.abstract.startswith(
        "Blu Tack is a reusable putty-like pressure-sensitive adhesive produced by Bostik,"
    )
    assert "<strong>" not in record.abstract and record.provenance[0].query == "Blue tack"
    request = router.requests[0]
    assert request.headers["x-subscription-token"] == KEY and KEY not in str(request.url)
    assert request.url.params["count"] == "5" and request.url.params["text_decorations"] == "false"
    assert await client.neighbours(record, limit=3) == []


async def test_rate_limited_is_retried_once_then_reported(router, options, clock):
    router.add("GET", URL, fixture_response("brave/quoted_issue_error_429_rate_limited.json", 429))
    client = BraveSearchClient(api_key=KEY, options=options)
    with pytest.raises(SourceError) as caught:
        await client.search("Blue tack", limit=5)
    message = str(caught.value)
    assert message.startswith("brave: HTTP 429: Request rate limit exceeded for plan")
    assert "1 request/s" in message and KEY not in message
    assert len(router.requests) == 2 and router.times[1] - router.times[0] >= 1.0


async def test_rate_limit_headers_push_the_next_request_back(router, options):
    headers = {"X-RateLimit-Remaining": "0, 1999", "X-RateLimit-Reset": "4, 1419704"}
    router.add("GET", URL, fixture_response("brave/web_search_blue_tack_minimal.json", headers=headers))
    client = BraveSearchClient(api_key=KEY, options=options)
    await client.search("one", limit=1)
    await client.search("two", limit=1)
    assert router.times[1] - router.times[0] == pytest.approx(4.0)


def test_missing_key_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="BRAVE_API_KEY"):
        BraveSearchClient()


async def test_key_from_environment_is_sent_and_hidden(monkeypatch, router, options):
    monkeypatch.setenv("BRAVE_API_KEY", KEY)
    router.add("GET", URL, fixture_response("brave/web_search_blue_tack_minimal.json"))
    client = BraveSearchClient(options=options)
    assert KEY not in repr(client) and KEY not in repr(client.http)
    await client.search("Blue tack", limit=1)
    assert router.requests[0].headers["x-subscription-token"] == KEY
