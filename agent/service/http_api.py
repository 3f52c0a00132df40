"""The HTTP API of `sparkit serve`, in the shape of the LangGraph Server / Agent Protocol API so that `langgraph-sdk`
clients work against it (docs/deploy.md lists what does and does not).

Every route but /ok needs an API key (`x-api-key`, as langgraph-sdk sends it, or `Authorization: Bearer`); a user sees
only their own threads and runs: another user's thread id is 404, as an unknown one is. Bodies are JSON objects of at
most `max_body_bytes` (413 beyond, 400 when not JSON, 422 when a field is wrong, each with the reason). The database
being down or refusing the password answers 503 with the one line that says what failed. Neither keys nor request
bodies (questions) are logged."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

import psycopg
import psycopg_pool
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent.errors import InputError
from agent.service import store
from agent.service.database import DatabaseUnavailable, ensure_schema, unavailable
from agent.service.jsonable import jsonable
from agent.service.keys import user_for_key
from agent.service.pools import checkpointer, open_pools
from agent.service.worker import defer_run, queue_app

log = logging.getLogger(__name__)

GRAPH_ID = "sparkit"
ASSISTANT_ID = "sparkit"
STREAM_MODES = ("values", "updates", "custom")
DEFAULT_MAX_BODY = 1_000_000


class HttpError(Exception):
    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


# -- request bodies -------------------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ThreadCreate(_Body):
    thread_id: str | None = Field(default=None, max_length=100)
    metadata: dict[str, Any] = Field(default_factory=dict)
    if_exists: Literal["raise", "do_nothing"] = "raise"


class ThreadSearch(_Body):
    metadata: dict[str, Any] = Field(default_factory=dict)
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


class HistoryQuery(_Body):
    limit: int = Field(default=10, ge=1, le=1000)
    before: dict[str, Any] | str | None = None


class RunCreate(_Body):
    assistant_id: str = ASSISTANT_ID
    input: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    stream_mode: str | list[str] = "values"
    multitask_strategy: Literal["reject"] | None = None
    if_not_exists: Literal["reject", "create"] | None = None
    on_disconnect: Literal["continue", "cancel"] | None = None
    # accepted by the protocol, not by this server: refused by name when set
    command: Any = None
    interrupt_before: Any = None
    interrupt_after: Any = None
    webhook: Any = None
    checkpoint: Any = None
    checkpoint_id: Any = None
    after_seconds: Any = None
    feedback_keys: Any = None


_UNSUPPORTED = (
    "command",
    "interrupt_before",
    "interrupt_after",
    "webhook",
    "checkpoint",
    "checkpoint_id",
    "after_seconds",
    "feedback_keys",
)
_INPUT_KEYS = {"question", "options", "mode", "documents"}


def _parse(model: type[BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise HttpError(422, f"{where}: {first['msg']}") from None


async def _body(request: Request, max_bytes: int) -> Any:
    """The JSON body, read up to `max_bytes` (413 beyond), or None when empty."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise HttpError(413, f"request body of {int(declared)} bytes is over the limit of {max_bytes} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise HttpError(413, f"request body is over the limit of {max_bytes} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HttpError(400, f"the body is not valid JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise HttpError(400, f"the body must be a JSON object, not {type(data).__name__}")
    return data


# -- shapes ---------------------------------------------------------------------------------------


def _time(value: Any) -> str:
    return str(value.isoformat()) if hasattr(value, "isoformat") else str(value)


def thread_json(thread: store.ThreadRow, values: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "thread_id": thread.thread_id,
        "created_at": _time(thread.created_at),
        "updated_at": _time(thread.updated_at),
        "metadata": thread.metadata,
        "status": thread.status,
        "values": values or {},
        "interrupts": {},
    }


def run_json(run: store.RunRow) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "thread_id": run.thread_id,
        "assistant_id": ASSISTANT_ID,
        "created_at": _time(run.created_at),
        "updated_at": _time(run.updated_at),
        "status": run.status,
        "metadata": run.metadata,
        "multitask_strategy": "reject",
        "kwargs": {"attempts": run.attempts},
    }


