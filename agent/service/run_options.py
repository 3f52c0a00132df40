"""How a run starts besides its question, as LangGraph Studio and langgraph-sdk ask for it: from one of the thread's
checkpoints (`checkpoint_id`: fork with an input, replay without), stopping before or after nodes
(`interrupt_before` / `interrupt_after`), or resuming with a `command` (`update`, `goto`, `resume`). The server checks
them (422 with the reason) and stores them with the run; the worker builds the graph's arguments from them
(agent/service/execute.py). And the run's extra stream modes, `debug`, `checkpoints` and `tasks`, in langgraph-api's
shapes."""

from __future__ import annotations

from typing import Any

from agent.service.requests import HttpError, RunCreate
from agent.service.state_edits import checkpoint_config, checkpoint_id_of, node_name, state_values

EXTRA_MODES = ("debug", "checkpoints", "tasks")
"""Stream modes stored only for a run that asks for them: each carries the whole state at every step."""


def _nodes(graph: Any, field: str, value: Any) -> list[str] | str | None:
    if value is None or value == "*":
        return value
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise HttpError(422, f"{field}: '*' or a list of node names")
    for name in names:
        try:
            node_name(graph, name)
        except HttpError as exc:
            raise HttpError(422, f"{field}: {exc.detail.split(': ', 1)[1]}") from None
    return names


def _command(graph: Any, command: Any) -> dict[str, Any] | None:
    if command is None:
        return None
    if not isinstance(command, dict) or not command or set(command) - {"update", "goto", "resume"}:
        raise HttpError(422, "command: an object of update, goto and resume")
    if command.get("update") is not None:
        try:
            state_values(command["update"])  # the worker rebuilds the records from the JSON
        except HttpError as exc:
            raise HttpError(422, exc.detail.replace("values", "command.update", 1)) from None
    goto = command.get("goto")
    if goto is not None:
        _nodes(graph, "command.goto", goto if goto != "*" else [goto])
    return {key: value for key, value in command.items() if value is not None}


async def checked_options(body: RunCreate, graph: Any, saver: Any, thread_id: str) -> dict[str, Any]:
    """The run's start options, checked against the graph and the thread's checkpoints."""
    if body.input is not None and body.command is not None:
        raise HttpError(422, "input and command: give one (a command resumes the thread, an input asks anew)")
    checkpoint_id = body.checkpoint_id or checkpoint_id_of(body.checkpoint)
    if checkpoint_id is not None:
        await checkpoint_config(saver, thread_id, checkpoint_id)  # 422 when the thread has no such checkpoint
    command = _command(graph, body.command)
    if command is not None and "resume" in command:
        command["resume"] = await _checked_review(graph, saver, thread_id, checkpoint_id, command["resume"])
    options = {
        "checkpoint_id": checkpoint_id,
        "interrupt_before": _nodes(graph, "interrupt_before", body.interrupt_before),
        "interrupt_after": _nodes(graph, "interrupt_after", body.interrupt_after),
        "command": command,
    }
    return {key: value for key, value in options.items() if value is not None}


async def _checked_review(graph: Any, saver: Any, thread_id: str, checkpoint_id: str | None, edits: Any) -> Any:
    """A `command.resume` answers the review point (agent/nodes/review.py), the graph's only `interrupt`: 409 when the
    thread is not waiting for a review (a finished run), 422 with the reason when the edits do not fit its ledger;
    the edits as LangGraph delivers them ({} approves)."""
    from agent.review.ledger import ReviewError, check_edits, resumable

    snapshot = await graph.aget_state(await checkpoint_config(saver, thread_id, checkpoint_id))
    try:
        check_edits(snapshot.values, snapshot.interrupts, edits, f"on thread {thread_id}")
    except ReviewError as exc:
        raise HttpError(409 if "not waiting" in str(exc) else 422, f"command.resume: {exc}") from None
    return resumable(edits)


def graph_command(command: dict[str, Any]) -> Any:
    """The stored command as LangGraph's Command, its update rebuilt as the state's records."""
    from langgraph.types import Command

    return Command(
        update=state_values(command.get("update")),
        goto=command.get("goto") or (),
        resume=command.get("resume"),
    )


def _checkpoint_of(config: Any) -> dict[str, Any] | None:
    configurable = (config or {}).get("configurable") or {}
    if not configurable.get("checkpoint_id"):
        return None
    keys = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")
    return {key: configurable[key] for key in keys if key in configurable}


def _checkpoint_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint event as langgraph-api streams it (its stream.py): `checkpoint` / `parent_checkpoint` beside the
    configs (here without the run's own objects in `configurable`), a task's state config as its `checkpoint`."""
    checkpoint, parent = _checkpoint_of(payload.get("config")), _checkpoint_of(payload.get("parent_config"))
    tasks = []
    for task in payload.get("tasks") or []:
        task = dict(task)
        state = task.pop("state", None)
        if isinstance(state, dict) and state.get("configurable"):
            task["checkpoint"] = state["configurable"]
        tasks.append(task)
    return {
        **payload,
        "config": {"configurable": checkpoint} if checkpoint else None,
        "parent_config": {"configurable": parent} if parent else None,
        "checkpoint": checkpoint,
        "parent_checkpoint": parent,
        "tasks": tasks,
    }


def stream_event(mode: str, chunk: Any) -> Any:
    """A `debug`, `checkpoints` or `tasks` chunk as langgraph-api streams it."""
    if mode == "checkpoints" and isinstance(chunk, dict):
        return _checkpoint_payload(chunk)
    if mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint":
        return {**chunk, "payload": _checkpoint_payload(chunk.get("payload") or {})}
    return chunk
