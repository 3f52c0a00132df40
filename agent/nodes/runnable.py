"""Async nodes with a sync twin, so `graph.invoke` works as well as `ainvoke` / `astream` / `langgraph dev`.

The async path is the real one (one event loop for the whole run). `graph.invoke` runs each node's
coroutine to completion on a private loop (in a worker thread when the caller already runs a loop).
LangGraph's RunnableCallable takes exactly such a (func, afunc) pair; the import is internal to
langgraph, which is pinned below 2.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph._internal._runnable import RunnableCallable


def run_coroutine_sync(coro: Awaitable[Any]) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def dual(afunc: Callable[..., Awaitable[Any]]) -> RunnableCallable:
    """A node runnable with both paths; `runtime` is injected into either."""

    @functools.wraps(afunc)
    def func(state: Any, runtime: Any) -> Any:
        return run_coroutine_sync(afunc(state, runtime))

    return RunnableCallable(func, afunc, name=afunc.__name__)