def snapshot_json(snapshot: Any) -> dict[str, Any]:
    config = snapshot.config.get("configurable", {}) if snapshot.config else {}
    parent = (snapshot.parent_config or {}).get("configurable", {})
    return {
        "values": jsonable(snapshot.values),
        "next": list(snapshot.next),
        "tasks": [],
        "metadata": jsonable({k: v for k, v in (snapshot.metadata or {}).items() if not k.startswith("__")}),
        "created_at": snapshot.created_at,
        "checkpoint": {
            "thread_id": config.get("thread_id"),
            "checkpoint_ns": config.get("checkpoint_ns", ""),
            "checkpoint_id": config.get("checkpoint_id"),
        },
        "parent_checkpoint": (
            {
                "thread_id": parent.get("thread_id"),
                "checkpoint_ns": parent.get("checkpoint_ns", ""),
                "checkpoint_id": parent.get("checkpoint_id"),
            }
            if parent
            else None
        ),
        "interrupts": [],
    }


def assistant_json() -> dict[str, Any]:
    return {
        "assistant_id": ASSISTANT_ID,
        "graph_id": GRAPH_ID,
        "name": GRAPH_ID,
        "config": {},
        "context": {},
        "metadata": {},
        "version": 1,
        "created_at": "1970-01-01T00:00:00+00:00",
        "updated_at": "1970-01-01T00:00:00+00:00",
        "description": "SPARKIT: cited answers from the literature",
    }


# -- the service ----------------------------------------------------------------------------------


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
    ):
        self.url = url
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
        async with open_pools(self.url, 10) as (pool, saver_pool), self.queue.open_async():
            pool.timeout = saver_pool.timeout = self.pool_timeout_s
            self.pool, self.saver = pool, checkpointer(saver_pool)
            yield

    def graph(self) -> Any:
        from agent.graph import compile_graph

        return compile_graph(self.saver)

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
        body: RunCreate = _parse(RunCreate, await _body(request, self.max_body_bytes))
        unsupported = [name for name in _UNSUPPORTED if getattr(body, name) is not None]
        if unsupported:
            raise HttpError(422, f"{unsupported[0]} is not supported by the SPARKIT server")
        if body.assistant_id not in (ASSISTANT_ID, GRAPH_ID):
            raise HttpError(404, f"assistant {body.assistant_id!r} not found (this server has {ASSISTANT_ID!r})")
        modes = [body.stream_mode] if isinstance(body.stream_mode, str) else list(body.stream_mode)
        bad = [m for m in modes if m not in STREAM_MODES]
        if bad:
            raise HttpError(422, f"stream_mode {bad[0]!r} is not supported; use {', '.join(STREAM_MODES)}")
        if await store.get_thread(self.pool, user, thread_id) is None:
            if body.if_not_exists != "create":
                raise HttpError(404, f"thread {thread_id} not found")
            if await store.create_thread(self.pool, user, thread_id, {}, "do_nothing") is None:
                raise HttpError(404, f"thread {thread_id} not found")
        graph_input = _graph_input(body.input)
        settings = _settings(
            body, await store.last_settings(self.pool, user, thread_id) if graph_input is None else None
        )
        try:
            run = await store.create_run(self.pool, user, thread_id, graph_input, settings, body.metadata, modes)
        except store.ThreadBusy:
            raise HttpError(409, f"thread {thread_id} has a run pending or running; wait for it or cancel it") from None
        job_id = await defer_run(self.queue, run.run_id, thread_id)
        await store.set_job(self.pool, run.run_id, job_id)
        log.info("run %s queued as job %s", run.run_id, job_id)
        return run

    async def wait(self, run: store.RunRow) -> store.RunRow:
        while run.status in store.ACTIVE:
            await asyncio.sleep(self.poll_s)
            found = await store.get_run(self.pool, run.owner, run.thread_id, run.run_id)
            assert found is not None
            run = found
        return run

    async def events(self, run: store.RunRow, modes: list[str], after: int = 0) -> AsyncIterator[bytes]:
        """The run's events as server-sent events, from `after` on, until it finishes."""
        yield _sse("metadata", {"run_id": run.run_id, "attempt": max(1, run.attempts)})
        seq = after
        loop = asyncio.get_running_loop()
        quiet_since = loop.time()
        while True:
            batch = await store.events_after(self.pool, run.run_id, seq)
            for event in batch:
                seq = event.seq
                if event.mode in modes:
                    yield _sse(event.mode, event.data, event.seq)
            if batch:
                quiet_since = loop.time()
                continue
            if loop.time() - quiet_since > self.keepalive_s:
                yield b": keepalive\n\n"  # an SSE comment: a long node must not look like a dead connection
                quiet_since = loop.time()
            found = await store.get_run(self.pool, run.owner, run.thread_id, run.run_id)
            if found is None or found.status not in store.ACTIVE:
                if not await store.events_after(self.pool, run.run_id, seq):
                    if found is not None and found.status != "success":
                        yield _sse(
                            "error",
                            {
                                "error": "RunError" if found.status == "error" else "RunInterrupted",
                                "message": found.error or found.status,
                            },
                        )
                    return
                continue
            await asyncio.sleep(self.poll_s)


