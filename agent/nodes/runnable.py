"""Each node as a runnable with both paths, through LangGraph's and LangChain's public APIs only.

The nodes are coroutines `(state, runtime: Runtime[Context]) -> update`: the async path is the real one (one
event loop for the whole run: `ainvoke`, `astream`, `langgraph dev`). LangGraph refuses a coroutine node under
`graph.invoke` ("No synchronous function provided"), so each node is a `RunnableLambda` with a sync twin that runs
the coroutine to completion on a private loop (in a worker thread, with the caller's context variables, when the
caller already runs a loop). Either path reads the run's Runtime with `langgraph.runtime.get_runtime`; a run
started without a context gets the default Context, so a node always sees `runtime.context` as a Context.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.runtime import Runtime, get_runtime

from agent.config import Context
from agent.metering import wall_clock

NodeFunction = Callable[[Any, Runtime[Context]], Awaitable[dict[str, Any]]]


def run_coroutine_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    context = contextvars.copy_context()  # the run's config (and so its Runtime) lives in context variables
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coro).result()


def run_runtime() -> Runtime[Context]:
    """The current run's Runtime, its context validated into a Context (defaults when the caller gave none)."""
    runtime = get_runtime(Context)
    if isinstance(runtime.context, Context):
        return runtime
    return runtime.override(context=Context.model_validate(runtime.context or {}))


def node(afunc: NodeFunction) -> RunnableLambda:
    """`afunc` as a graph node that works under `invoke` as well as `ainvoke` / `astream`."""

    async def arun(state: Any) -> dict[str, Any]:
        runtime = run_runtime()
        started = state.get("started_at") if isinstance(state, dict) else None
        with wall_clock(started + runtime.context.budget.max_wall_time_s if started else None):  # roles read wall_time_left()
            return await afunc(state, runtime)

    def run(state: Any) -> dict[str, Any]:
        return run_coroutine_sync(arun(state))

    return RunnableLambda(run, afunc=arun, name=afunc.__name__)
