"""Threads, runs and run events in PostgreSQL. Every read and write a user makes is filtered by its owner, so another
user's thread id finds nothing (the API answers 404, never the thread's content); the worker's reads are by run id."""

from __future__ import annotations

import contextlib
import datetime as dt
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel

RunStatus = Literal["pending", "running", "success", "error", "interrupted"]
ACTIVE: tuple[str, ...] = ("pending", "running")
FINISHED: tuple[str, ...] = ("success", "error", "interrupted")


class ThreadBusy(Exception):
    """The thread has a run pending or running (a thread holds one question at a time)."""


class ThreadRow(BaseModel):
    thread_id: str
    owner: str
    metadata: dict[str, Any]
    created_at: dt.datetime
    updated_at: dt.datetime
    status: str = "idle"


class RunRow(BaseModel):
    run_id: str
    thread_id: str
    owner: str
    input: dict[str, Any] | None
    settings: dict[str, Any]
    metadata: dict[str, Any]
    stream_mode: list[str]
    options: dict[str, Any] = {}
    status: RunStatus
    job_id: int | None
    attempts: int
    worker: str | None
    resumed_from_step: int | None
    cancel_requested: bool
    output: dict[str, Any] | None
    error: str | None
    created_at: dt.datetime
    updated_at: dt.datetime


class Event(BaseModel):
    seq: int
    attempt: int
    mode: str
    data: Any


_THREAD_STATUS = """COALESCE((SELECT CASE r.status WHEN 'pending' THEN 'busy' WHEN 'running' THEN 'busy'
    WHEN 'interrupted' THEN 'interrupted' WHEN 'error' THEN 'error' ELSE 'idle' END
    FROM sparkit_runs r WHERE r.thread_id = t.thread_id ORDER BY r.created_at DESC LIMIT 1), 'idle') AS status"""


async def create_thread(
    pool: AsyncConnectionPool,
    owner: str,
    thread_id: str | None,
    metadata: dict[str, Any],
    if_exists: Literal["raise", "do_nothing"] = "raise",
) -> ThreadRow | None:
    """A new thread; None when `thread_id` is taken and if_exists='raise' (or taken by another user: never shared)."""
    thread_id = thread_id or str(uuid.uuid4())
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "INSERT INTO sparkit_threads (thread_id, owner, metadata) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            (thread_id, owner, Jsonb(metadata)),
        )
    if cursor.rowcount == 0 and if_exists == "raise":
        return None
    return await get_thread(pool, owner, thread_id)


async def get_thread(pool: AsyncConnectionPool, owner: str, thread_id: str) -> ThreadRow | None:
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"SELECT t.*, {_THREAD_STATUS} FROM sparkit_threads t WHERE t.thread_id = %s AND t.owner = %s",
            (thread_id, owner),
        )
        row = await cur.fetchone()
    return ThreadRow.model_validate(row) if row else None


async def search_threads(
    pool: AsyncConnectionPool, owner: str, metadata: dict[str, Any], limit: int, offset: int
) -> list[ThreadRow]:
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"SELECT t.*, {_THREAD_STATUS} FROM sparkit_threads t WHERE t.owner = %s AND t.metadata @> %s"
            " ORDER BY t.updated_at DESC LIMIT %s OFFSET %s",
            (owner, Jsonb(metadata), limit, offset),
        )
        rows = await cur.fetchall()
    return [ThreadRow.model_validate(row) for row in rows]


async def delete_thread(pool: AsyncConnectionPool, owner: str, thread_id: str) -> bool:
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "DELETE FROM sparkit_threads WHERE thread_id = %s AND owner = %s", (thread_id, owner)
        )
        if cursor.rowcount:
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
                await conn.execute(f"DELETE FROM {table} WHERE thread_id = %s", (thread_id,))
    return bool(cursor.rowcount)