def _graph_input(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The validated question (None resumes the thread's last run)."""
    if data is None:
        return None
    from agent.inputs import validate_mode, validate_question

    unknown = sorted(set(data) - _INPUT_KEYS)
    if unknown:
        raise HttpError(422, f"input.{unknown[0]}: not an input of the graph (question, options, mode, documents)")
    try:
        mode = validate_mode(data.get("mode"))
        question, options = validate_question(data.get("question"), data.get("options"), mode)
    except InputError as exc:
        raise HttpError(422, f"input: {exc}") from None
    documents = data.get("documents")
    if documents is not None and (not isinstance(documents, list) or not all(isinstance(d, dict) for d in documents)):
        raise HttpError(422, "input.documents: a list of objects {id, title, abstract or text}")
    graph_input: dict[str, Any] = {"question": question, "options": options, "mode": mode}
    if documents:
        graph_input["documents"] = documents
    return graph_input


def _settings(body: RunCreate, stored: dict[str, Any] | None) -> dict[str, Any]:
    """The run's explicit settings tree: the stored one when resuming, the request's context and configurable on top."""
    from agent.api import make_context
    from agent.config import merge_trees, settings_tree

    configurable = {
        k: v
        for k, v in ((body.config or {}).get("configurable") or {}).items()
        if k not in ("thread_id", "checkpoint_id", "checkpoint_ns", "run_id")
    }
    try:
        tree = merge_trees(stored or {}, settings_tree(configurable), settings_tree(body.context or {}))
        return make_context(tree).explicit()
    except InputError as exc:
        raise HttpError(422, f"context: {exc}") from None


def _sse(event: str, data: Any, seq: int | None = None) -> bytes:
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


# -- routes ---------------------------------------------------------------------------------------

Handler = Callable[[Request, Service, str], Awaitable[Response]]


def _route(path: str, handler: Handler, methods: list[str]) -> Route:
    async def endpoint(request: Request) -> Response:
        service: Service = request.app.state.service
        try:
            user = await service.user(request)
            return await handler(request, service, user)
        except HttpError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)
        except DatabaseUnavailable as exc:
            return JSONResponse({"detail": str(exc)}, status_code=503)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout, psycopg.errors.AdminShutdown) as exc:
            return JSONResponse({"detail": str(await _diagnose(service.url, exc))}, status_code=503)

    return Route(path, endpoint, methods=methods)


