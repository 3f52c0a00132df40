"""The hard budget and progress around every node: why a run can neither overrun its limits nor go silent.

- Wall time is a deadline, not a check between nodes: a node still working when the run's `max_wall_time_s` runs
  out is cut (cancelled) and the run goes straight to `report`, which says BUDGET_EXHAUSTED and names the limit.
  Set-up (building the backend: loading models, opening the index) stops the clock (agent.budget.setup_time): it is
  paid once per process, and a limit meant for the run's work must not be spent by it.
- A source budget spent before the first record was retrieved (`max_source_calls=0`) stops the run the same way.
- Once a hard limit has stopped the run (`budget_stop` in the state), every node but `report` is skipped; the wrapper
  (agent/nodes/runnable.py) then records a skipped branching node's Decision from its own decider, which routes a
  stopped run towards `report` (agent/routing.py), so the edges (which follow decisions) get there.
- Each node emits a `start` event, and `heartbeat`s while it works (after 4, 8, 16 ... s, at most a minute apart,
  naming what it waits for when it says, e.g. set-up), on the custom stream (the CLI's progress lines,
  `stream_mode="custom"` in Studio); its own event when it ends is the node's business.

The deadline comes from the run's clock (agent.budget.RunClock): the Python API starts one per run and per resumed
segment; on the server it starts at the run's `started_at`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

from agent.budget import node_deadline, run_clock
from agent.config import Context
from agent.metering import Activity, tracking, wall_clock
from agent.tracing.progress import emit

HEARTBEAT_S = 4.0  # the first heartbeat; each next one comes twice as late, at most HEARTBEAT_MAX_S apart
HEARTBEAT_MAX_S = 60.0
ALWAYS_RUNS = "report"


def hard_stop(node: str, state: Mapping[str, Any], settings: Context, until: float) -> str | None:
    """The hard limit that stops the run before `node` runs, named with its setting, else None."""
    if state.get("budget_stop"):
        return str(state["budget_stop"])
    if time.time() >= until:
        return f"wall_time: max_wall_time_s={settings.budget.max_wall_time_s:g} reached before {node}"
    usage = state.get("usage")
    spent = usage.source_calls if usage is not None else 0
    if node == "retrieve" and not state.get("pool") and spent >= settings.budget.max_source_calls:
        return (
            f"source_calls: max_source_calls={settings.budget.max_source_calls} reached before any record was retrieved"
        )
    return None


def skipped(node: str, stop: str) -> dict[str, Any]:
    """The update of a node the hard budget stopped: the limit and a note (its decider routes it towards `report`)."""
    return {"budget_stop": stop, "notes": [f"{node} skipped: budget exhausted ({stop})"]}


def heartbeat_delays() -> Iterator[float]:
    """Seconds before each next heartbeat: 4, 8, 16, ... capped at HEARTBEAT_MAX_S, so a node working for twelve
    minutes says so about 14 times, not 380."""
    delay = HEARTBEAT_S
    while True:
        yield delay
        delay = min(HEARTBEAT_MAX_S, delay * 2)


async def _heartbeats(node: str, started: float, activity: Activity) -> None:
    for delay in heartbeat_delays():
        await asyncio.sleep(delay)
        if activity.reports_progress:  # a step that prints its own progress (an index build): nothing to add
            continue
        event = {"node": node, "event": "heartbeat", "elapsed_s": round(time.monotonic() - started, 1)}
        emit({**event, "waiting_for": activity.what} if activity.what else event)


async def guarded(
    node: str, state: Mapping[str, Any], settings: Context, run: Callable[[], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """Run one node inside the hard budget, with start and heartbeat events (module docstring)."""
    until = run_clock(state).deadline(settings)
    if node != ALWAYS_RUNS and (stop := hard_stop(node, state, settings, until)):
        emit({"node": node, "event": "skipped", "reason": stop})
        return skipped(node, stop)
    emit({"node": node, "event": "start"})
    started = time.monotonic()
    activity = Activity()
    beat = asyncio.create_task(_heartbeats(node, started, activity))
    try:
        if node == ALWAYS_RUNS:
            with tracking(activity):
                return await run()
        timeout = asyncio.timeout(max(0.0, until - time.time()))
        try:
            async with timeout:
                with (
                    node_deadline(timeout),
                    wall_clock(until),
                    tracking(activity),
                ):  # chat-model roles read wall_time_left()
                    return await run()
        except TimeoutError:
            if not timeout.expired():
                raise  # the node's own timeout (a client's), not the budget's
            stop = (
                f"wall_time: max_wall_time_s={settings.budget.max_wall_time_s:g} reached during {node} "
                f"(cut after {time.monotonic() - started:.1f} s)"
            )
            emit({"node": node, "event": "cut", "reason": stop})
            return skipped(node, stop)
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
