"""One run on a worker: the graph with PostgreSQL checkpoints, its events stored for the server to stream.

The checkpoints carry the run id in their metadata, so a run taken again after its worker died continues from its
own last checkpoint (input None) instead of asking its question anew; a run that finished just before the worker died
is only recorded. Steps are checkpointed synchronously (durability="sync"): a step's result is in the database before
the next step starts, so a SIGKILL loses at most the step in progress. Cancellation is read at each stored event."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

from psycopg_pool import AsyncConnectionPool

from agent.service import store
from agent.service.jsonable import jsonable

log = logging.getLogger(__name__)

RUN_KEY = "sparkit_run_id"
"""The checkpoint metadata key naming the run that wrote it."""

_runs_in_loop: Counter[asyncio.AbstractEventLoop] = Counter()


async def execute_run(pool: AsyncConnectionPool, saver: Any, run_id: str, worker: str) -> None:
    """Run (or continue) one run and record how it ended; a run finished or cancelled meanwhile is left alone."""
    run = await store.claim_run(pool, run_id, worker)
    if run is None:
        log.info("run %s: finished or cancelled before this worker took it", run_id)
        return
    log.info("run %s: attempt %d on %s", run_id, run.attempts, worker)
    loop = asyncio.get_running_loop()
    _runs_in_loop[loop] += 1
    try:
        status, output, error = await _run_graph(pool, saver, run)
    except Exception as exc:  # noqa: BLE001 - recorded as the run's error (resumable), never lost
        from agent.redact import redact

        message = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
        status, output, error = "error", None, f"{type(exc).__name__}: {message}"
    finally:
        _runs_in_loop[loop] -= 1
        if not _runs_in_loop[loop]:
            del _runs_in_loop[loop]
            from agent.backend import release_backends

            await release_backends()
    await store.finish_run(pool, run_id, status, output, error)
    log.info("run %s: %s", run_id, status)


async def _run_graph(pool: AsyncConnectionPool, saver: Any, run: store.RunRow) -> tuple[store.RunStatus, dict[str, Any] | None, str | None]:
    from agent.api import make_context
    from agent.budget import RUN_CLOCK_KEY, RunClock
    from agent.graph import compile_graph
    from agent.tools.http.reachability import UnreachableHosts, unreachable_hosts
    from agent.tracing.progress import ProgressContext

    settings = make_context(run.settings)
    app = compile_graph(saver)
    thread = {"configurable": {"thread_id": run.thread_id}}
    snapshot = await app.aget_state(thread)
    metadata = snapshot.metadata or {}
    mine = metadata.get(RUN_KEY) == run.run_id
    if mine:
        await store.note_resumed(pool, run.run_id, int(metadata.get("step", -1)))
    graph_input = None if mine or run.input is None else run.input
    if graph_input is None and not snapshot.next and not mine:
        return "error", None, "nothing to resume: the thread's last run finished; send a question as input"
    config = {
        "configurable": {"thread_id": run.thread_id, RUN_CLOCK_KEY: RunClock()},
        "recursion_limit": settings.budget.recursion_limit,
        "metadata": {RUN_KEY: run.run_id},
    }
    progress = ProgressContext()
    token = unreachable_hosts.set(UnreachableHosts())
    try:
        if snapshot.next or graph_input is not None:
            stream = app.astream(graph_input, config, context=settings, stream_mode=["updates", "custom"], durability="sync")
            async with contextlib.aclosing(stream):
                async for mode, chunk in stream:
                    if mode == "updates":
                        progress.observe(chunk)
                        data = chunk
                    else:
                        data = progress.enrich(chunk)
                    if await store.add_event(pool, run.run_id, run.attempts, mode, jsonable(data)):
                        return "interrupted", None, "cancelled"
    finally:
        unreachable_hosts.reset(token)
    state = await app.aget_state(thread)
    answer = state.values.get("answer")
    if answer is None:
        return "error", None, f"the run ended without an answer (next: {list(state.next)})"
    output = {"answer": jsonable(answer)}
    await store.add_event(pool, run.run_id, run.attempts, "values", output)
    return "success", output, None
