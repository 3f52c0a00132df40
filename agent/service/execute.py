"""One run on a worker: the graph with PostgreSQL checkpoints, its events stored for the server to stream.

The run executes on its own event loop in a thread, with its own connections: graph nodes do CPU-bound work that
would otherwise hold the worker's loop, and with it the Procrastinate heartbeat, so a busy worker would look dead and
its run would be taken again. Should that still happen (a machine paused longer than the stall timeout), each attempt
is fenced: its events and its result are stored only while it is the run's latest attempt, and a superseded attempt
stops at its next event.

The checkpoints carry the run id in their metadata, so a run taken again after its worker died continues from its
own last checkpoint (input None) instead of asking its question anew; a run that finished just before the worker died
is only recorded. Steps are checkpointed synchronously (durability="sync"): a step's result is in the database before
the next step starts, so a SIGKILL loses at most the step in progress. Cancellation is read at each stored event.

A run whose database connection breaks (PostgreSQL restarted or failed over) is neither failed nor finished: the
attempt raises DatabaseLost, its job goes back in the queue after a pause (worker.py's retry strategy), and the next
attempt continues from the last checkpoint, as after a killed worker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from psycopg_pool import AsyncConnectionPool

from agent.records import Answer
from agent.service import store
from agent.service.database import DatabaseUnavailable, is_connection_failure
from agent.service.jsonable import jsonable
from agent.service.requests import ASSISTANT_ID, GRAPH_ID
from agent.service.run_options import EXTRA_MODES, graph_command, stream_event
from agent.tracing.events import collecting_calls
from agent.tracing.otel import start_run as start_otel_run

if TYPE_CHECKING:
    from agent.tracing.otel import OtelRun

log = logging.getLogger(__name__)

RUN_KEY = "sparkit_run_id"
"""The checkpoint metadata key naming the run that wrote it."""


class _ActiveRuns:
    """Runs executing in this process (`--concurrency`): they share the cached backends, whose HTTP clients only the
    last run out releases."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def enter(self) -> None:
        with self.lock:
            self.count += 1

    def leave(self) -> bool:
        """True for the last run out."""
        with self.lock:
            self.count -= 1
            return self.count == 0


_active = _ActiveRuns()

Outcome = tuple[store.RunStatus | None, dict[str, Any] | None, str | None]
"""(status, output, error); status None: the attempt was superseded and records nothing."""


class DatabaseLost(Exception):
    """The attempt lost its database connection; the run is left running for its job's retry to continue."""


def lost_database(exc: BaseException) -> bool:
    """The database could not be reached or dropped the connection (this or a cause of it), not a failing query."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, DatabaseUnavailable) or is_connection_failure(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def execute_run(url: str, run_id: str, worker: str) -> None:
    """Run (or continue) one run on a private loop in a thread, so the worker's own loop keeps its heartbeat."""
    try:
        await asyncio.to_thread(asyncio.run, _execute(url, run_id, worker))
    except Exception as exc:
        if not lost_database(exc):
            raise
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        log.warning("run %s: the database connection was lost (%s: %s); retried", run_id, type(exc).__name__, first)
        raise DatabaseLost(run_id) from exc


async def _execute(url: str, run_id: str, worker: str) -> None:
    from agent.service.pools import checkpointer, open_pools

    async with open_pools(url, 2) as (pool, saver_pool):
        run = await store.claim_run(pool, run_id, worker)
        if run is None:
            log.info("run %s: finished or cancelled before this worker took it", run_id)
            return
        log.info("run %s: attempt %d on %s", run_id, run.attempts, worker)
        _active.enter()
        try:
            status, output, error = await _run_graph(pool, checkpointer(saver_pool), run)
        except Exception as exc:
            if lost_database(exc):
                raise  # not the run's failure: its job is retried (execute_run)
            from agent.common.redact import redact

            message = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
            status, output, error = "error", None, f"{type(exc).__name__}: {message}"
        finally:
            if _active.leave():
                from agent.backend import release_backends

                await release_backends()  # their HTTP clients belong to the loops of the runs that opened them
        if status is None or not await store.finish_run(pool, run_id, run.attempts, status, output, error):
            log.warning(
                "run %s: attempt %d was superseded by a later one; its result is not recorded", run_id, run.attempts
            )
            return
        log.info("run %s: %s", run_id, status)


