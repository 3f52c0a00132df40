"""The shared HTTP base: retries, Retry-After, timeouts, bad bodies, pacing, cache, allowlist, redaction, events.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from email.utils import formatdate

import httpx
import pytest

from agent.common.redact import redact, register_secret
from agent.errors import SourceError
from agent.tools.http import (
    CallEvent,
    HostNotAllowedError,
    HostPolicy,
    HttpBase,
    HttpOptions,
    ResponseCache,
    call_events,
    ensure_allowed,
    parse_retry_after,
)
from agent.tools.http.errors import ApiError
from agent.tools.http.reachability import UnreachableHosts, unreachable_hosts
from agent.tools.sources.arxiv import ArxivClient
from agent.tools.sources.crossref import CrossrefClient
from agent.tools.sources.openalex import OpenAlexClient
from agent.tools.sources.semantic_scholar import SemanticScholarClient
from tests.tools.helpers import EPOCH, Router, fixture_bytes, fixture_json, fixture_response, json_response

S2_SEARCH = "https://api.semanticscholar.org/graph/v1/paper/search"
OA_WORKS = "https://api.openalex.org/works"
CR_WORKS = "https://api.crossref.org/works"
ARXIV = "https://export.arxiv.org/api/query"
SECRET = "sk-DUMMY-SECRET-4242"


@pytest.fixture
def events():
    collected: list[CallEvent] = []
    token = call_events.set(collected)
    yield collected
    call_events.reset(token)


# --- retries -----------------------------------------------------------------------------------


async def test_429_with_retry_after_seconds_waits_exactly_that_long(router, options, clock, events):
    router.add(
        "GET",
        S2_SEARCH,
        fixture_response("semantic_scholar/quoted_issue_error_429_body.json", 429, {"Retry-After": "7"}),
        fixture_response("semantic_scholar/paper_search_turing_fields_title.json"),
    )
    client = SemanticScholarClient(api_key=SECRET, options=options)
    records = await client.search("turing", limit=5)
    assert [r.title for r in records][:2] == [
        "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, A Large-Scale Generative Language Model",
        "Quantum theory, the Church–Turing principle and the universal quantum computer",
    ]
    assert clock.sleeps == [7.0]
    assert router.times[1] - router.times[0] == pytest.approx(7.0)
    assert len(events) == 1 and events[0].attempts == 2 and events[0].status == 200 and events[0].error is None


async def test_retry_after_as_http_date(options, router, clock):
    when = formatdate(EPOCH + 12, usegmt=True)
    router.add(
        "GET",
        "https://api.example.org/thing",
        json_response({"busy": True}, 503, {"Retry-After": when}),
        json_response({"ok": 1}),
    )
    http = HttpBase("example", "https://api.example.org/", options=options)
    assert await http.get_json("thing") == {"ok": 1}
    assert clock.sleeps == [pytest.approx(12.0)]


def test_parse_retry_after_forms():
    assert parse_retry_after("3", EPOCH) == 3.0
    assert parse_retry_after(formatdate(EPOCH + 30, usegmt=True), EPOCH) == pytest.approx(30.0)
    assert parse_retry_after(formatdate(EPOCH - 30, usegmt=True), EPOCH) == 0.0
    assert parse_retry_after("soon", EPOCH) is None
    assert parse_retry_after(None, EPOCH) is None


async def test_503_twice_then_success_backs_off_exponentially(router, options, clock):
    body = fixture_response("openalex/works_filter_title.search_2_results.json")
    router.add("GET", OA_WORKS, json_response({}, 503), json_response({}, 503), body)
    records = await OpenAlexClient(options=options).search("chemistry tools", limit=5)
    assert [r.id for r in records] == ["W4396723768", "W4365597205"]
    assert len(router.requests) == 3
    first, second = (s for s in clock.sleeps if s > 0.15)  # the 0.1 s pacing gap is not a backoff
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0


async def test_openalex_403_is_retried_but_429_daily_limit_is_not(router, options):
    router.add(
        "GET",
        OA_WORKS,
        json_response({"error": "Rate limit"}, 403),
        fixture_response("openalex/works_filter_title.search_2_results.json"),
    )
    assert len(await OpenAlexClient(options=options).search("x", limit=2)) == 2
    router.add("GET", OA_WORKS, json_response({"error": "Daily limit"}, 429))
    before = len(router.requests)
    with pytest.raises(SourceError, match=r"HTTP 429.*OPENALEX_API_KEY"):
        await OpenAlexClient(options=options).search("x", limit=2)
    assert len(router.requests) == before + 1


async def test_timeout_becomes_source_error_after_bounded_retries(router, options, events):
    router.add("GET", CR_WORKS, httpx.ReadTimeout("read timed out"))
    client = CrossrefClient(options=options)
    with pytest.raises(SourceError) as caught:
        await client.search("ecology", limit=2)
    assert str(caught.value).startswith("crossref: timed out")
    assert "gave up after 4 attempts" in str(caught.value)
    assert len(router.requests) == client.http.policy.max_attempts == 4
    assert events[-1].error and events[-1].attempts == 4


async def test_connection_errors_are_retried(router, options):
    router.add("GET", CR_WORKS, httpx.ConnectError("boom"), fixture_response("crossref/works_query_ecology_rows2.json"))
    assert len(await CrossrefClient(options=options).search("ecology", limit=2)) == 2


async def test_refused_connection_is_retried_once_then_the_host_is_not_tried_again_in_the_run(router, options):
    router.add("GET", CR_WORKS, httpx.ConnectError("[Errno 111] Connection refused"))
    client = CrossrefClient(options=options)
    token = unreachable_hosts.set(UnreachableHosts())
    try:
        with pytest.raises(ApiError) as first:
            await client.search("ecology", limit=2)
        with pytest.raises(ApiError) as second:  # a later round of the same run: no connection attempt at all
            await client.search("ecology again", limit=2)
    finally:
        unreachable_hosts.reset(token)
    assert len(router.requests) == 2  # two attempts (not max_attempts=4), then none
    assert first.value.unreachable == second.value.unreachable == "connection refused"
    assert "api.crossref.org: connection refused" in str(first.value) and "not retried" in str(second.value)
    with pytest.raises(ApiError):  # another run (no memory of this one's dead hosts) tries the host again
        await client.search("ecology", limit=2)
    assert len(router.requests) == 4


async def test_dns_failure_and_connect_timeout_mark_a_host_unreachable_but_http_errors_do_not(router, options):
    router.add("GET", CR_WORKS, httpx.ConnectError("[Errno -2] Name or service not known"))
    router.add("GET", OA_WORKS, httpx.ConnectTimeout("timed out"))
    router.add("GET", S2_SEARCH, json_response({"message": "server error"}, 503))
    memory = UnreachableHosts()
    token = unreachable_hosts.set(memory)
    try:
        for client in (
            CrossrefClient(options=options),
            OpenAlexClient(options=options),
            SemanticScholarClient(options=options),
        ):
            with pytest.raises(ApiError):
                await client.search("x", limit=1)
    finally:
        unreachable_hosts.reset(token)
    assert memory.reason("api.crossref.org") == "DNS lookup failed"
    assert memory.reason("api.openalex.org") == "connect timed out"
    assert memory.reason("api.semanticscholar.org") is None  # the host answered: an HTTP error is not a dead host
    assert len(memory) == 2


async def test_retry_after_beyond_the_cap_fails_fast(router, options, clock):
    router.add("GET", S2_SEARCH, json_response({"message": "slow down"}, 429, {"Retry-After": "3600"}))
    with pytest.raises(SourceError, match="wait 3600 s"):
        await SemanticScholarClient(api_key=SECRET, options=options).search("x", limit=1)
    assert len(router.requests) == 1 and clock.sleeps == []


async def test_keyless_s2_429_error_tells_user_to_set_the_key(router, options):
    router.add("GET", S2_SEARCH, fixture_response("semantic_scholar/quoted_issue_error_429_body.json", 429))
    with pytest.raises(SourceError) as caught:
        await SemanticScholarClient(options=options).search("x", limit=1)
    message = str(caught.value)
    assert "Too Many Requests" in message and "SEMANTIC_SCHOLAR_API_KEY" in message
    assert len(router.requests) == 5  # keyless policy retries harder


# --- bad bodies --------------------------------------------------------------------------------


async def test_malformed_json_is_a_clean_source_error_and_not_cached(tmp_path, router, clock):
    cache = ResponseCache(tmp_path)
    options = HttpOptions(transport=router.transport, clock=clock, cache=cache)
    router.add("GET", S2_SEARCH, httpx.Response(200, content=b'{"data": [{"paperId": '))
    with pytest.raises(SourceError) as caught:
        await SemanticScholarClient(options=options).search("turing", limit=3)
    assert str(caught.value) == "semantic_scholar: malformed JSON response (HTTP 200; truncated or not JSON)"
    assert caught.value.__cause__ is None and len(cache) == 0


async def test_truncated_body_is_a_clean_source_error(router, options):
    body = fixture_bytes("semantic_scholar/paper_search_turing_fields_title.json")
    router.add(
        "GET",
        S2_SEARCH,
        httpx.Response(200, content=body[: len(body) // 2], headers={"content-length": str(len(body))}),
    )
    with pytest.raises(SourceError, match="malformed JSON") as caught:
        await SemanticScholarClient(options=options).search("turing", limit=3)
    assert len(str(caught.value)) < 120 and "Traceback" not in str(caught.value)


async def test_truncated_xml_is_a_clean_source_error(router, options):
    body = fixture_bytes("arxiv/search_testing_start0_max10.xml")
    router.add("GET", ARXIV, httpx.Response(200, content=body[:5000]))
    with pytest.raises(SourceError, match="arxiv: malformed XML"):
        await ArxivClient(options=options).search("testing", limit=10)


async def test_html_page_where_json_was_expected(router, options):
    router.add("GET", OA_WORKS, fixture_response("openalex/error_404_work_not_found.html", 200))
    with pytest.raises(SourceError, match="expected JSON but got an HTML page"):
        await OpenAlexClient(options=options).search("x", limit=1)


async def test_shape_errors_are_source_errors(router, options):
    router.add("GET", S2_SEARCH, json_response(["not", "an", "object"]))
    with pytest.raises(SourceError, match="unexpected response shape"):
        await SemanticScholarClient(options=options).search("x", limit=1)


# --- pacing ------------------------------------------------------------------------------------


async def test_arxiv_requests_are_never_closer_than_three_seconds(router, options):
    in_flight = max_in_flight = 0

    async def answer(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, max_in_flight
        in_flight += 1
        max_in_flight = max(max_in_flight, in_flight)
        await asyncio.sleep(0)
        in_flight -= 1
        return fixture_response("arxiv/search_testing_start0_max10.xml")

    router.add("GET", ARXIV, answer)
    client = ArxivClient(options=options)
    results = await asyncio.gather(*(client.search(f"testing topic{i}", limit=3) for i in range(4)))
    assert all(len(r) == 3 for r in results)
    gaps = [b - a for a, b in zip(router.times, router.times[1:])]
    assert len(gaps) == 3 and all(gap >= 3.0 for gap in gaps)
    assert max_in_flight == 1


def _crossref_headers() -> dict[str, str]:
    recorded = fixture_json("crossref/response_headers_public_pool.json")["response"]["headers"]
    wanted = ("x-api-pool", "x-concurrency-limit", "x-rate-limit-interval", "x-rate-limit-limit", "content-type")
    return {k: v[0] for k, v in recorded.items() if k in wanted}


async def _concurrent_crossref(
    router: Router, options: HttpOptions, headers: dict[str, str], n: int
) -> tuple[CrossrefClient, int]:
    in_flight = max_in_flight = 0

    async def answer(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, max_in_flight
        in_flight += 1
        max_in_flight = max(max_in_flight, in_flight)
        for _ in range(3):
            await asyncio.sleep(0)
        in_flight -= 1
        return httpx.Response(200, content=fixture_bytes("crossref/works_query_ecology_rows2.json"), headers=headers)

    router.add("GET", CR_WORKS, answer)
    client = CrossrefClient(options=options)
    await client.search("warm up", limit=2)  # the first response announces the limits
    await asyncio.gather(*(client.search(f"ecology {i}", limit=2) for i in range(n)))
    return client, max_in_flight


async def test_crossref_follows_recorded_public_pool_headers(router, options):
    headers = _crossref_headers()
    assert headers["x-concurrency-limit"] == "1" and headers["x-rate-limit-limit"] == "5"
    client, max_in_flight = await _concurrent_crossref(router, options, headers, 6)
    assert max_in_flight == 1
    assert client.http.pacer.min_interval_s == pytest.approx(0.2)
    gaps = [b - a for a, b in zip(router.times, router.times[1:])]
    assert all(gap >= 0.2 - 1e-9 for gap in gaps)


async def test_crossref_never_exceeds_an_announced_concurrency_limit(router, options):
    headers = {**_crossref_headers(), "x-concurrency-limit": "3", "x-rate-limit-limit": "50"}
    client, max_in_flight = await _concurrent_crossref(router, options, headers, 8)
    assert client.http.pacer.max_concurrency == 3
    assert 2 <= max_in_flight <= 3
    assert client.http.pacer.min_interval_s == pytest.approx(0.02)


# --- cache -------------------------------------------------------------------------------------


async def test_repeated_query_hits_the_cache_and_rerun_works_offline(tmp_path, router, clock, events):
    router.add("GET", S2_SEARCH, fixture_response("semantic_scholar/paper_search_turing_fields_title.json"))
    options = HttpOptions(transport=router.transport, clock=clock, cache=ResponseCache(tmp_path))
    first = await SemanticScholarClient(options=options).search("turing", limit=5)
    again = await SemanticScholarClient(options=options).search("turing", limit=5)
    assert len(router.requests) == 1 and [r.id for r in first] == [r.id for r in again]
    assert [e.cache_hit for e in events] == [False, True] and events[1].attempts == 0

    offline = Router(clock)
    offline.add("GET", S2_SEARCH, httpx.ConnectError("no network"))
    rerun_options = HttpOptions(transport=offline.transport, clock=clock, cache=ResponseCache(tmp_path))
    rerun = await SemanticScholarClient(options=rerun_options).search("turing", limit=5)
    assert [r.id for r in rerun] == [r.id for r in first] and offline.requests == []


async def test_cache_key_ignores_secrets_and_stale_entries_serve_when_network_fails(tmp_path, router, clock):
    wall = [1000.0]
    cache = ResponseCache(tmp_path, ttl_s=60, wall_clock=lambda: wall[0])
    router.add("GET", OA_WORKS, fixture_response("openalex/works_filter_title.search_2_results.json"))
    options = HttpOptions(transport=router.transport, clock=clock, cache=cache)
    await OpenAlexClient(api_key="key-one-1111", options=options).search("chem", limit=2)
    await OpenAlexClient(api_key="key-two-2222", options=options).search("chem", limit=2)
    assert len(router.requests) == 1  # rotating the key does not invalidate the cache
    assert b"key-one-1111" not in (tmp_path / "responses.sqlite").read_bytes()

    wall[0] += 3600  # expired: the network is tried first, and on failure the stale copy is served
    failing = Router(clock)
    failing.add("GET", OA_WORKS, httpx.ConnectError("offline"))
    stale_options = HttpOptions(transport=failing.transport, clock=clock, cache=cache)
    records = await OpenAlexClient(options=stale_options).search("chem", limit=2)
    assert (
        len(records) == 2 and len(failing.requests) == HostPolicy().max_connect_attempts == 2
    )  # a failed connection is retried once


async def test_post_bodies_are_cached_by_body_hash(tmp_path, router, clock):
    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(json.loads(request.content))
        return fixture_response("semantic_scholar/paper_batch_post_all_fields_with_null.json")

    router.add("POST", "https://api.semanticscholar.org/graph/v1/paper/batch", answer)
    options = HttpOptions(transport=router.transport, clock=clock, cache=ResponseCache(tmp_path))
    client = SemanticScholarClient(options=options)
    ids = ["a", "b", "c", "d"]
    await client.batch(ids)
    await client.batch(ids)
    await client.batch(["a", "b", "c", "e"])
    assert len(calls) == 2


# --- hosts -------------------------------------------------------------------------------------


async def test_clients_only_contact_their_own_hosts(router, options):
    http = OpenAlexClient(options=options).http
    with pytest.raises(HostNotAllowedError, match=r"evil.example.com"):
        await http.get_json("https://evil.example.com/works")
    assert router.requests == []


async def test_redirects_are_followed_only_within_the_allowlist(router, options):
    work = fixture_response("openalex/work_W2741809807_by_id.json")
    router.add(
        "GET", "https://api.openalex.org/works/W1", httpx.Response(301, headers={"location": "/works/W2741809807"})
    )
    router.add("GET", "https://api.openalex.org/works/W2741809807", work)
    client = OpenAlexClient(options=options)
    merged = await client.work("W1")
    assert merged is not None and merged.openalex_id == "W2741809807"

    router.add(
        "GET", "https://api.openalex.org/works/W9", httpx.Response(302, headers={"location": "https://elsewhere.org/x"})
    )
    with pytest.raises(HostNotAllowedError, match=r"elsewhere.org"):
        await client.work("W9")


def test_ensure_allowed_for_urls_found_in_results():
    allow = {"export.arxiv.org", ".nature.com"}
    assert ensure_allowed("https://export.arxiv.org/pdf/2104.12255v1", allow).host == "export.arxiv.org"
    assert ensure_allowed("https://www.nature.com/articles/x.pdf", allow).host == "www.nature.com"
    for url in (
        "https://peerj.com/articles/4375.pdf",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://arxiv.org.evil.com/x",
    ):
        with pytest.raises(HostNotAllowedError):
            ensure_allowed(url, allow)


# --- secrets -----------------------------------------------------------------------------------


async def test_keys_never_appear_in_errors_logs_events_or_repr(router, options, events, caplog):
    caplog.set_level(logging.DEBUG)
    echo = {"error": f"invalid api_key={SECRET} for https://api.openalex.org/works?api_key={SECRET}"}
    router.add("GET", OA_WORKS, json_response({}, 503), json_response(echo, 400))
    client = OpenAlexClient(api_key=SECRET, options=options)
    with pytest.raises(SourceError) as caught:
        await client.search("x", limit=1)
    assert router.requests[0].url.params["api_key"] == SECRET  # sent where the API wants it
    assert "invalid api_key=[REDACTED]" in str(caught.value)
    texts = [
        str(caught.value),
        repr(caught.value),
        repr(client),
        repr(client.http),
        caplog.text,
        *(e.model_dump_json() for e in events),
    ]
    assert all(SECRET not in text for text in texts)
    assert "api_key" not in events[0].path

    router.add("GET", S2_SEARCH, json_response({"error": f"x-api-key: {SECRET} rejected"}, 403))
    s2 = SemanticScholarClient(api_key=SECRET, options=options)
    with pytest.raises(SourceError) as caught:
        await s2.search("x", limit=1)
    assert router.requests[-1].headers["x-api-key"] == SECRET
    assert SECRET not in str(caught.value) and SECRET not in repr(s2) and SECRET not in caplog.text


def test_redactor_masks_known_values_params_and_auth_headers():
    register_secret("abcd1234secret")
    text = redact("url?api_key=zzz&key=yyy&q=1 Authorization: Bearer tok123 x-api-key=qqq abcd1234secret")
    for leaked in ("zzz", "yyy", "tok123", "qqq", "abcd1234secret"):
        assert leaked not in text
    assert "q=1" in text


def test_keys_given_to_a_client_are_masked_everywhere(options):
    SemanticScholarClient(api_key="s2k1", options=options)  # a 4-character key, registered by the HTTP base
    assert "s2k1" not in redact("error from https://host/?q=s2k1")


# --- events ------------------------------------------------------------------------------------


async def test_call_events_only_when_a_list_is_set(router, options):
    router.add("GET", "https://api.example.org/a", json_response({"ok": True}))
    http = HttpBase(
        "example", "https://api.example.org/", options=options, params={"api_key": SECRET}, secrets=[SECRET]
    )
    assert call_events.get() is None
    await http.get_json("a")  # nothing to record into
    collected: list[CallEvent] = []
    token = call_events.set(collected)
    try:
        await http.get_json("a", params={"q": "x y"})
    finally:
        call_events.reset(token)
    (event,) = collected
    assert (event.source, event.host, event.method, event.status, event.attempts, event.cache_hit) == (
        "example",
        "api.example.org",
        "GET",
        200,
        1,
        False,
    )
    assert event.path == "/a?q=x+y"


async def test_per_attempt_timeout_applies_to_slow_servers(clock):
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return json_response({})

    router = Router(clock)
    router.add("GET", "https://api.example.org/slow", slow)
    policy = HostPolicy(timeout_s=0.01, max_attempts=2, backoff_base_s=0.0)
    http = HttpBase(
        "example",
        "https://api.example.org/",
        policy=policy,
        options=HttpOptions(transport=router.transport, clock=clock, rng=random.Random(1)),
    )
    with pytest.raises(SourceError, match=r"timed out after 0.01 s"):
        await http.get_json("slow")
    assert len(router.requests) == 2


def test_importing_the_http_package_changes_no_logger():
    """The redacting filter on httpx's loggers is installed by the first client, not as an import side effect."""
    import subprocess
    import sys

    code = (
        "import logging, agent.tools.http as h\n"
        "print(len(logging.getLogger('httpx').filters), end=' ')\n"
        "h.HttpBase('x', 'https://example.org')\n"
        "print(len(logging.getLogger('httpx').filters))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "1"]


def test_api_specific_error_bodies_are_read_by_their_own_client_only():
    from agent.tools.http import error_detail
    from agent.tools.sources.pubchem import fault_message

    fault = json.dumps(
        {"Fault": {"Code": "PUGREST.BadRequest", "Message": "Invalid property", "Details": ["Bogus"]}}
    ).encode()
    headers = {"content-type": "application/json"}
    assert error_detail(fault, headers, fault_message) == "Invalid property Bogus"
    assert error_detail(fault, headers).startswith('{"Fault"')  # no other client reads PubChem's shape
    assert (
        error_detail(b'{"error": "Paper not found"}', headers, fault_message) == "Paper not found"
    )  # common fields still read
