"""What the API learns from the streamed `updates`: per-node usage and the context progress lines lack.

`NodeUsage` adds each node's Usage (LLM calls, tokens, cost, source calls per source, cache hits,
fallbacks) and the wall time between graph steps (set-up excluded: it is reported apart), so `answer.usage.by_node` and
`sparkit ask` can show where a run spent its budget, with or without tracing. `ProgressContext` fills in `round` on
custom progress events whose node did not say (hypothesize, synthesize, ...), so every progress line can be placed in
the run."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from agent.records import Usage


def _node_updates(chunk: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """(node, update) pairs of one `updates` chunk, skipping LangGraph's own keys (`__interrupt__`)."""
    if not isinstance(chunk, Mapping):
        return []
    return [
        (node, update if isinstance(update, Mapping) else {})
        for node, update in chunk.items()
        if not str(node).startswith("__")
    ]


class NodeUsage:
    """Per-node totals, keyed by node name, in first-seen order."""

    def __init__(self, clock: Any = time.perf_counter) -> None:
        self._clock = clock
        self._last = clock()
        self._setup: Callable[[], float] = lambda: 0.0
        self._setup_seen = 0.0
        self.totals: dict[str, dict[str, Any]] = {}

    def exclude_setup(self, setup: Callable[[], float]) -> None:
        """`setup()`: the set-up seconds the run has waited for so far (its clock's); they count for no node."""
        self._setup, self._setup_seen = setup, setup()

    def mark(self) -> None:
        """Start timing from now (call when the graph starts streaming, after setup)."""
        self._last = self._clock()
        self._setup_seen = self._setup()

    def observe(self, chunk: Any) -> None:
        """Account one `updates` chunk: the step's wall time, less the set-up waited for during it (`setup`: seconds
        so far, the run clock's; reported apart, as Usage.setup_s), goes to the node(s) that finished in it."""
        now, setup = self._clock(), self._setup()
        elapsed = max(0.0, now - self._last - (setup - self._setup_seen))
        self._last, self._setup_seen = now, setup
        for node, update in _node_updates(chunk):
            entry = self.totals.setdefault(node, {"runs": 0, "seconds": 0.0, **_usage_fields(Usage())})
            entry["runs"] += 1
            entry["seconds"] = round(entry["seconds"] + elapsed, 6)
            usage = update.get("usage")
            if isinstance(usage, Usage):
                _accumulate(entry, usage)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {node: dict(entry) for node, entry in self.totals.items()}


def _usage_fields(usage: Usage) -> dict[str, Any]:
    return {
        "llm_calls": usage.llm_calls,
        "tokens_in": usage.tokens_in,
        "tokens_out": usage.tokens_out,
        "cost_usd": usage.cost_usd,
        "source_calls": usage.source_calls,
        "calls_by_source": dict(usage.calls_by_source),
        "source_failures": dict(usage.source_failures),
        "cache_hits": usage.cache_hits,
        "fallbacks": len(usage.fallbacks),
    }


def _accumulate(entry: dict[str, Any], usage: Usage) -> None:
    for key, value in _usage_fields(usage).items():
        if isinstance(value, dict):
            merged = entry[key]
            for name, count in value.items():
                merged[name] = merged.get(name, 0) + count
        elif key == "cost_usd":
            entry[key] = round(entry[key] + value, 8)
        else:
            entry[key] += value


class ProgressContext:
    """The latest round seen in the stream, to complete progress events."""

    def __init__(self) -> None:
        self.round: int | None = None

    def observe(self, chunk: Any) -> None:
        for _, update in _node_updates(chunk):
            if isinstance(update.get("round"), int):
                self.round = update["round"]

    def enrich(self, event: Any) -> Any:
        """The event with `round` added when its node did not include one (events that are not dicts pass)."""
        if not isinstance(event, dict) or "round" in event or self.round is None:
            return event
        return {**event, "round": self.round}


def emit(event: dict[str, Any]) -> None:
    """Progress for `stream_mode='custom'` (CLI progress lines, Studio); silent outside a streamed run."""
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()(event)
    except Exception:
        return
