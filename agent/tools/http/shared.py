"""Which pacing and response cache the live clients use, chosen by configuration: `SPARKIT_HTTP_STATE=local` (the
default: a pacer per client in this process and the SQLite cache under SPARKIT_HOME) or `postgres` (pacing and cache
shared by every process through $SPARKIT_DATABASE_URL; `sparkit worker` sets it). psycopg is imported only then."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.errors import ConfigurationError
from agent.tools.http.cache import ResponseCache
from agent.tools.http.pacing import Clock, HostPolicy, Pacer

HTTP_STATE_ENV = "SPARKIT_HTTP_STATE"
DATABASE_ENV = "SPARKIT_DATABASE_URL"

if TYPE_CHECKING:
    from agent.tools.http.postgres import PostgresHttpStore

PacerFactory = Callable[[str, HostPolicy, Clock], Pacer]


def http_state(cache_dir: Path, use_cache: bool) -> tuple[ResponseCache | None, PacerFactory | None]:
    """The response cache (None when off) and the pacer factory (None: the in-process Pacer) configured."""
    kind = (os.environ.get(HTTP_STATE_ENV) or "local").strip().lower()
    if kind == "local":
        return (ResponseCache(cache_dir) if use_cache else None), None
    if kind != "postgres":
        raise ConfigurationError(f"{HTTP_STATE_ENV}={kind[:20]!r} is not known; use local or postgres")
    url = os.environ.get(DATABASE_ENV)
    if not url:
        raise ConfigurationError(
            f"{HTTP_STATE_ENV}=postgres needs {DATABASE_ENV}=postgresql://USER:PASSWORD@HOST:PORT/DB"
        )
    from agent.tools.http.postgres import PostgresResponseCache, shared_pacer_factory

    store = _store(url)
    return (PostgresResponseCache(store) if use_cache else None), shared_pacer_factory(store)


@functools.cache
def _store(url: str) -> PostgresHttpStore:
    """One connection per process and database URL, shared by every client's pacer and the cache."""
    from agent.tools.http.postgres import PostgresHttpStore

    return PostgresHttpStore(url)
