"""The routes of a thread's state: the state now or at any checkpoint, its history (what Studio forks and replays
from), and an edit (`threads.update_state`, made as a node with `as_node`, on the latest checkpoint or on a named one).
The server reads and writes the checkpoints itself: an edit runs no node, so no worker is needed."""

from __future__ import annotations

from langgraph.errors import InvalidUpdateError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent.service.requests import GRAPH_ID, HistoryQuery, HttpError, StateAt, StateUpdate, parse, read_body
from agent.service.service import Service
from agent.service.shapes import snapshot_json
from agent.service.state_edits import checkpoint_config, checkpoint_id_of, node_name, state_values


async def _state_at(service: Service, thread_id: str, checkpoint_id: str | None) -> Response:
    config = await checkpoint_config(service.saver, thread_id, checkpoint_id)
    return JSONResponse(snapshot_json(await service.graph().aget_state(config)))


async def thread_state(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    return await _state_at(service, thread.thread_id, None)


async def state_at(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    return await _state_at(service, thread.thread_id, request.path_params["checkpoint_id"])


async def state_at_checkpoint(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    body: StateAt = parse(StateAt, await read_body(request, service.max_body_bytes))
    return await _state_at(service, thread.thread_id, checkpoint_id_of(body.checkpoint))


async def update_state(request: Request, service: Service, user: str) -> Response:
    """An edit of the state, stored as a new checkpoint after the named one (default: the latest); the thread's next
    run without input goes on from it. Refused while a run is pending or running (it would write over the edit)."""
    thread = await service.thread(user, request.path_params["thread_id"])
    body: StateUpdate = parse(StateUpdate, await read_body(request, service.max_body_bytes))
    if thread.status == "busy":
        raise HttpError(409, f"thread {thread.thread_id} has a run pending or running; wait for it or cancel it")
    graph = service.graph()
    values = state_values(body.values)
    as_node = node_name(graph, body.as_node)
    checkpoint_id = body.checkpoint_id or checkpoint_id_of(body.checkpoint)
    config = await checkpoint_config(service.saver, thread.thread_id, checkpoint_id)
    config["metadata"] = {"graph_id": GRAPH_ID}  # as langgraph-api stamps an edit
    try:
        updated = await graph.aupdate_state(config, values, as_node=as_node)
    except InvalidUpdateError as exc:
        raise HttpError(422, f"values: {str(exc).splitlines()[0][:200]}") from None
    checkpoint = updated["configurable"]
    return JSONResponse(
        {"checkpoint": checkpoint, "configurable": checkpoint, "checkpoint_id": checkpoint["checkpoint_id"]}
    )


async def thread_history(request: Request, service: Service, user: str) -> Response:
    thread = await service.thread(user, request.path_params["thread_id"])
    if request.method == "POST":
        query: HistoryQuery = parse(HistoryQuery, await read_body(request, service.max_body_bytes))
    else:
        query = parse(HistoryQuery, dict(request.query_params))
    before = checkpoint_id_of(query.before)
    before_config = None
    if before is not None:
        before_config = await checkpoint_config(service.saver, thread.thread_id, before)
    history = [
        snapshot_json(s)
        async for s in service.graph().aget_state_history(
            {"configurable": {"thread_id": thread.thread_id}}, limit=query.limit, before=before_config
        )
    ]
    return JSONResponse(history)
