"""Per-host pacing and the response cache shared by every process through PostgreSQL, for the team server's workers:
with the in-process Pacer each of N workers spaces only its own calls, so N workers call a host N times too often.

`SharedPacer` has the Pacer's interface. Each request start is reserved in one atomic statement on the host's row
(start = max(the row's next start, now, this client's deferral); next start = start + interval), and the caller sleeps
until its start outside any lock, so ten workers queue behind one another exactly as ten tasks of one process do.
Times are wall-clock epoch seconds from the client's Clock (machines sharing a database keep NTP time; skew between
them shifts the spacing by the skew). A Retry-After or backoff (`defer`) moves this client's next reservation, and
through it every later one. The concurrency cap stays per process (it bounds this process's connections).

`PostgresResponseCache` is the ResponseCache (same keys, TTL and stale reads) on a table instead of a SQLite file.
Both use one blocking psycopg connection per process behind a lock, called from a worker thread, like the SQLite cache.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from agent.tools.http.cache import _KEPT_HEADERS, ResponseCache
from agent.tools.http.errors import HttpResponse
from agent.tools.http.pacing import Clock, HostPolicy, Pacer

log = logging.getLogger(__name__)

_RESERVE = """
INSERT INTO sparkit_http_pacing (host, next_start) VALUES (%(host)s, GREATEST(%(now)s, %(deferred)s) + %(interval)s)
ON CONFLICT (host) DO UPDATE
   SET next_start = GREATEST(sparkit_http_pacing.next_start, %(now)s, %(deferred)s) + %(interval)s
RETURNING next_start - %(interval)s
"""


class PostgresHttpStore:
    """One blocking connection to the service database, shared by this process's pacers and cache."""

    def __init__(self, url: str):
        self.url = url
        self._lock = threading.Lock()
        self._conn: Any = None

    def _connection(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        return self._conn

    def execute(self, query: str, params: Any = None, *, fetch: bool = False) -> Any:
        """Run one statement, reconnecting once when the connection was lost (a database restart)."""
        import psycopg

        with self._lock:
            for attempt in range(2):
                try:
                    cursor = self._connection().execute(query, params)
                    return cursor.fetchone() if fetch else None
                except psycopg.OperationalError:
                    self._conn = None
                    if attempt:
                        raise
        return None

    def reserve(self, host: str, now: float, interval: float, deferred: float) -> float:
        """The epoch second at which this request may start (reserved: no one else gets it)."""
        row = self.execute(
            _RESERVE,
            {"host": host, "now": now, "interval": interval, "deferred": deferred if math.isfinite(deferred) else now},
            fetch=True,
        )
        return float(row[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class SharedPacer(Pacer):
    """The Pacer's spacing, held in PostgreSQL for every process that paces `host` (module docstring)."""

    def __init__(self, host: str, min_interval_s: float, max_concurrency: int, clock: Clock, store: PostgresHttpStore):
        super().__init__(min_interval_s, max_concurrency, clock)
        self.host = host
        self.store = store
        self._deferred_until = -math.inf

    async def _wait_for_start(self, start_lock: asyncio.Lock) -> None:
        """The start reserved in the shared table (the Pacer keeps the concurrency cap in this process)."""
        now = self.clock.time()
        try:
            start = await asyncio.to_thread(
                self.store.reserve, self.host, now, self.min_interval_s, self._deferred_until
            )
        except Exception as exc:
            log.warning("shared pacing unavailable (%s); spacing this process's calls only", type(exc).__name__)
            start = max(now, self._deferred_until)
        if start - now > 0:
            await self.clock.sleep(start - now)

    def defer(self, seconds: float) -> None:
        self._deferred_until = max(self._deferred_until, self.clock.time() + max(0.0, seconds))


class PostgresResponseCache(ResponseCache):
    """ResponseCache on the service database's `sparkit_http_cache` table (module docstring)."""

    def __init__(
        self, store: PostgresHttpStore, *, ttl_s: float = 14 * 86400.0, wall_clock: Callable[[], float] = time.time
    ):
        self.store = store
        self.ttl_s = ttl_s
        self._wall = wall_clock

    def _get(self, key: str, allow_stale: bool) -> HttpResponse | None:
        row = self.store.execute(
            "SELECT url, status, headers, body, stored FROM sparkit_http_cache WHERE key = %s", (key,), fetch=True
        )
        if row is None:
            return None
        url, status, headers, body, stored = row
        if not allow_stale and self._wall() - stored > self.ttl_s:
            return None
        return HttpResponse(status=status, headers=json.loads(headers), content=bytes(body), url=url, from_cache=True)

    def _put(self, key: str, response: HttpResponse) -> None:
        headers = {k: v for k, v in response.headers.items() if k in _KEPT_HEADERS}
        self.store.execute(
            "INSERT INTO sparkit_http_cache (key, url, status, headers, body, stored) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (key) DO UPDATE SET url = EXCLUDED.url, status = EXCLUDED.status, headers = EXCLUDED.headers,"
            " body = EXCLUDED.body, stored = EXCLUDED.stored",
            (key, response.url, response.status, json.dumps(headers), response.content, self._wall()),
        )

    def __len__(self) -> int:
        row = self.store.execute("SELECT COUNT(*) FROM sparkit_http_cache", fetch=True)
        return int(row[0]) if row else 0

    def close(self) -> None:
        """The connection is the process's (shared by its pacers); it closes with the process."""


def shared_pacer_factory(store: PostgresHttpStore) -> Callable[[str, HostPolicy, Clock], Pacer]:
    def factory(host: str, policy: HostPolicy, clock: Clock) -> Pacer:
        return SharedPacer(host, policy.min_interval_s, policy.max_concurrency, clock, store)

    return factory
