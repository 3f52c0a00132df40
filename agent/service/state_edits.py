"""Checks on what a client asks of a thread's state before the graph sees it: which checkpoint (one of this thread's,
422 otherwise), an edit's values (each key a field of the state, each value of that field's type, rebuilt as the
records the nodes read: 422 with the field and the reason otherwise) and the node an edit is made as."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter, ValidationError

from agent.service.requests import HttpError


@cache
def state_fields() -> dict[str, TypeAdapter[Any]]:
    """Every field of the graph's state -> a validator of its type (the reducer, in Annotated, is no part of it)."""
    from agent.state import OutputState, ResearchState

    hints = {**get_type_hints(ResearchState, include_extras=True), **get_type_hints(OutputState, include_extras=True)}
    return {
        key: TypeAdapter(get_args(hint)[0] if get_origin(hint) is Annotated else hint) for key, hint in hints.items()
    }


def state_values(values: Any) -> dict[str, Any] | None:
    """An edit's values as the state holds them: a field the state has not, or a value not of its field's type, is
    a 422 naming the field."""
    if values is None:
        return None
    if isinstance(values, list):
        if len(values) != 1:
            raise HttpError(422, "values: one object of state fields (a list of several updates is not supported)")
        values = values[0]
    if not isinstance(values, dict):
        raise HttpError(422, f"values: an object of state fields, not {type(values).__name__}")
    fields = state_fields()
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise HttpError(
            422, f"values.{unknown[0][:60]}: not a field of the state (fields: {', '.join(sorted(fields))})"
        )
    checked = {}
    for key, value in values.items():
        try:
            checked[key] = fields[key].validate_python(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in (key, *first["loc"]))
            raise HttpError(422, f"values.{where}: {first['msg']}") from None
    return checked


def node_name(graph: Any, as_node: str | None) -> str | None:
    """The node an edit is made as (the graph's edges then go on from it); 422 for a node the graph has not."""
    if as_node is None:
        return None
    nodes = [name for name in graph.nodes if name != "__start__"]
    if as_node not in nodes and as_node != "__start__":
        raise HttpError(422, f"as_node: the graph has no node {as_node[:60]!r} (nodes: {', '.join(nodes)})")
    return as_node


def checkpoint_id_of(checkpoint: Any) -> str | None:
    """The checkpoint id a client gives: a string, a CheckpointConfig or a config's `configurable`."""
    if checkpoint is None or isinstance(checkpoint, str):
        return checkpoint or None
    if isinstance(checkpoint, dict):
        inner = checkpoint.get("configurable", checkpoint)
        found = inner.get("checkpoint_id") if isinstance(inner, dict) else None
        if found is None or isinstance(found, str):
            return found or None
    raise HttpError(422, "checkpoint: an object with a checkpoint_id")


async def checkpoint_config(saver: Any, thread_id: str, checkpoint_id: str | None) -> dict[str, Any]:
    """The config of one of this thread's checkpoints (the latest when none is named); 422 for one it has not (as
    langgraph-api's openapi.json declares for these routes)."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    if checkpoint_id is None:
        return config
    config["configurable"]["checkpoint_id"] = checkpoint_id
    if await saver.aget_tuple(config) is None:
        raise HttpError(422, f"checkpoint {checkpoint_id[:60]!r} not found on thread {thread_id}")
    return config
