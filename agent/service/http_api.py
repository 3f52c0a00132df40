"""The HTTP API of `sparkit serve`, in the shape of the LangGraph Server / Agent Protocol API so that `langgraph-sdk`
clients work against it (docs/deploy.md lists what does and does not).

Every route but /ok and /info needs an API key (`x-api-key`, as langgraph-sdk sends it, or `Authorization: Bearer`); a
user sees only their own threads and runs: another user's thread id is 404, as an unknown one is. Bodies are JSON
objects of at most `max_body_bytes` (413 beyond, 400 when not JSON, 422 when a field is wrong, each with the reason).
The database being down or refusing the password answers 503 with the one line that says what failed. Neither keys
nor request bodies (questions) are logged."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial

import psycopg
import psycopg_pool
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agent.service import assistant_routes as a
from agent.service import routes as r
from agent.service import state_routes as s
from agent.service.database import DatabaseUnavailable, unavailable, where
from agent.service.requests import HttpError, storable
from agent.service.service import POOL_SIZE, Service

Handler = Callable[[Request, Service, str], Awaitable[Response]]


def _route(path: str, handler: Handler, methods: list[str], *, reads: bool = False) -> Route:
    """A route that knows its user; a read (every GET, and the POSTs marked `reads`) whose database connection
    dropped is tried again for up to twice the pool timeout (PostgreSQL restarting): its caller sees a slower answer,
    not a 503. A write is not tried again: whether it was stored before the connection dropped is unknown."""
    reads = reads or methods == ["GET"]

    async def answer(request: Request, service: Service) -> Response:
        user = await service.user(request)
        for name, value in [*request.path_params.items(), *request.query_params.multi_items()]:
            storable(value, name)  # a NUL or unpaired surrogate PostgreSQL cannot hold is a 422, not a 500
        return await handler(request, service, user)

    async def endpoint(request: Request) -> Response:
        service: Service = request.app.state.service
        try:
            if reads:
                return await service.patiently(partial(answer, request, service), 2 * service.pool_timeout_s)
            return await answer(request, service)
        except HttpError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)
        except DatabaseUnavailable as exc:
            return JSONResponse({"detail": str(exc)}, status_code=503)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout, psycopg.errors.AdminShutdown) as exc:
            return JSONResponse(
                {"detail": await _diagnose(service.url, exc)}, status_code=503, headers={"Retry-After": "1"}
            )
        except ClientDisconnect:
            return Response(status_code=499)  # the client left while its body was read: nobody reads the answer

    return Route(path, endpoint, methods=methods)


async def _diagnose(url: str, exc: BaseException) -> str:
    """Why the database cannot be used. A pool timeout hides it, so one direct connection is tried; when that one
    connects, the database is up and the server's own connections were all busy (more requests at once than its
    pool holds, as under load): that is said, not that PostgreSQL is down."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=3)
    except psycopg.Error as cause:
        return str(unavailable(url, cause))
    await conn.close()
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return (
            f"the server is busy: its {POOL_SIZE} connections to PostgreSQL at {where(url)} were all in use for "
            f"{exc.args[0].split('after ')[-1] if exc.args else 'a while'}; retry"
        )
    return str(unavailable(url, exc))


async def ok(request: Request) -> Response:
    return JSONResponse({"ok": True})


def create_app(service: Service) -> Starlette:
    routes = [
        Route("/ok", ok, methods=["GET"]),
        Route("/info", a.info, methods=["GET"]),
        _route("/assistants/search", a.search_assistants, ["POST"], reads=True),
        _route("/assistants/{assistant_id}", a.get_assistant, ["GET"]),
        _route("/assistants/{assistant_id}/schemas", a.schemas, ["GET"]),
        _route("/assistants/{assistant_id}/graph", a.drawing, ["GET"]),
        _route("/assistants/{assistant_id}/subgraphs", a.subgraphs, ["GET"]),
        _route("/assistants/{assistant_id}/subgraphs/{namespace}", a.subgraphs, ["GET"]),
        _route("/threads", r.create_thread, ["POST"]),
        _route("/threads/search", r.search_threads, ["POST"], reads=True),
        _route("/threads/{thread_id}", r.get_thread, ["GET"]),
        _route("/threads/{thread_id}", r.delete_thread, ["DELETE"]),
        _route("/threads/{thread_id}/state", s.thread_state, ["GET"]),
        _route("/threads/{thread_id}/state", s.update_state, ["POST"]),
        _route("/threads/{thread_id}/state/checkpoint", s.state_at_checkpoint, ["POST"], reads=True),
        _route("/threads/{thread_id}/state/{checkpoint_id}", s.state_at, ["GET"]),
        _route("/threads/{thread_id}/history", s.thread_history, ["GET", "POST"], reads=True),
        _route("/threads/{thread_id}/runs", r.create_run, ["POST"]),
        _route("/threads/{thread_id}/runs", r.list_runs, ["GET"]),
        _route("/threads/{thread_id}/runs/stream", r.stream_run, ["POST"]),
        _route("/threads/{thread_id}/runs/wait", r.wait_run, ["POST"]),
        _route("/threads/{thread_id}/runs/{run_id}", r.get_run, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/join", r.join_run, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/stream", r.join_stream, ["GET"]),
        _route("/threads/{thread_id}/runs/{run_id}/cancel", r.cancel_run, ["POST"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with service.running():
            yield

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.service = service
    return app
