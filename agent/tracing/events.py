"""The agent's own events in a trace: route decisions with their numbers, and source calls.

Decisions come from the node runs' outputs (each branching node returns the Decision it took), so the trace
shows the route, its reason, margin, agreement, contested count and the budget left at that moment, read
from the state the node saw plus the usage it added. Source calls come from `agent.tools.http.call_events`:
`CallLog` is the list the API sets there; it also notes which graph node made each call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from agent.config import Context
from agent.records import Decision, Usage
from agent.tracing.summarize import cut


class CallLog(list):
    """The list for `call_events`: appends record the LangGraph node making the call alongside the event."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[str | None] = []

    def append(self, event: Any) -> None:
        self.nodes.append(_current_node())
        super().append(event)


@contextlib.contextmanager
def collecting_calls(log: CallLog | None) -> Iterator[None]:
    """Route HTTP call events into `log` while the graph runs (nothing when it is None)."""
    if log is None:
        yield
        return
    from agent.tools.http import call_events

    token = call_events.set(log)
    try:
        yield
    finally:
        call_events.reset(token)


def _current_node() -> str | None:
    """The graph node whose code is running, from LangGraph's runnable config context (None outside one)."""
    try:
        from langgraph.config import get_config

        return get_config().get("metadata", {}).get("langgraph_node")
    except RuntimeError:  # called outside a runnable context: no node to attribute the call to
        return None


def source_call_records(log: CallLog) -> list[dict[str, Any]]:
    """One trace record per logical HTTP call: host, status, attempts/retries, cache hit, time, error."""
    records = []
    for event, node in zip(log, log.nodes, strict=True):
        data = event.model_dump() if hasattr(event, "model_dump") else dict(event)
        attempts = int(data.get("attempts") or 0)
        records.append(
            {
                "kind": "source_call",
                "node": node,
                "source": data.get("source"),
                "host": data.get("host"),
                "method": data.get("method"),
                "path": cut(str(data.get("path") or ""), 300),
                "status": data.get("status"),
                "attempts": attempts,
                "retries": max(0, attempts - 1),
                "cache_hit": bool(data.get("cache_hit")),
                "elapsed_s": data.get("elapsed_s"),
                "error": cut(str(data["error"]), 300) if data.get("error") else None,
            }
        )
    return records


def _as_usage(value: Any) -> Usage:
    if isinstance(value, Usage):
        return value
    if isinstance(value, Mapping):
        return Usage.model_validate(value)
    return Usage()


def _as_decision(value: Any) -> Decision:
    return value if isinstance(value, Decision) else Decision.model_validate(value)


def budget_left(usage: Usage, settings: Context, elapsed_s: float | None) -> dict[str, float | int | None]:
    """What the run could still spend after `usage`, in each budget the routing checks."""
    return {
        "llm_calls": max(0, settings.budget.max_llm_calls - usage.llm_calls),
        "source_calls": max(0, settings.budget.max_source_calls - usage.source_calls),
        "cost_usd": round(max(0.0, settings.budget.max_cost_usd - usage.cost_usd), 6),
        "wall_time_s": None if elapsed_s is None else round(max(0.0, settings.budget.max_wall_time_s - elapsed_s), 3),
    }


def decision_records(node_runs: list[Any], settings: Context) -> list[dict[str, Any]]:
    """Route decisions, in run order, from the outputs of the graph's node runs."""
    records = []
    for run in node_runs:
        outputs = run.outputs if isinstance(run.outputs, Mapping) else {}
        decisions = outputs.get("decisions") or []
        if not decisions:
            continue
        inputs = run.inputs if isinstance(run.inputs, Mapping) else {}
        spent = _as_usage(inputs.get("usage")).add(_as_usage(outputs.get("usage")))
        started_at = inputs.get("started_at") or outputs.get("started_at")
        elapsed = run.end_time.timestamp() - float(started_at) if started_at and run.end_time else None
        for raw in decisions:
            decision = _as_decision(raw)
            records.append(
                {
                    "kind": "decision",
                    "run": str(run.id),
                    "at": decision.at,
                    "next": decision.next,
                    "reason": cut(decision.reason, 400),
                    "round": decision.round,
                    "margin": decision.margin,
                    "agreement": decision.agreement,
                    "contested": decision.contested,
                    "budget_left": budget_left(spent, settings, elapsed),
                }
            )
    return records
