"""The run engine: one run of the compiled graph, streamed and checkpointed, with its progress events, trace,
OpenTelemetry export and review rounds. A failure inside the run becomes an ERROR answer that `resume` continues;
configuration and input problems (SparkitError) still raise, after their trace is written.

The Python API (agent/api/__init__.py) validates what it is asked and hands each run here; so do `resume` and the
MCP tools through it. Checkpoints are SQLite under SPARKIT_HOME (thread id = run id, agent/api/checkpoint.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.common.redact import redact
from agent.config import Context, sparkit_home
from agent.errors import InputError, SparkitError
from agent.records import Answer, Status
from agent.review.ledger import ReviewPending, check_edits, pending_review, resumable
from agent.tracing.events import collecting_calls
from agent.tracing.otel import start_run as start_otel_run
from agent.tracing.progress import NodeUsage, ProgressContext
from agent.tracing.session import TraceSession, tracing_enabled

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from agent.tracing.otel import OtelRun

log = logging.getLogger(__name__)

EventHandler = Callable[[dict[str, Any]], None]
Reviewer = Callable[[dict[str, Any]], Any]
"""Asked at the review point (`review=True`): the ledger under review in (agent.review.ledger.review_payload), the
edits out ({"strike": [...], "read": {...}, "add": [...]}; {} approves), or an awaitable of them."""
MAX_REVIEW_ROUNDS = 4  # the node asks again when edits do not fit; it gives up after its own bound
NO_RESUME = object()
_runs_in_loop: Counter[asyncio.AbstractEventLoop] = Counter()
"""Runs in progress per event loop: concurrent runs share the cached backends' HTTP clients, so only the last one
to end releases them."""


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def checkpoint_path() -> Path:
    return sparkit_home() / "checkpoints.sqlite"


async def _run(
    graph_input: dict[str, Any] | None,
    settings: Context,
    run_id: str,
    on_event: EventHandler | None,
    callbacks: list | None,
    session: TraceSession | None,
    by_node: NodeUsage,
    otel: OtelRun | None = None,
    reviewer: Reviewer | None = None,
    resume_value: Any = NO_RESUME,
) -> Answer:
    """Stream the graph; progress events go to `on_event` (and the trace), per-node usage to `by_node`; the final
    state to the trace session and the OpenTelemetry export when on. At the review point `reviewer` is asked and the
    run resumed with its edits; without one, ReviewPending (the run waits, checkpointed). `resume_value` resumes a
    run stopped at its review point with those edits."""
    from langgraph.types import Command

    from agent.api.checkpoint import save_run_settings, sqlite_checkpointer
    from agent.backend import release_backends
    from agent.budget import RUN_CLOCK_KEY, RunClock
    from agent.graph import compile_graph

    handlers = [*(callbacks or []), *([session.tracer] if session else [])]
    clock = RunClock()  # this run, or this resumed segment, from now; set-up time is excluded as it happens
    by_node.exclude_setup(lambda: clock.setup_s)
    config: RunnableConfig = {
        "configurable": {"thread_id": run_id, RUN_CLOCK_KEY: clock},
        "recursion_limit": settings.budget.recursion_limit,
        "callbacks": handlers,
    }
    progress = ProgressContext()
    loop = asyncio.get_running_loop()
    _runs_in_loop[loop] += 1
    calls = session.calls if session else (otel.calls if otel else None)
    if otel is not None and calls is not None:
        otel.calls = calls  # one log for both: call_events holds one list
    with collecting_calls(calls), _unreachable_hosts_of_this_run():
        try:
            async with sqlite_checkpointer(checkpoint_path()) as saver:
                if graph_input is not None:
                    await save_run_settings(saver, run_id, settings.explicit())
                app = compile_graph(saver)
                by_node.mark()
                given: Any = graph_input if resume_value is NO_RESUME else Command(resume=resumable(resume_value))
                for _ in range(MAX_REVIEW_ROUNDS):
                    async for mode, chunk in app.astream(
                        given, config, context=settings, stream_mode=["updates", "custom"]
                    ):
                        if mode == "updates":
                            by_node.observe(chunk)
                            progress.observe(chunk)
                            continue
                        event = progress.enrich(chunk)
                        if session is not None:
                            session.record_progress(event)
                        if on_event is not None:
                            on_event(event)
                    state = await app.aget_state(config)
                    waiting = pending_review(state.interrupts)
                    if waiting is None:
                        break
                    if reviewer is None:
                        raise ReviewPending(run_id, waiting)
                    edits = reviewer(waiting)
                    given = Command(resume=resumable(await edits if inspect.isawaitable(edits) else edits))
                else:
                    raise ReviewPending(run_id, waiting or {})  # the reviewer's edits never fitted: the run still waits
        finally:
            _runs_in_loop[loop] -= 1
            if not _runs_in_loop[
                loop
            ]:  # the backends' HTTP connections belong to this event loop; the last run out closes them
                del _runs_in_loop[loop]
                await release_backends()
    if session is not None:
        session.final_state = state.values
    if otel is not None:
        otel.final_state = state.values
    answer = state.values.get("answer")
    if answer is None:
        raise SparkitError(f"run {run_id} ended without an answer (next: {list(state.next)})")
    answer.usage.by_node = by_node.as_dict()
    answer.usage.setup_s = round(clock.setup_s, 3)
    return answer


@contextlib.contextmanager
def _unreachable_hosts_of_this_run() -> Iterator[None]:
    """A fresh memory of hosts that failed to connect, for this run only (agent.tools.http.reachability)."""
    from agent.tools.http.reachability import UnreachableHosts, unreachable_hosts

    token = unreachable_hosts.set(UnreachableHosts())
    try:
        yield
    finally:
        unreachable_hosts.reset(token)


async def traced_run(
    graph_input: dict[str, Any] | None,
    settings: Context,
    run_id: str,
    asked: dict[str, Any],
    on_event: EventHandler | None,
    callbacks: list | None,
    trace: bool | None,
    reviewer: Reviewer | None = None,
    resume_value: Any = NO_RESUME,
) -> Answer:
    """Run, turning failures inside the run into a resumable ERROR answer, and write the trace when on.

    SparkitErrors (bad configuration, missing corpus) still raise, after their trace is written. With
    SPARKIT_OTLP_ENDPOINT set the run is also exported over OpenTelemetry (agent/tracing/otel.py).
    """
    session = TraceSession(run_id, settings, graph_input) if tracing_enabled(trace, default=False) else None
    otel = start_otel_run(run_id, asked, resumed=graph_input is None)
    by_node = NodeUsage()
    answer: Answer | None = None
    try:
        with otel.active() if otel else contextlib.nullcontext():
            answer = await _run(
                graph_input, settings, run_id, on_event, callbacks, session, by_node, otel, reviewer, resume_value
            )
    except SparkitError as exc:
        await _end_otel(otel, None, f"{type(exc).__name__}: {exc}")
        await _save_trace(session, None, by_node, f"{type(exc).__name__}: {exc}")
        raise
    except Exception as exc:
        answer = _error_answer(asked, run_id, exc)
        answer.usage.by_node = by_node.as_dict()
    error = answer.answer if answer.status == Status.ERROR else None
    await _end_otel(otel, answer, error)
    await _save_trace(session, answer, by_node, error)
    return answer


async def _end_otel(otel: OtelRun | None, answer: Answer | None, error: str | None) -> None:
    """Finish the run's OpenTelemetry spans and send them (the flush, bounded, in a worker thread)."""
    if otel is None:
        return
    otel.finish(answer, error)
    await asyncio.to_thread(otel.flush)