async def create_run(
    pool: AsyncConnectionPool,
    owner: str,
    thread_id: str,
    graph_input: dict[str, Any] | None,
    settings: dict[str, Any],
    metadata: dict[str, Any],
    stream_mode: list[str],
    options: dict[str, Any] | None = None,
) -> RunRow:
    """A pending run on the caller's thread; ThreadBusy when the thread already has one pending or running."""
    run_id = str(uuid.uuid4())
    async with pool.connection() as conn, conn.transaction():
        locked = await (
            await conn.execute(
                "SELECT 1 FROM sparkit_threads WHERE thread_id = %s AND owner = %s FOR UPDATE", (thread_id, owner)
            )
        ).fetchone()
        if locked is None:
            raise LookupError(thread_id)
        busy = await (
            await conn.execute(
                "SELECT 1 FROM sparkit_runs WHERE thread_id = %s AND status = ANY(%s)", (thread_id, list(ACTIVE))
            )
        ).fetchone()
        if busy:
            raise ThreadBusy(thread_id)
        await conn.execute(
            "INSERT INTO sparkit_runs (run_id, thread_id, owner, input, settings, metadata, stream_mode, options)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (
                run_id,
                thread_id,
                owner,
                Jsonb(graph_input) if graph_input is not None else None,
                Jsonb(settings),
                Jsonb(metadata),
                Jsonb(stream_mode),
                Jsonb(options or {}),
            ),
        )
        await conn.execute(
            "UPDATE sparkit_threads SET updated_at = now(), pruned_at = NULL WHERE thread_id = %s", (thread_id,)
        )
    found = await get_run(pool, owner, thread_id, run_id)
    assert found is not None
    return found


async def set_job(pool: AsyncConnectionPool, run_id: str, job_id: int) -> None:
    async with pool.connection() as conn:
        await conn.execute("UPDATE sparkit_runs SET job_id = %s WHERE run_id = %s", (job_id, run_id))


async def get_run(pool: AsyncConnectionPool, owner: str, thread_id: str, run_id: str) -> RunRow | None:
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT * FROM sparkit_runs WHERE run_id = %s AND thread_id = %s AND owner = %s", (run_id, thread_id, owner)
        )
        row = await cur.fetchone()
    return RunRow.model_validate(row) if row else None


async def list_runs(pool: AsyncConnectionPool, owner: str, thread_id: str, limit: int, offset: int) -> list[RunRow]:
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT * FROM sparkit_runs WHERE thread_id = %s AND owner = %s ORDER BY created_at DESC"
            " LIMIT %s OFFSET %s",
            (thread_id, owner, limit, offset),
        )
        rows = await cur.fetchall()
    return [RunRow.model_validate(row) for row in rows]


async def last_settings(pool: AsyncConnectionPool, owner: str, thread_id: str) -> dict[str, Any] | None:
    """The settings tree the thread's latest run started with (a resumed run keeps them)."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT settings FROM sparkit_runs WHERE thread_id = %s AND owner = %s"
                " ORDER BY created_at DESC LIMIT 1",
                (thread_id, owner),
            )
        ).fetchone()
    return dict(row[0]) if row else None


# -- the worker's side: by run id ---------------------------------------------------------------


async def claim_run(pool: AsyncConnectionPool, run_id: str, worker: str) -> RunRow | None:
    """Mark a run running on this worker (one more attempt); None when it is finished or was cancelled meanwhile."""
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "UPDATE sparkit_runs SET status = 'running', attempts = attempts + 1, worker = %s, updated_at = now()"
            " WHERE run_id = %s AND status = ANY(%s) AND NOT cancel_requested RETURNING *",
            (worker, run_id, list(ACTIVE)),
        )
        row = await cur.fetchone()
    return RunRow.model_validate(row) if row else None


async def note_resumed(pool: AsyncConnectionPool, run_id: str, step: int) -> None:
    async with pool.connection() as conn:
        await conn.execute("UPDATE sparkit_runs SET resumed_from_step = %s WHERE run_id = %s", (step, run_id))


Verdict = Literal["go", "cancelled", "superseded"]

_ADD_EVENT = """
WITH run AS (SELECT cancel_requested, attempts FROM sparkit_runs WHERE run_id = %(run)s),
stored AS (INSERT INTO sparkit_run_events (run_id, attempt, mode, data)
           SELECT %(run)s, %(attempt)s, %(mode)s, %(data)s FROM run WHERE run.attempts = %(attempt)s RETURNING 1)
