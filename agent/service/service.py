"""What the routes of `sparkit serve` share: the pools, the checkpointer, the queue and the limits; the caller's user
from the API key; a user's thread and run (404 for another user's, as for an unknown one); a run stored and queued;
waiting for a run and streaming its events."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import psycopg_pool
from starlette.requests import Request

from agent.service import store
from agent.service.database import ensure_schema, is_connection_failure
from agent.service.keys import user_for_key
from agent.service.pools import checkpointer, open_pools
from agent.service.requests import (
    STREAM_MODES,
    UNSUPPORTED,
    HttpError,
    RunCreate,
    assistant_or_404,
    graph_input,
    parse,
    read_body,
    run_settings,
)
from agent.service.run_options import checked_options
from agent.service.shapes import sse
from agent.service.worker import defer_run, queue_app

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY = 1_000_000
POOL_SIZE = 10  # connections `sparkit serve` holds to PostgreSQL (and as many for the checkpointer)
T = TypeVar("T")


class Service:
    """What the routes share: the pools, the checkpointer, the queue and the limits."""

    def __init__(
        self,
        url: str,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY,
        poll_s: float = 0.25,
        pool_timeout_s: float = 5.0,
        keepalive_s: float = 15.0,
        patience_s: float = 60.0,
    ):
        self.url = url
        self.patience_s = patience_s
        self.keepalive_s = keepalive_s
        self.max_body_bytes = max_body_bytes
        self.poll_s = poll_s
        self.pool_timeout_s = pool_timeout_s
        self.pool: psycopg_pool.AsyncConnectionPool
        self.saver: Any = None
        self.queue = queue_app(url)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        await ensure_schema(self.url)
        async with open_pools(self.url, POOL_SIZE) as (pool, saver_pool), self.queue.open_async():
            pool.timeout = saver_pool.timeout = self.pool_timeout_s
            self.pool, self.saver = pool, checkpointer(saver_pool)
            yield

    def graph(self) -> Any:
        """The graph over the service's checkpoints: its state, history and edits (the workers run it)."""
        from agent.graph import compile_graph

        return compile_graph(self.saver)

    def typed_graph(self) -> Any:
        """The graph with its typed input, output and context schemas, as `langgraph dev` shows it to Studio."""
        from agent.graph import graph

        return graph

    async def user(self, request: Request) -> str:
        key = request.headers.get("x-api-key") or ""
        auth = request.headers.get("authorization") or ""
        if not key and auth.lower().startswith("bearer "):
            key = auth[7:].strip()
        if not key:
            raise HttpError(401, "no API key: send it in the x-api-key header (sparkit users add NAME makes one)")
        user = await user_for_key(self.pool, key)
        if user is None:
            raise HttpError(401, "unknown or revoked API key")
        return user

    async def thread(self, user: str, thread_id: str) -> store.ThreadRow:
        found = await store.get_thread(self.pool, user, thread_id)
        if found is None:
            raise HttpError(404, f"thread {thread_id} not found")
        return found

    async def run(self, user: str, thread_id: str, run_id: str) -> store.RunRow:
        found = await store.get_run(self.pool, user, thread_id, run_id)
        if found is None:
            raise HttpError(404, f"run {run_id} not found on thread {thread_id}")
        return found

    async def start_run(self, request: Request, user: str, thread_id: str) -> store.RunRow:
        body: RunCreate = parse(RunCreate, await read_body(request, self.max_body_bytes))
        unsupported = [name for name in UNSUPPORTED if getattr(body, name) is not None]
        if unsupported:
            raise HttpError(422, f"{unsupported[0]} is not supported by the SPARKIT server")
        assistant_or_404(body.assistant_id)
        modes = [body.stream_mode] if isinstance(body.stream_mode, str) else list(body.stream_mode)
        bad = [m for m in modes if m not in STREAM_MODES]
        if bad:
            raise HttpError(422, f"stream_mode {bad[0]!r} is not supported; use {', '.join(STREAM_MODES)}")
        if await store.get_thread(self.pool, user, thread_id) is None:
            if body.if_not_exists != "create":
                raise HttpError(404, f"thread {thread_id} not found")
            if await store.create_thread(self.pool, user, thread_id, {}, "do_nothing") is None:
                raise HttpError(404, f"thread {thread_id} not found")
        question = graph_input(body.input)
        options = await checked_options(body, self.graph(), self.saver, thread_id)
        settings = run_settings(
            body, await store.last_settings(self.pool, user, thread_id) if question is None else None
        )
        try:
            run = await store.create_run(self.pool, user, thread_id, question, settings, body.metadata, modes, options)
        except store.ThreadBusy:
            raise HttpError(409, f"thread {thread_id} has a run pending or running; wait for it or cancel it") from None
        job_id = await defer_run(self.queue, run.run_id, thread_id)
        await store.set_job(self.pool, run.run_id, job_id)
        log.info("run %s queued as job %s", run.run_id, job_id)
        return run

    async def wait(self, run: store.RunRow) -> store.RunRow:
        while run.status in store.ACTIVE:
            await asyncio.sleep(self.poll_s)
            found = await self.patiently(partial(store.get_run, self.pool, run.owner, run.thread_id, run.run_id))
            assert found is not None
            run = found
        return run

    async def patiently(self, read: Callable[[], Awaitable[T]], patience_s: float | None = None) -> T:
        """A read retried while the database cannot be reached, for up to `patience_s` (default: the service's, for a
        response already under way, a stream or a wait): through a PostgreSQL restart its client sees a pause
        instead of a cut connection or a 503."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + (self.patience_s if patience_s is None else patience_s)
        while True:
            try:
                return await read()
            except Exception as exc:
                if not is_connection_failure(exc) or loop.time() > give_up:
                    raise
                log.warning("the database cannot be reached (%s); a response waits for it", type(exc).__name__)
            await asyncio.sleep(self.poll_s)

    async def events(self, run: store.RunRow, modes: list[str], after: int = 0) -> AsyncIterator[bytes]:
        """The run's events as server-sent events, from `after` on, until it finishes."""
        yield sse("metadata", {"run_id": run.run_id, "attempt": max(1, run.attempts)})
        seq = after
        loop = asyncio.get_running_loop()
        quiet_since = loop.time()
        while True:
            batch = await self.patiently(partial(store.events_after, self.pool, run.run_id, seq))
            for event in batch:
                seq = event.seq
                if event.mode in modes:
                    yield sse(event.mode, event.data, event.seq)
            if batch:
                quiet_since = loop.time()
                continue
            if loop.time() - quiet_since > self.keepalive_s:
                yield b": keepalive\n\n"  # an SSE comment: a long node must not look like a dead connection
                quiet_since = loop.time()
            found = await self.patiently(partial(store.get_run, self.pool, run.owner, run.thread_id, run.run_id))
            if found is None or found.status not in store.ACTIVE:
                if not await self.patiently(partial(store.events_after, self.pool, run.run_id, seq)):
                    if found is not None and found.status != "success" and found.output is None:
                        yield sse(
                            "error",
                            {
                                "error": "RunError" if found.status == "error" else "RunInterrupted",
                                "message": found.error or found.status,
                            },
                        )
                    return
                continue
            await asyncio.sleep(self.poll_s)
