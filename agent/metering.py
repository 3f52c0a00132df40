"""Per-node usage metering through a context variable, so models and clients can report calls and
tokens without knowing about graph state, and nodes can enforce the LLM budget.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from agent.records import Usage


class BudgetExceeded(Exception):
    """Raised before a call that the run's budget no longer allows."""


class Meter:
    def __init__(self, llm_calls_left: int | None = None, cost_left: float | None = None):
        self.usage = Usage()
        self.llm_calls_left = llm_calls_left
        self.cost_left = cost_left

    def reserve_llm_call(self, retry: bool = False) -> None:
        """Count one chat-model call against the budget (a retry of an unusable reply counts twice: as a call and as
        a retry, so that usage shows what weak replies cost)."""
        if self.llm_calls_left is not None and self.usage.llm_calls >= self.llm_calls_left:
            raise BudgetExceeded("llm_calls")
        if self.cost_left is not None and self.usage.cost_usd >= self.cost_left:
            raise BudgetExceeded("cost")
        self.usage.llm_calls += 1
        self.usage.llm_retries += int(retry)

    def add_tokens(self, tokens_in: int, tokens_out: int, cost: float = 0.0) -> None:
        self.usage.tokens_in += tokens_in
        self.usage.tokens_out += tokens_out
        self.usage.cost_usd += cost

    def source_call(self, source: str, ok: bool = True) -> None:
        self.usage.source_calls += 1
        self.usage.calls_by_source[source] = self.usage.calls_by_source.get(source, 0) + 1
        if not ok:
            self.usage.source_failures[source] = self.usage.source_failures.get(source, 0) + 1

    def fallback(self, what: str) -> None:
        self.usage.fallbacks.append(what)


_current: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("sparkit_meter", default=None)


def current_meter() -> Meter:
    """The active meter, or a throwaway one when called outside a node (scripts, evals)."""
    meter = _current.get()
    return meter if meter is not None else Meter()


@contextlib.contextmanager
def metered(llm_calls_left: int | None = None, cost_left: float | None = None) -> Iterator[Meter]:
    meter = Meter(llm_calls_left, cost_left)
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


# ---- the run's wall clock, as seen from inside a node (issue 17: per-role deadlines inside the wall budget) ----
_wall_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("sparkit_wall_deadline", default=None)


def wall_time_left() -> float | None:
    """Seconds the run has left on its wall budget (None outside a run): what a chat-model role may still spend.
    The run's hard wall budget sets the deadline (`wall_clock`); roles only read it, so the two compose."""
    import time

    deadline = _wall_deadline.get()
    return None if deadline is None else deadline - time.time()


@contextlib.contextmanager
def wall_clock(deadline: float | None) -> Iterator[None]:
    """Inside this block `wall_time_left()` counts down to `deadline` (epoch seconds; None: unbounded)."""
    token = _wall_deadline.set(deadline)
    try:
        yield
    finally:
        _wall_deadline.reset(token)


# ---- what a node is waiting for, for its heartbeats (issue 39: a first run says it is building the index) ----
class Activity:
    """What the running node waits for now ('building the offline index (5,183 records)'), and whether that step
    reports its own progress (then heartbeats keep quiet rather than say the same thing less well)."""

    def __init__(self) -> None:
        self.what: str | None = None
        self.reports_progress = False


_activity: contextvars.ContextVar[Activity | None] = contextvars.ContextVar("sparkit_activity", default=None)


@contextlib.contextmanager
def tracking(activity: Activity) -> Iterator[Activity]:
    """Inside this block (and threads started from it) `waiting_for` writes to `activity` (the node guard's)."""
    token = _activity.set(activity)
    try:
        yield activity
    finally:
        _activity.reset(token)


@contextlib.contextmanager
def waiting_for(what: str, *, reports_progress: bool = False) -> Iterator[None]:
    """Say what the current node waits for while this block runs (nothing happens outside a tracked node)."""
    activity = _activity.get()
    if activity is None:
        yield
        return
    before = (activity.what, activity.reports_progress)
    activity.what, activity.reports_progress = what, reports_progress or activity.reports_progress
    try:
        yield
    finally:
        activity.what, activity.reports_progress = before