SELECT cancel_requested, attempts FROM run
"""


async def add_event(pool: AsyncConnectionPool, run_id: str, attempt: int, mode: str, data: Any) -> Verdict:
    """Store one streamed event of this attempt, and say whether to go on: 'cancelled' when the run's cancellation was
    requested, 'superseded' when a later attempt took the run over (its worker was thought gone: this one stops and
    stores nothing more)."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(_ADD_EVENT, {"run": run_id, "attempt": attempt, "mode": mode, "data": Jsonb(data)})
        ).fetchone()
    if row is None or row[1] != attempt:
        return "superseded"
    return "cancelled" if row[0] else "go"


async def answer_stored(pool: AsyncConnectionPool, run: RunRow) -> bool:
    """Whether an attempt of this run stored its answer (its final `values` event)."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT 1 FROM sparkit_run_events WHERE run_id = %s AND mode = 'values' AND data ? 'answer' LIMIT 1",
                (run.run_id,),
            )
        ).fetchone()
    return row is not None


async def finish_run(
    pool: AsyncConnectionPool,
    run_id: str,
    attempt: int,
    status: RunStatus,
    output: dict[str, Any] | None,
    error: str | None,
) -> bool:
    """Record how the run ended, unless a later attempt took it over; returns whether it was recorded."""
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "UPDATE sparkit_runs SET status = %s, output = %s, error = %s, updated_at = now(), finished_at = now()"
            " WHERE run_id = %s AND attempts = %s",
            (status, Jsonb(output) if output is not None else None, error, run_id, attempt),
        )
        await conn.execute(
            "UPDATE sparkit_threads SET updated_at = now() WHERE thread_id ="
            " (SELECT thread_id FROM sparkit_runs WHERE run_id = %s)",
            (run_id,),
        )
    return bool(cursor.rowcount)


async def events_after(pool: AsyncConnectionPool, run_id: str, seq: int, limit: int = 500) -> list[Event]:
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT seq, attempt, mode, data FROM sparkit_run_events WHERE run_id = %s AND seq > %s"
            " ORDER BY seq LIMIT %s",
            (run_id, seq, limit),
        )
        rows = await cur.fetchall()
    return [Event.model_validate(row) for row in rows]


async def request_cancel(pool: AsyncConnectionPool, owner: str, thread_id: str, run_id: str) -> RunRow | None:
    """Ask a run to stop: a pending one is interrupted at once, a running one at its next event."""
    async with pool.connection() as conn:
        await conn.execute(
            "UPDATE sparkit_runs SET cancel_requested = true, updated_at = now(),"
            " status = CASE WHEN status = 'pending' THEN 'interrupted' ELSE status END,"
            " finished_at = CASE WHEN status = 'pending' THEN now() ELSE finished_at END"
            " WHERE run_id = %s AND thread_id = %s AND owner = %s",
            (run_id, thread_id, owner),
        )
    return await get_run(pool, owner, thread_id, run_id)


@contextlib.asynccontextmanager
async def threads_to_prune(pool: AsyncConnectionPool, older_than_s: float) -> AsyncIterator[list[str]]:
    """Threads whose runs all finished more than `older_than_s` ago and that were not pruned since, held locked (the
    row lock `create_run` takes) until the block ends, when they are marked pruned: a run created on one of them in
    the meantime waits, so a thread is never pruned under a run that started after it was listed."""
    async with pool.connection() as conn, conn.transaction():
        rows = await (
            await conn.execute(
                "SELECT t.thread_id FROM sparkit_threads t WHERE t.pruned_at IS NULL"
                " AND NOT EXISTS (SELECT 1 FROM sparkit_runs r WHERE r.thread_id = t.thread_id AND (r.status = ANY(%s)"
                "   OR r.finished_at > now() - make_interval(secs => %s)))"
                " AND EXISTS (SELECT 1 FROM sparkit_runs r WHERE r.thread_id = t.thread_id)"
                " FOR UPDATE OF t SKIP LOCKED",
                (list(ACTIVE), older_than_s),
            )
        ).fetchall()
        threads = [str(row[0]) for row in rows]
        yield threads
        if threads:
            await conn.execute("UPDATE sparkit_threads SET pruned_at = now() WHERE thread_id = ANY(%s)", (threads,))
