"""The connection pools a service process opens: its own and the checkpointer's, and the checkpointer over them.

`sparkit serve` and `sparkit worker` both open them; a database that cannot be reached is one DatabaseUnavailable
line (agent/service/database.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from agent.service.database import unavailable


@contextlib.asynccontextmanager
async def open_pools(url: str, size: int) -> AsyncIterator[tuple[AsyncConnectionPool, AsyncConnectionPool]]:
    """The service pool and the checkpointer's pool (autocommit, dict rows, no prepared statements, as it needs).

    Each connection is checked as it leaves the pool (`check_connection`, an empty query): after PostgreSQL
    restarted, the pooled connections are dead, and without the check every one of them failed its next query once
    (a 503 per request, a failed run step) although the database was back."""
    check = AsyncConnectionPool.check_connection
    pool = AsyncConnectionPool(url, min_size=1, max_size=size, open=False, kwargs={"autocommit": True}, check=check)
    saver_pool = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=size,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=check,
    )
    try:
        await pool.open(wait=True, timeout=15)
        await saver_pool.open(wait=True, timeout=15)
    except Exception as exc:
        await pool.close()
        await saver_pool.close()
        import psycopg

        try:
            (await psycopg.AsyncConnection.connect(url, connect_timeout=10)).close()  # type: ignore[unused-coroutine]
        except psycopg.Error as cause:
            raise unavailable(url, cause) from None
        raise unavailable(url, exc) from None
    try:
        yield pool, saver_pool
    finally:
        await saver_pool.close()
        await pool.close()


def checkpointer(saver_pool: AsyncConnectionPool) -> Any:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    from agent.api.checkpoint import serializer

    return AsyncPostgresSaver(saver_pool, serde=serializer())  # type: ignore[arg-type]
