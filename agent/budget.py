"""Budget checks shared by the routing decisions and the nodes, and the run's wall clock (what counts against
max_wall_time_s)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.config import Context
from agent.metering import Meter, metered
from agent.records import Usage


def spent_reason(usage: Usage | None, deadline: float | None, settings: Context) -> str | None:
    """Name of the first exhausted budget ('wall_time', 'llm_calls', 'source_calls', 'cost'), else None.
    `deadline` is the run clock's (`run_clock(state).deadline(settings)`), the one the node guard cuts at, so
    the routing and the guard never disagree about the set-up time excluded from the wall budget."""
    usage = usage or Usage()
    if deadline is not None and time.time() >= deadline:
        return "wall_time"
    if usage.llm_calls >= settings.budget.max_llm_calls and settings.models.llm:
        return "llm_calls"
    if usage.source_calls >= settings.budget.max_source_calls:
        return "source_calls"
    if usage.cost_usd > 0 and usage.cost_usd >= settings.budget.max_cost_usd:  # a cap of 0 allows no paid call at all
        return "cost"
    return None


def llm_calls_left(usage: Usage | None, settings: Context) -> int:
    return max(0, settings.budget.max_llm_calls - (usage.llm_calls if usage else 0))


def source_calls_left(usage: Usage | None, settings: Context) -> int:
    return max(0, settings.budget.max_source_calls - (usage.source_calls if usage else 0))


def cost_left(usage: Usage | None, settings: Context) -> float:
    return max(0.0, settings.budget.max_cost_usd - (usage.cost_usd if usage else 0.0))


@contextlib.contextmanager
def node_meter(state: Mapping[str, Any], settings: Context) -> Iterator[Meter]:
    """Meter for one node, with the LLM calls and dollars the run has left."""
    with metered(llm_calls_left(state.get("usage"), settings), cost_left(state.get("usage"), settings)) as meter:
        yield meter


# ---------------------------------------------------------------------------------------------- the run's wall clock
RUN_CLOCK_KEY = "sparkit_clock"
_node_timeout: contextvars.ContextVar[asyncio.Timeout | None] = contextvars.ContextVar(
    "sparkit_node_timeout", default=None
)


@dataclass
class RunClock:
    """When this run (or resumed segment) started, and the set-up time (loading models, opening the index) that does
    not count against `max_wall_time_s`: it is paid once per process, not by the run's work."""

    start: float = field(default_factory=time.time)
    setup_s: float = 0.0

    def deadline(self, settings: Context) -> float:
        return self.start + self.setup_s + settings.budget.max_wall_time_s


def run_clock(state: Mapping[str, Any]) -> RunClock:
    """The clock the caller put in `configurable` (the Python API does, per run and resumed segment), else one that
    starts at the run's `started_at` (set by plan once the backend is ready)."""
    try:
        from langgraph.config import get_config

        given = (get_config().get("configurable") or {}).get(RUN_CLOCK_KEY)
    except RuntimeError:  # outside a graph run
        given = None
    return given if isinstance(given, RunClock) else RunClock(start=state.get("started_at") or time.time())


@contextlib.contextmanager
def node_deadline(timeout: asyncio.Timeout) -> Iterator[None]:
    """Make `timeout` the running node's, so set-up time inside the node can stop its clock."""
    token = _node_timeout.set(timeout)
    try:
        yield
    finally:
        _node_timeout.reset(token)


@contextlib.contextmanager
def setup_time(what: str = "set-up") -> Iterator[None]:
    """Set-up inside a node (building a backend): the node's timeout is suspended, then moved back by the time spent,
    and the run's clock excludes it; the node's heartbeats say `what` it waits for."""
    from agent.metering import waiting_for

    timeout = _node_timeout.get()
    when = timeout.when() if timeout is not None else None
    if timeout is not None:
        timeout.reschedule(None)
    started = time.monotonic()
    try:
        with waiting_for(what):
            yield
    finally:
        spent = time.monotonic() - started
        try:
            from langgraph.config import get_config

            clock = (get_config().get("configurable") or {}).get(RUN_CLOCK_KEY)
        except RuntimeError:
            clock = None
        if isinstance(clock, RunClock):
            clock.setup_s += spent
        if timeout is not None and when is not None:
            timeout.reschedule(when + spent)
