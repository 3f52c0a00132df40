"""Where the service's database is, what to say when it cannot be reached, and its tables.

A database that is down or refuses the password stops `sparkit serve` / `sparkit worker` with one line naming what
failed and how to fix it (exit 2), and makes the HTTP API answer 503 with that line; the URL's password never
appears in either."""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit

import psycopg

from agent.errors import SparkitError

DATABASE_ENV = "SPARKIT_DATABASE_URL"


class DatabaseUnavailable(SparkitError):
    """The service's PostgreSQL cannot be used: down, unreachable, or refusing the credentials."""

    exit_code = 2


def database_url(explicit: str | None = None) -> str:
    """The PostgreSQL URL: the explicit one, else $SPARKIT_DATABASE_URL; DatabaseUnavailable when neither is set."""
    url = (explicit or os.environ.get(DATABASE_ENV) or "").strip()
    if not url:
        raise DatabaseUnavailable(
            f"no database configured: set {DATABASE_ENV}=postgresql://USER:PASSWORD@HOST:PORT/DB (or --database-url)"
        )
    return url


def where(url: str) -> str:
    """host:port/dbname of a URL, without the user's password (for messages)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "localhost"
        return f"{host}:{parts.port or 5432}{parts.path or ''}"
    except ValueError:
        return "the configured database"


def unavailable(url: str, exc: BaseException) -> DatabaseUnavailable:
    """One line saying what failed and how to fix it, from a psycopg connection error."""
    text = str(exc).lower()
    place = f"PostgreSQL at {where(url)}"
    user = urlsplit(url).username or "the configured user"
    if "password authentication failed" in text or "no password supplied" in text:
        hint = f"{place} refused the password for user {user!r}: fix the password in {DATABASE_ENV}"
    elif "does not exist" in text and "database" in text:
        hint = f"{place}: the database does not exist: create it (createdb) or fix the name in {DATABASE_ENV}"
    elif "does not exist" in text and "role" in text:
        hint = f"{place}: user {user!r} does not exist: create it (createuser) or fix {DATABASE_ENV}"
    elif "refused" in text or "could not connect" in text or "timeout" in text or "timed out" in text:
        hint = (
            f"{place} is not reachable (connection refused or timed out): start PostgreSQL, "
            f"or fix the host and port in {DATABASE_ENV}"
        )
    elif "could not translate host name" in text or "name or service not known" in text:
        hint = f"{place}: unknown host: fix the host in {DATABASE_ENV}"
    else:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        hint = f"{place} failed: {first}"
    from agent.common.redact import redact

    return DatabaseUnavailable(redact(hint.replace(urlsplit(url).password or "\0", "***")))


def is_connection_failure(exc: BaseException) -> bool:
    """A failure to reach or log in to the database (not a bad query)."""
    return isinstance(exc, (psycopg.OperationalError, psycopg.errors.ConnectionException)) or (
        type(exc).__name__ in {"PoolTimeout", "PoolClosed"}
    )


_SCHEMA = """
CREATE TABLE IF NOT EXISTS sparkit_users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS sparkit_threads (
    thread_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL REFERENCES sparkit_users(user_id),
    metadata JSONB NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    pruned_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS sparkit_threads_owner ON sparkit_threads (owner, updated_at DESC);
-- one row per run: what it was asked and the explicit settings tree it started with (the run-settings table that
-- sits beside the SQLite checkpoints on one machine), its queue job, its status and its output
CREATE TABLE IF NOT EXISTS sparkit_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES sparkit_threads(thread_id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    input JSONB,
    settings JSONB NOT NULL DEFAULT '{}',
    metadata JSONB NOT NULL DEFAULT '{}',
    stream_mode JSONB NOT NULL DEFAULT '["values"]',
    options JSONB NOT NULL DEFAULT '{}', -- checkpoint_id, interrupt_before / _after, command (service/run_options.py)
    status TEXT NOT NULL DEFAULT 'pending',
    job_id BIGINT,
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    resumed_from_step INTEGER,
    cancel_requested BOOLEAN NOT NULL DEFAULT false,
    output JSONB,
    error TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS sparkit_runs_thread ON sparkit_runs (thread_id, created_at DESC);
-- `options` came after the table's first release: added to a database made before it, and only then (an ALTER TABLE
-- locks the table even when the column exists, and a worker's open transactions on it would deadlock it)
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = current_schema() AND table_name = 'sparkit_runs'
                   AND column_name = 'options') THEN
        ALTER TABLE sparkit_runs ADD COLUMN options JSONB NOT NULL DEFAULT '{}';
    END IF;
END $$;
CREATE TABLE IF NOT EXISTS sparkit_run_events (
    seq BIGSERIAL PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES sparkit_runs(run_id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    mode TEXT NOT NULL,
    data JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS sparkit_run_events_run ON sparkit_run_events (run_id, seq);
CREATE TABLE IF NOT EXISTS sparkit_http_pacing (
    host TEXT PRIMARY KEY,
    next_start DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS sparkit_http_cache (
    key TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    status INTEGER NOT NULL,
    headers TEXT NOT NULL,
    body BYTEA NOT NULL,
    stored DOUBLE PRECISION NOT NULL
);
"""

_SCHEMA_LOCK = 0x5AA7_0001  # an advisory lock id: serve and workers starting together create the schema once


async def ensure_schema(url: str) -> None:
    """Create the service's tables, Procrastinate's and the checkpointer's, once, whoever starts first."""
    from procrastinate.schema import SchemaManager

    try:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise unavailable(url, exc) from None
    async with conn:
        # polled, not waited for: the checkpointer's first migrations build indexes CONCURRENTLY, which wait for every
        # open transaction, the statement of a process blocked in pg_advisory_lock included (a worker and `sparkit
        # users add` started together on a new database deadlocked so)
        while not (await (await conn.execute("SELECT pg_try_advisory_lock(%s)", (_SCHEMA_LOCK,))).fetchone() or [0])[0]:
            await asyncio.sleep(0.1)
        try:
            await conn.execute(_SCHEMA)  # a constant, several statements
            found = await (await conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")).fetchone()
            if not (found and found[0]):
                await conn.execute(SchemaManager.get_schema())  # no parameters: sent as written
            from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

            await AsyncPostgresSaver(conn).setup()  # type: ignore[arg-type]
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
