"""Each node as a runnable with both paths, through LangGraph's and LangChain's public APIs only.

The nodes are coroutines `(state, runtime: Runtime[Context]) -> update`: the async path is the real one (one
event loop for the whole run: `ainvoke`, `astream`, `langgraph dev`). LangGraph refuses a coroutine node under
`graph.invoke` ("No synchronous function provided"), so each node is a `RunnableLambda` with a sync twin that runs
the coroutine to completion on a private loop (in a worker thread, with the caller's context variables, when the
caller already runs a loop). Either path reads the run's Runtime with `langgraph.runtime.get_runtime`; a run
started without a context gets the default Context, so a node always sees `runtime.context` as a Context.

Around every node the wrapper also enforces the hard budget and reports progress (agent/nodes/guard.py): a
`start` event, heartbeats while the node works, the wall-time cut, and skipping once a hard limit has stopped the run.

The node that starts a question (`starts_question=True`: plan) first clears what an earlier question on the same
thread left in the state (agent.state.leftovers_reset), before the budget guard reads it: the earlier run's usage,
start time or budget stop must not count against the new question, nor its hypotheses, pool or ledger answer it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.runtime import Runtime, get_runtime

from agent.aio import run_coroutine_sync
from agent.config import Context
from agent.errors import ConfigurationError, ReportedConfigurationError
from agent.nodes.guard import guarded
from agent.state import apply_update, leftovers_reset, reset_then

NodeFunction = Callable[[Any, Runtime[Context]], Awaitable[dict[str, Any]]]


def run_runtime() -> Runtime[Context]:
    """The current run's Runtime, its context validated into a Context (defaults when the caller gave none)."""
    runtime = get_runtime(Context)
    if isinstance(runtime.context, Context):
        return runtime
    return runtime.override(context=Context.model_validate(runtime.context or {}))


def node(afunc: NodeFunction, *, starts_question: bool = False) -> RunnableLambda:
    """`afunc` as a graph node that works under `invoke` as well as `ainvoke` / `astream`; with `starts_question`, on
    a fresh state (module docstring)."""

    async def arun(state: Any) -> dict[str, Any]:
        runtime = run_runtime()
        reset = leftovers_reset(state) if starts_question else {}
        view = apply_update(state, reset) if reset else state
        try:
            update = await guarded(afunc.__name__, view, runtime.context, lambda: afunc(view, runtime))
        except ConfigurationError as exc:
            if isinstance(exc, ValueError):
                raise
            raise ReportedConfigurationError(str(exc)) from exc
        return reset_then(reset, update) if reset else update

    def run(state: Any) -> dict[str, Any]:
        return run_coroutine_sync(arun(state))

    return RunnableLambda(run, afunc=arun, name=afunc.__name__)
