"""Pruning never runs under a run that started after its thread was listed (a throwaway PostgreSQL)."""

from __future__ import annotations

import asyncio

import pytest
from psycopg_pool import AsyncConnectionPool

from agent.service import store
from agent.service.database import ensure_schema

pytestmark = pytest.mark.slow


async def _finished_thread(pool: AsyncConnectionPool, owner: str) -> str:
    thread = await store.create_thread(pool, owner, None, {})
    assert thread is not None
    run = await store.create_run(pool, owner, thread.thread_id, None, {}, {}, ["values"])
    claimed = await store.claim_run(pool, run.run_id, "w1")
    assert claimed is not None
    assert await store.finish_run(pool, run.run_id, claimed.attempts, "success", None, None)
    return thread.thread_id


def test_a_run_created_while_its_thread_is_pruned_waits_and_leaves_the_thread_to_prune_again(database_url):
    async def scenario() -> tuple[list[str], str | None, bool]:
        await ensure_schema(database_url)
        pool = AsyncConnectionPool(database_url, min_size=2, max_size=4, open=False, kwargs={"autocommit": True})
        await pool.open(wait=True)
        try:
            async with pool.connection() as conn:
                await conn.execute("INSERT INTO sparkit_users (user_id, name, key_hash) VALUES ('u1', 'alice', 'x')")
            thread_id = await _finished_thread(pool, "u1")
            async with store.threads_to_prune(pool, 0) as listed:
                creating = asyncio.create_task(store.create_run(pool, "u1", thread_id, None, {}, {}, ["values"]))
                await asyncio.sleep(0.3)
                waited = not creating.done()  # it needs the thread's row, which the prune holds
            second = await creating
            async with pool.connection() as conn:
                row = await (
                    await conn.execute("SELECT pruned_at FROM sparkit_threads WHERE thread_id = %s", (thread_id,))
                ).fetchone()
            assert row is not None
            return listed, second.status, waited and row[0] is None
        finally:
            await pool.close()

    listed, status, waited_and_unmarked = asyncio.run(scenario())
    assert len(listed) == 1 and status == "pending"
    # the new run came after the prune: the thread is not marked pruned, so the next watchdog tick prunes it again
    # once that run finishes (before, the prune marked it after the run had started, and its checkpoints were
    # pruned under it)
    assert waited_and_unmarked
