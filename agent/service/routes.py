"""The routes of threads and runs: each `(request, service, user) -> Response`, the user already
known from the API key (agent/service/http_api.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from agent.service import store
from agent.service.jsonable import jsonable
from agent.service.requests import (
    HttpError,
    ThreadCreate,
    ThreadSearch,
    int_param,
    parse,
    read_body,
)
from agent.service.service import Service
from agent.service.shapes import location, outcome, run_json, thread_json


async def create_thread(request: Request, service: Service, user: str) -> Response:
    body: ThreadCreate = parse(ThreadCreate, await read_body(request, service.max_body_bytes))
    thread = await store.create_thread(service.pool, user, body.thread_id, body.metadata, body.if_exists)
    if thread is None:
        raise HttpError(409, f"thread {body.thread_id} exists")
    return JSONResponse(thread_json(thread))


async def search_threads(request: Request, service: Service, user: str) -> Response:
    body: ThreadSearch = parse(ThreadSearch, await read_body(request, service.max_body_bytes))
    threads = await store.search_threads(service.pool, user, body.metadata, body.limit, body.offset)
    return JSONResponse([thread_json(t) for t in threads])


async def get_thread(request: Request, service: Service, user: str) -> Response:
    """The thread with its state's values now (as langgraph-api answers), its last answer where its checkpoints were
    pruned to nothing."""
    thread = await service.thread(user, request.path_params["thread_id"])
    snapshot = await service.graph().aget_state({"configurable": {"thread_id": thread.thread_id}})
    values = jsonable(snapshot.values) if snapshot.values else None
    if not values:
        runs = await store.list_runs(service.pool, user, thread.thread_id, 10, 0)
        values = next((r.output for r in runs if r.status == "success" and r.output), None)
    return JSONResponse(thread_json(thread, values if isinstance(values, dict) else None))


async def delete_thread(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    if thread.status == "busy":
        raise HttpError(409, f"thread {thread.thread_id} has a run pending or running; cancel it first")
    await store.delete_thread(service.pool, user, thread.thread_id)
    return Response(status_code=204)


async def create_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return JSONResponse(run_json(run), headers=location(run))


async def stream_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return StreamingResponse(
        service.events(run, run.stream_mode), media_type="text/event-stream", headers=location(run)
    )


async def wait_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return _waiting(service, run)


async def list_runs(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    query = request.query_params
    limit, offset = int_param(query.get("limit"), 10), int_param(query.get("offset"), 0)
    return JSONResponse(
        [run_json(r) for r in await store.list_runs(service.pool, user, thread.thread_id, limit, offset)]
    )


async def get_run(request: Request, service: Service, user: str) -> Response:
    return JSONResponse(
        run_json(await service.run(user, request.path_params["thread_id"], request.path_params["run_id"]))
    )


async def join_run(request: Request, service: Service, user: str) -> Response:
    run = await service.run(user, request.path_params["thread_id"], request.path_params["run_id"])
    return _waiting(service, run)


def _waiting(service: Service, run: store.RunRow) -> Response:
    """The run's outcome as JSON once it ends, with a newline every `keepalive_s` before (JSON allows leading
    whitespace): a run takes minutes, longer than an HTTP client waits for a silent response (langgraph-sdk: 300 s).
    `Location` is where langgraph-sdk reconnects when the connection drops."""

    async def body() -> AsyncIterator[bytes]:
        waiting = asyncio.ensure_future(service.wait(run))
        try:
            while not waiting.done():
                done, _ = await asyncio.wait({waiting}, timeout=service.keepalive_s)
                if not done:
                    yield b"\n"
            yield json.dumps(outcome(waiting.result()), ensure_ascii=False).encode()
        finally:
            waiting.cancel()

    headers = {**location(run), "Location": f"/threads/{run.thread_id}/runs/{run.run_id}/join"}
    return StreamingResponse(body(), media_type="application/json", headers=headers)


async def join_stream(request: Request, service: Service, user: str) -> Response:
    run = await service.run(user, request.path_params["thread_id"], request.path_params["run_id"])
    modes = request.query_params.getlist("stream_mode") or run.stream_mode
    after = int_param(request.headers.get("last-event-id"), 0)
    return StreamingResponse(service.events(run, modes, after), media_type="text/event-stream")


async def cancel_run(request: Request, service: Service, user: str) -> Response:
    run = await service.run(user, request.path_params["thread_id"], request.path_params["run_id"])
    if request.query_params.get("action", "interrupt") != "interrupt":
        raise HttpError(
            422, "only action=interrupt is supported (the thread keeps its checkpoints; a new run resumes it)"
        )
    if run.status in store.ACTIVE:
        updated = await store.request_cancel(service.pool, user, run.thread_id, run.run_id)
        if updated is not None and updated.status == "interrupted" and run.job_id is not None:
            with contextlib.suppress(Exception):  # a job a worker took meanwhile stops at its next event instead
                await service.queue.job_manager.cancel_job_by_id_async(run.job_id)
        run = updated or run
    if request.query_params.get("wait") in ("1", "true"):
        run = await service.wait(run)
    return JSONResponse(run_json(run), status_code=202)
