"""Running a coroutine from synchronous code, whether or not an event loop is already running in this thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Coroutine
from typing import Any


def run_coroutine_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """`asyncio.run(coro)`; inside a running loop (a notebook, a server thread) on a private loop in a worker thread,
    with the caller's context variables (a run's config, and so its Runtime, lives in them)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coro).result()
