"""Per-host pacing and the response cache shared by all workers through PostgreSQL: ten workers, each with its own
connection and pacer, start their calls to one host at least the host's interval apart (a virtual clock records the
starts; nothing sleeps), where ten in-process pacers would all start at once."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import math

import httpx
import pytest

from agent.service.database import ensure_schema
from agent.tools.http import HostPolicy, HttpBase, HttpOptions, Pacer
from agent.tools.http.errors import HttpResponse
from agent.tools.http.postgres import PostgresHttpStore, PostgresResponseCache, SharedPacer, shared_pacer_factory

pytestmark = pytest.mark.slow

T0 = 1_800_000_000.0
_waited: contextvars.ContextVar[float] = contextvars.ContextVar("waited", default=0.0)


class TaskClock:
    """Virtual time per task: each task's clock stands at T0 plus what that task slept; sleeping returns at once.
    The time a task's call starts is then `now()` right after its pacer let it through."""

    def now(self) -> float:
        return T0 + _waited.get()

    def time(self) -> float:
        return self.now()

    async def sleep(self, seconds: float) -> None:
        _waited.set(_waited.get() + max(0.0, seconds))


async def _starts(pacers: list[Pacer], calls_each: int, clock: TaskClock) -> list[float]:
    async def worker(pacer: Pacer) -> list[float]:
        starts = []
        for _ in range(calls_each):
            async with pacer.slot():
                starts.append(clock.now())
        return starts

    return sorted(t for starts in await asyncio.gather(*(worker(p) for p in pacers)) for t in starts)


def _min_gap(starts: list[float]) -> float:
    return min((b - a for a, b in itertools.pairwise(starts)), default=math.inf)


async def test_ten_workers_share_one_request_per_second(database_url):
    await ensure_schema(database_url)
    clock = TaskClock()
    stores = [PostgresHttpStore(database_url) for _ in range(10)]  # one connection per worker process
    try:
        shared = [SharedPacer("api.semanticscholar.org", 1.0, 1, clock, store) for store in stores]
        starts = await _starts(shared, 3, clock)
    finally:
        for store in stores:
            store.close()
    assert len(starts) == 30
    assert _min_gap(starts) >= 1.0 - 1e-6, starts
    assert starts[-1] - starts[0] == pytest.approx(29.0)
    # without the shared store, each worker spaces only its own calls: ten start together
    local = await _starts([Pacer(1.0, 1, clock) for _ in range(10)], 3, clock)
    assert _min_gap(local) == 0.0


async def test_a_deferral_holds_back_every_worker(database_url):
    await ensure_schema(database_url)
    clock = TaskClock()
    one, two = PostgresHttpStore(database_url), PostgresHttpStore(database_url)
    try:
        first = SharedPacer("api.crossref.org", 0.5, 1, clock, one)
        second = SharedPacer("api.crossref.org", 0.5, 1, clock, two)
        first.defer(30.0)  # a 429 with Retry-After: 30 seen by the first worker
        async with first.slot():
            retried_at = clock.now()
        started = await _starts([second], 1, clock)
    finally:
        one.close()
        two.close()
    assert retried_at == pytest.approx(T0 + 30.0)
    assert started[0] >= retried_at + 0.5 - 1e-6


async def test_the_http_base_paces_through_the_configured_factory_and_shares_the_cache(database_url):
    await ensure_schema(database_url)
    store_a, store_b = PostgresHttpStore(database_url), PostgresHttpStore(database_url)
    calls: list[str] = []

    def reply(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return httpx.Response(200, json={"data": [1, 2]})

    try:
        clients = [
            HttpBase(
                "s2",
                "https://api.semanticscholar.org/graph/v1",
                policy=HostPolicy(min_interval_s=1.0),
                options=HttpOptions(
                    transport=httpx.MockTransport(reply),
                    cache=PostgresResponseCache(store),
                    pacer_factory=shared_pacer_factory(store),
                ),
            )
            for store in (store_a, store_b)
        ]
        assert all(isinstance(c.pacer, SharedPacer) and c.pacer.min_interval_s == 1.0 for c in clients)
        first = await clients[0].request("GET", "paper/search", params={"query": "metformin"})
        second = await clients[1].request("GET", "paper/search", params={"query": "metformin"})
        for client in clients:
            await client.aclose()
    finally:
        store_a.close()
        store_b.close()
    assert first.data == second.data == {"data": [1, 2]}
    assert len(calls) == 1 and second.from_cache, "the second worker did not read the first one's cached response"


async def test_the_postgres_cache_keeps_the_ttl_and_serves_stale_entries_on_failure(database_url):
    await ensure_schema(database_url)
    now = [1000.0]
    store = PostgresHttpStore(database_url)
    try:
        cache = PostgresResponseCache(store, ttl_s=10, wall_clock=lambda: now[0])
        await cache.put(
            "k",
            HttpResponse(
                status=200,
                headers={"content-type": "application/json", "x-secret": "s"},
                content=b'{"a": 1}',
                url="https://x.org/a",
            ),
        )
        fresh = await cache.get("k")
        now[0] += 11
        expired, stale = await cache.get("k"), await cache.get("k", allow_stale=True)
    finally:
        store.close()
    assert fresh is not None and fresh.content == b'{"a": 1}' and fresh.headers == {"content-type": "application/json"}
    assert expired is None and stale is not None and stale.from_cache and len(cache) == 1
