"""The persistent response cache: a re-asked query costs nothing and a re-run works when the network fails."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from agent.tools.http.errors import HttpResponse

_KEPT_HEADERS = ("content-type",)


class ResponseCache:
    """Persistent SQLite cache of 200 and 404 responses, keyed by method + secret-free URL + body hash.

    Entries younger than `ttl_s` are served instead of the network; older ones only when the network
    fails (so a re-run of the same question still works offline). One file, safe across processes (WAL).
    """

    def __init__(
        self, directory: Path | str, *, ttl_s: float = 14 * 86400.0, wall_clock: Callable[[], float] = time.time
    ):
        self.path = Path(directory).expanduser() / "responses.sqlite"
        self.ttl_s = ttl_s
        self._wall = wall_clock
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    @staticmethod
    def make_key(method: str, url: str, body: bytes | None) -> str:
        digest = hashlib.sha256(body or b"").hexdigest()
        return hashlib.sha256(f"{method.upper()} {url} {digest}".encode()).hexdigest()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, url TEXT, status INTEGER,"
                " headers TEXT, body BLOB, stored REAL)"
            )
            self._conn = conn
        return self._conn

    def _get(self, key: str, allow_stale: bool) -> HttpResponse | None:
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT url, status, headers, body, stored FROM responses WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        url, status, headers, body, stored = row
        if not allow_stale and self._wall() - stored > self.ttl_s:
            return None
        return HttpResponse(status=status, headers=json.loads(headers), content=body, url=url, from_cache=True)

    def _put(self, key: str, response: HttpResponse) -> None:
        headers = {k: v for k, v in response.headers.items() if k in _KEPT_HEADERS}
        with self._lock:
            conn = self._connection()
            conn.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (key, response.url, response.status, json.dumps(headers), response.content, self._wall()),
            )
            conn.commit()

    async def get(self, key: str, *, allow_stale: bool = False) -> HttpResponse | None:
        return await asyncio.to_thread(self._get, key, allow_stale)

    async def put(self, key: str, response: HttpResponse) -> None:
        await asyncio.to_thread(self._put, key, response)

    def __len__(self) -> int:
        with self._lock:
            return self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
