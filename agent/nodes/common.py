"""What every node needs from the graph run: its settings, its backend, and the state as the next step sees it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from agent.backend import Backend, backend_for
from agent.config import Context


def settings_of(runtime: Any) -> Context:
    context = getattr(runtime, "context", None)
    if context is None:
        return Context()
    return context if isinstance(context, Context) else Context.model_validate(context)


async def backend_of(runtime: Any, state: Mapping[str, Any]) -> Backend:
    """Built in a thread: the first call may load models or an index (blocking work)."""
    return await asyncio.to_thread(backend_for, settings_of(runtime), state.get("documents"))


def state_after(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The state as the next step will see it: `update` applied with the state's reducers."""
    from agent.state import add_usage, merge_records

    view = {**state, **update}
    if "usage" in update:
        view["usage"] = add_usage(state.get("usage"), update["usage"])
    if "pool" in update:
        view["pool"] = merge_records(state.get("pool"), update["pool"])
    for key in ("decisions", "notes", "sent_queries", "hopped_ids"):
        if key in update:
            view[key] = [*(state.get(key) or []), *update[key]]
    return view