async def _save_trace(
    session: TraceSession | None, answer: Answer | None, by_node: NodeUsage, error: str | None
) -> None:
    """Write the trace in a worker thread. A trace that cannot be written (disk, permissions, or a bug in the
    tracer) must not cost the user the answer of a long run: it is logged and noted on the answer instead."""
    if session is None:
        return
    try:
        await asyncio.to_thread(session.save, answer, by_node.as_dict(), error)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {redact(str(exc))[:200]}"
        log.warning("trace for run %s not written: %s", session.run_id, reason)
        if answer is not None:
            answer.notes.append(f"trace not written: {reason}")


def _error_answer(asked: dict[str, Any], run_id: str, exc: Exception) -> Answer:
    """The answer of a run that failed inside: it names the question and task that failed, and how to resume."""
    from agent.english.questions import classify_task

    message = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
    question = asked.get("question") or ""
    task = classify_task(question, asked.get("options") or [], asked.get("mode") or "ask")
    return Answer(
        status=Status.ERROR,
        task=task,
        question=question,
        answer=f"Run failed: {type(exc).__name__}: {message}",
        confidence=0.0,
        run_id=run_id,
        stop_reason=f"error in run; resume with `sparkit resume {run_id}`",
    )


async def checkpointed_run(run_id: str, edits: Any = NO_RESUME) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a checkpointed run was asked and the settings tree it started with, read in one opening of the checkpoint
    database; `edits` for a run waiting at its review point are checked against its ledger there too. An unknown run
    id raises InputError, and nothing is written."""
    from agent.api.checkpoint import load_run_question, load_run_settings, sqlite_checkpointer
    from agent.tracing.store import trace_path

    trace_path(run_id)  # checks the id's shape
    ensure_home()
    async with sqlite_checkpointer(checkpoint_path()) as saver:
        asked = await load_run_question(saver, run_id)  # one read: whether the run exists, and what it was asked
        if asked is None:
            raise InputError(
                f"no checkpointed run {run_id!r} in {checkpoint_path()} (`sparkit trace list` shows recent runs)"
            )
        stored = await load_run_settings(saver, run_id) or {}
        if edits is not NO_RESUME:
            await check_review(saver, run_id, edits)
    return asked, stored


async def check_review(saver: Any, run_id: str, edits: Any) -> None:
    """The edits checked against the run's checkpointed ledger and pending review (agent.review.ledger.check_edits)."""
    from agent.graph import compile_graph

    snapshot = await compile_graph(saver).aget_state({"configurable": {"thread_id": run_id}})
    check_edits(snapshot.values, snapshot.interrupts, edits, run_id)


def ensure_home() -> Path:
    """SPARKIT_HOME as a writable folder, or InputError saying why not (before a run starts, so nothing is lost)."""
    home = sparkit_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"SPARKIT_HOME {home} is not a usable folder: {exc.strerror or exc}") from None
    if not home.is_dir() or not os.access(home, os.W_OK | os.X_OK):
        raise InputError(f"SPARKIT_HOME {home} is not a writable folder (set SPARKIT_HOME to one)")
    return home


def announce(run_id: str, on_event: EventHandler | None) -> None:
    """The run's id, first, before any work: a run that is killed can still be resumed by it."""
    if on_event is not None:
        on_event({"node": "run", "event": "start", "run_id": run_id})
