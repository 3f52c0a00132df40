"""Budget checks shared by the routing decisions and the nodes."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from typing import Any

from agent.config import Context
from agent.metering import Meter, metered
from agent.records import Usage


def spent_reason(usage: Usage | None, started_at: float | None, settings: Context) -> str | None:
    """Name of the first exhausted budget ('wall_time', 'llm_calls', 'source_calls', 'cost'), else None."""
    usage = usage or Usage()
    if started_at is not None and time.time() - started_at >= settings.budget.max_wall_time_s:
        return "wall_time"
    if usage.llm_calls >= settings.budget.max_llm_calls and settings.backend.llm:
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