async def _run_graph(pool: AsyncConnectionPool, saver: Any, run: store.RunRow) -> Outcome:
    from agent.api import make_context
    from agent.budget import RUN_CLOCK_KEY, RunClock
    from agent.graph import compile_graph

    settings = make_context(run.settings)
    app = compile_graph(saver)
    thread: RunnableConfig = {"configurable": {"thread_id": run.thread_id}}
    snapshot = await app.aget_state(thread)
    metadata = snapshot.metadata or {}
    mine = metadata.get(RUN_KEY) == run.run_id
    if mine:
        await store.note_resumed(pool, run.run_id, int(metadata.get("step", -1)))
    options = run.options
    start: RunnableConfig = {"configurable": {"thread_id": run.thread_id}}
    if options.get("checkpoint_id") and not mine:  # a fork or replay; once it wrote a checkpoint, it goes on from it
        start["configurable"]["checkpoint_id"] = options["checkpoint_id"]
        snapshot = await app.aget_state(start)
    graph_input: Any = None if mine or run.input is None else run.input
    if graph_input is None and options.get("command") and not mine:
        graph_input = graph_command(options["command"])
    # `tasks`, not `next`: a step whose tasks all finished before the worker died has no `next` (their writes are
    # stored) but is not done; continuing applies those writes and goes on
    if graph_input is None and not snapshot.tasks:
        if mine and snapshot.values.get("answer") is not None:  # it had finished when its worker died
            # its answer event may be stored already (the attempt died between storing it and recording the run's
            # end): streamed once, not twice
            return await _finish(pool, run, snapshot.values["answer"], stream=not await store.answer_stored(pool, run))
        return "error", None, "nothing to resume: the thread's last run finished; send a question as input"
    config: RunnableConfig = {
        "configurable": {**start["configurable"], RUN_CLOCK_KEY: RunClock()},
        "recursion_limit": settings.budget.recursion_limit,
        "metadata": {  # on every checkpoint of the run, with the keys langgraph-api stamps there
            RUN_KEY: run.run_id,
            "run_id": run.run_id,
            "graph_id": GRAPH_ID,
            "assistant_id": ASSISTANT_ID,
            "run_attempt": run.attempts,
        },
    }
    extra = [mode for mode in EXTRA_MODES if mode in run.stream_mode]
    answer: Any = None
    otel = start_otel_run(run.run_id, run.input or {}, resumed=graph_input is None)
    outcome: Outcome = "error", None, "the run stopped before its end"
    try:
        with otel.active() if otel else contextlib.nullcontext(), collecting_calls(otel.calls if otel else None):
            outcome, answer = await _stream(pool, app, run, graph_input, config, settings, extra)
    except BaseException as exc:
        outcome = "error", None, f"{type(exc).__name__}: {exc}"
        raise
    finally:
        if otel is not None:
            await _end_otel(otel, app, thread, answer, outcome[2] if outcome[0] == "error" else None)
    if outcome[0] != "success":
        return outcome
    if answer is None:
        state = await app.aget_state(thread)
        if state.next:  # stopped at a breakpoint: the next run (input None, or a command) goes on from here
            return await _stopped(pool, run, state.values)
        return "error", None, f"the run ended without an answer (next: {list(state.next)})"
    return await _finish(pool, run, answer)


async def _end_otel(otel: OtelRun, app: Any, thread: RunnableConfig, answer: Any, error: str | None) -> None:
    """Give the run's OpenTelemetry export its final state and answer, end it and send it (bounded, in a thread)."""
    with contextlib.suppress(Exception):  # the state is only read for the retrieval spans
        otel.final_state = (await app.aget_state(thread)).values
    otel.finish(answer if isinstance(answer, Answer) else None, error)
    await asyncio.to_thread(otel.flush)


async def _stream(
    pool: AsyncConnectionPool,
    app: Any,
    run: store.RunRow,
    graph_input: Any,
    config: RunnableConfig,
    settings: Any,
    extra: list[str],
) -> tuple[Outcome, Any]:
    """Stream the graph, storing each event; ("success", None, None) when it ran to its end, with the answer
    (None when it stopped at a breakpoint)."""
    from agent.tools.http.reachability import UnreachableHosts, unreachable_hosts
    from agent.tracing.progress import ProgressContext

    options = run.options
    progress = ProgressContext()
    answer: Any = None
    token = unreachable_hosts.set(UnreachableHosts())
    try:
        stream = app.astream(
            graph_input,
            config,
            context=settings,
            stream_mode=["updates", "custom", *extra],
            durability="sync",
            interrupt_before=options.get("interrupt_before"),
            interrupt_after=options.get("interrupt_after"),
        )
        try:
            async for mode, chunk in stream:
                if mode == "updates":
                    progress.observe(chunk)
                    for update in chunk.values():
                        if isinstance(update, dict) and update.get("answer") is not None:
                            answer = update["answer"]
                    data = chunk
                elif mode == "custom":
                    data = progress.enrich(chunk)
                else:
                    data = stream_event(mode, chunk)
                verdict = await store.add_event(pool, run.run_id, run.attempts, mode, jsonable(data))
                if verdict == "cancelled":
                    return ("interrupted", None, "cancelled"), answer
                if verdict == "superseded":
                    return (None, None, None), answer
        finally:
            await stream.aclose()
    finally:
        unreachable_hosts.reset(token)
    return ("success", None, None), answer


async def _stopped(pool: AsyncConnectionPool, run: store.RunRow, values: Any) -> Outcome:
    """A run stopped at one of its breakpoints: `interrupted`, its output the state there (what langgraph-api's
    runs.wait returns), also streamed as its `values`."""
    output = jsonable(values)
    assert isinstance(output, dict)
    if await store.add_event(pool, run.run_id, run.attempts, "values", output) == "superseded":
        return None, None, None
    return "interrupted", output, None


async def _finish(pool: AsyncConnectionPool, run: store.RunRow, answer: Any, *, stream: bool = True) -> Outcome:
    output = {"answer": jsonable(answer)}
    if stream and await store.add_event(pool, run.run_id, run.attempts, "values", output) == "superseded":
        return None, None, None
    return "success", output, None