async def _diagnose(url: str, exc: BaseException) -> DatabaseUnavailable:
    """The reason the database cannot be used: a pool timeout hides it, so one direct connection is tried."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=3)
    except psycopg.Error as cause:
        return unavailable(url, cause)
    await conn.close()
    return unavailable(url, exc)


async def create_thread(request: Request, service: Service, user: str) -> Response:
    body: ThreadCreate = _parse(ThreadCreate, await _body(request, service.max_body_bytes))
    thread = await store.create_thread(service.pool, user, body.thread_id, body.metadata, body.if_exists)
    if thread is None:
        raise HttpError(409, f"thread {body.thread_id} exists")
    return JSONResponse(thread_json(thread))


async def search_threads(request: Request, service: Service, user: str) -> Response:
    body: ThreadSearch = _parse(ThreadSearch, await _body(request, service.max_body_bytes))
    threads = await store.search_threads(service.pool, user, body.metadata, body.limit, body.offset)
    return JSONResponse([thread_json(t) for t in threads])


async def get_thread(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    runs = await store.list_runs(service.pool, user, thread.thread_id, 10, 0)
    values = next((r.output for r in runs if r.status == "success" and r.output), None)
    return JSONResponse(thread_json(thread, values))


async def delete_thread(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    if thread.status == "busy":
        raise HttpError(409, f"thread {thread.thread_id} has a run pending or running; cancel it first")
    await store.delete_thread(service.pool, user, thread.thread_id)
    return Response(status_code=204)


async def thread_state(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    snapshot = await service.graph().aget_state({"configurable": {"thread_id": thread.thread_id}})
    return JSONResponse(snapshot_json(snapshot))


async def thread_history(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    if request.method == "POST":
        query: HistoryQuery = _parse(HistoryQuery, await _body(request, service.max_body_bytes))
    else:
        query = _parse(HistoryQuery, dict(request.query_params))
    before = query.before
    before_config = None
    if before is not None:
        checkpoint_id = before if isinstance(before, str) else (before.get("configurable", before)).get("checkpoint_id")
        before_config = {"configurable": {"thread_id": thread.thread_id, "checkpoint_id": checkpoint_id}}
    history = [
        snapshot_json(s)
        async for s in service.graph().aget_state_history(
            {"configurable": {"thread_id": thread.thread_id}}, limit=query.limit, before=before_config
        )
    ]
    return JSONResponse(history)


async def create_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return JSONResponse(run_json(run), headers=_location(run))


async def stream_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return StreamingResponse(
        service.events(run, run.stream_mode), media_type="text/event-stream", headers=_location(run)
    )


async def wait_run(request: Request, service: Service, user: str) -> Response:
    run = await service.start_run(request, user, request.path_params["thread_id"])
    return _waiting(service, run)


async def list_runs(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    query = request.query_params
    limit, offset = _int(query.get("limit"), 10), _int(query.get("offset"), 0)
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
            yield json.dumps(_outcome(waiting.result()), ensure_ascii=False).encode()
        finally:
            waiting.cancel()

    headers = {**_location(run), "Location": f"/threads/{run.thread_id}/runs/{run.run_id}/join"}
    return StreamingResponse(body(), media_type="application/json", headers=headers)


async def join_stream(request: Request, service: Service, user: str) -> Response:
    run = await service.run(user, request.path_params["thread_id"], request.path_params["run_id"])
    modes = request.query_params.getlist("stream_mode") or run.stream_mode
    after = _int(request.headers.get("last-event-id"), 0)
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


async def search_assistants(request: Request, service: Service, user: str) -> Response:
    return JSONResponse([assistant_json()])


async def get_assistant(request: Request, service: Service, user: str) -> Response:
    if request.path_params["assistant_id"] not in (ASSISTANT_ID, GRAPH_ID):
        raise HttpError(404, f"assistant {request.path_params['assistant_id']} not found")
    return JSONResponse(assistant_json())


def _outcome(run: store.RunRow) -> dict[str, Any]:
    """What /runs/wait and /join return: the output values, or LangGraph's `__error__` object."""
    if run.status == "success" and run.output is not None:
        return run.output
    kind = "RunError" if run.status == "error" else "RunInterrupted"
    return {"__error__": {"error": kind, "message": run.error or run.status}}


def _location(run: store.RunRow) -> dict[str, str]:
    return {"Content-Location": f"/threads/{run.thread_id}/runs/{run.run_id}"}


def _int(value: str | None, default: int) -> int:
    if value is None:
        return default
    try:
        return max(0, int(value))
    except ValueError:
        raise HttpError(422, f"{value[:20]!r} is not a number") from None


async def ok(request: Request) -> Response:
    return JSONResponse({"ok": True})


def create_app(service: Service) -> Starlette:
    routes = [
        Route("/ok", ok, methods=["GET"]),
        _route("/assistants/search", search_assistants, ["POST"]),
        _route("/assistants/{assistant_id}", get_assistant, ["GET"]),
        _route("/threads", create_thread, ["POST"]),
        _route("/threads/search", search_threads, ["POST"]),
        _route("/threads/{thread_id}", get_thread, ["GET"]),
        _route("/threads/{thread_id}", delete_thread, ["DELETE"]),
        _route("/threads/{thread_id}/state", thread_state, ["GET"]),
        _route("/threads/{thread_id}/history", thread_history, ["GET", "POST"]),
        _route("/threads/{thread_id}/runs", create_run, ["POST"]),
        _route("/threads/{thread_id}/runs", list_runs, ["GET"]),
        _route("/threads/{thread_id}/runs/stream", stream_run, ["POST"]),
        _route("/threads/{thread_id}/runs/wait", wait_run, ["POST"]),
        _route("/threads/{thread_id}/runs/{run_id}", get_run, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/join", join_run, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/stream", join_stream, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/cancel", cancel_run, ["POST"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with service.running():
            yield

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.service = service
    return app
