"""`sparkit worker`: takes runs from the PostgreSQL queue (Procrastinate) and executes them.

Why Procrastinate: PostgreSQL is already required for the checkpoints, so the queue adds no second service to run
and back up (Celery and Dramatiq want Redis or RabbitMQ); jobs are rows, taken with SELECT ... FOR UPDATE SKIP LOCKED,
and every worker sends a heartbeat. A job whose worker stopped sending heartbeats (killed, machine lost) is a stalled
job: each worker's watchdog puts such jobs back in the queue, and the run resumes from its last checkpoint
(agent/service/execute.py). Jobs of one thread share a Procrastinate lock, so they never run at the same time.

The watchdog also prunes the checkpoints of threads whose runs all finished more than `prune_after_s` ago, keeping
each such thread's latest checkpoint (its final state and answer)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import socket
from dataclasses import dataclass
from typing import Any

import procrastinate
from psycopg_pool import AsyncConnectionPool

from agent.service import store
from agent.service.database import ensure_schema
from agent.service.pools import checkpointer, open_pools

log = logging.getLogger(__name__)

TASK_NAME = "sparkit.execute_run"
QUEUE = "sparkit"


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker runs: its name, how many runs at once, heartbeat and stall timings, pruning and extra imports."""

    name: str = ""
    concurrency: int = 1
    heartbeat_s: float = 5.0
    stalled_after_s: float = 30.0
    prune_after_s: float = 7 * 86400.0
    imports: tuple[str, ...] = ()
    poll_s: float = 2.0


def queue_app(url: str) -> procrastinate.App:
    """A Procrastinate app on the service database (the server defers with it, the worker runs it)."""
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))


async def defer_run(app: procrastinate.App, run_id: str, thread_id: str) -> int:
    """Queue a run; returns the job id. The thread is the job's lock: one run of a thread executes at a time."""
    return await app.configure_task(TASK_NAME, queue=QUEUE, lock=f"thread:{thread_id}").defer_async(run_id=run_id)


def database_retry() -> procrastinate.RetryStrategy:
    """A run that lost its database connection (execute.DatabaseLost) is retried, first after 3 s, then after waits
    that double (5, 9, 17 s ... about 2 hours over 12 tries), so that a restart or a failover of PostgreSQL loses no
    run; any other exception is the run's own outcome, recorded, not retried."""
    from agent.service.execute import DatabaseLost

    return procrastinate.RetryStrategy(max_attempts=12, wait=1, exponential_wait=2, retry_exceptions={DatabaseLost})


async def run_worker(url: str, options: WorkerOptions) -> None:
    """Run until SIGINT/SIGTERM: take runs, execute them, watch for stalled jobs."""
    from agent.service.execute import execute_run
    from agent.tracing.otel import ensure_export

    await ensure_schema(url)
    if endpoint := ensure_export():  # every run of this worker goes there (agent/tracing/otel.py)
        log.info("exporting runs over OpenTelemetry to %s", endpoint)
    for module in options.imports:
        importlib.import_module(module)
    name = options.name or f"{socket.gethostname()}:{os.getpid()}"
    os.environ.setdefault("SPARKIT_HTTP_STATE", "postgres")  # pacing and the response cache shared with every worker
    os.environ.setdefault("SPARKIT_DATABASE_URL", url)
    async with open_pools(url, 2) as (pool, saver_pool):
        saver = checkpointer(saver_pool)
        app = queue_app(url)

        @app.task(name=TASK_NAME, queue=QUEUE, retry=database_retry())
        async def execute(run_id: str) -> None:
            await execute_run(url, run_id, name)

        async with app.open_async():
            log.info("worker %s ready (concurrency %d)", name, options.concurrency)
            watchdog = asyncio.create_task(_watchdog(app, pool, saver, options))
            try:
                await app.run_worker_async(
                    name=name,
                    queues=[QUEUE],
                    concurrency=options.concurrency,
                    update_heartbeat_interval=options.heartbeat_s,
                    stalled_worker_timeout=options.stalled_after_s,
                    fetch_job_polling_interval=options.poll_s,
                    abort_job_polling_interval=options.poll_s,
                )
            finally:
                watchdog.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watchdog


async def _watchdog(app: procrastinate.App, pool: AsyncConnectionPool, saver: Any, options: WorkerOptions) -> None:
    while True:
        await asyncio.sleep(options.heartbeat_s)
        try:
            await requeue_stalled(app, pool, options.stalled_after_s)
            await prune_finished(pool, saver, options.prune_after_s)
        except Exception as exc:
            log.warning("watchdog: %s: %s", type(exc).__name__, str(exc).splitlines()[0][:200] if str(exc) else "")


_WATCHDOG_LOCK = 0x5AA7_0002


async def requeue_stalled(app: procrastinate.App, pool: AsyncConnectionPool, stalled_after_s: float) -> int:
    """Put back in the queue the runs whose worker stopped sending heartbeats; returns how many.

    One watchdog at a time (an advisory lock): otherwise a second watchdog that listed a stalled job before the first
    one requeued it could requeue it again after a live worker took it, and two workers would run it."""
    count = 0
    async with pool.connection() as conn:
        locked = await (await conn.execute("SELECT pg_try_advisory_lock(%s)", (_WATCHDOG_LOCK,))).fetchone()
        if not (locked and locked[0]):
            return 0
        try:
            for job in await app.job_manager.get_stalled_jobs(
                task_name=TASK_NAME, seconds_since_heartbeat=stalled_after_s
            ):
                try:
                    await app.job_manager.retry_job(job)
                except Exception:
                    continue
                count += 1
                log.warning(
                    "job %s: its worker stopped (no heartbeat for %g s); back in the queue", job.id, stalled_after_s
                )
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_WATCHDOG_LOCK,))
    return count


async def prune_finished(pool: AsyncConnectionPool, saver: Any, older_than_s: float) -> list[str]:
    """Keep only the latest checkpoint of threads whose runs all finished more than `older_than_s` ago."""
    async with store.threads_to_prune(pool, older_than_s) as threads:
        if threads:
            await saver.aprune(threads, strategy="keep_latest")
            log.info("pruned the checkpoints of %d finished thread(s)", len(threads))
    return threads
