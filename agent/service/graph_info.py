"""What LangGraph Studio reads to draw and fill in the graph, computed from the graph itself as `langgraph dev`
computes it (langgraph-api's assistants endpoints): its input, output, state and context schemas, its drawing (nodes
and edges, `xray` for subgraphs) and its subgraphs, and the server's /info."""

from __future__ import annotations

import importlib.metadata
from typing import Any

from langchain_core.runnables.utils import create_model
from pydantic import TypeAdapter

from agent.service.requests import HttpError

API_VERSION = "0.16.7"
"""The langgraph-api release whose openapi.json these shapes are checked against (tests/service/test_conformance.py)."""


def state_jsonschema(graph: Any) -> dict[str, Any]:
    """Each state channel with the type an update to it takes (a channel whose type has no JSON schema is `Any`), as
    langgraph-api builds it (langchain-core's create_model, which takes a `__root__` field)."""
    fields: dict[str, Any] = {}
    for key in graph.stream_channels_list:
        kind = graph.channels[key].UpdateType
        try:
            create_model(key, __root__=(kind, None)).model_json_schema()
            fields[key] = (kind, None)
        except Exception:
            fields[key] = (Any, None)
    return dict(create_model(graph.get_name("State"), **fields).model_json_schema())


def config_jsonschema(graph: Any) -> dict[str, Any]:
    """The schema of `config.configurable`, as langgraph-api reads it from the graph's config schema."""
    fields = graph.config_schema().model_fields
    if "configurable" not in fields:
        return {}
    configurable: Any = fields["configurable"].annotation
    schema = dict(TypeAdapter(configurable).json_schema())
    for key in ("__pregel_checkpointer", "__pregel_store", "checkpoint_id", "checkpoint_ns", "thread_id"):
        schema.get("properties", {}).pop(key, None)
    if getattr(graph, "config_type", None) is not None:
        schema["title"] = graph.config_type.__name__
    return schema


def schemas(graph: Any) -> dict[str, Any]:
    """The GraphSchema of langgraph-api: what Studio builds its input form and state view from."""
    return {
        "input_schema": graph.get_input_jsonschema(),
        "output_schema": graph.get_output_jsonschema(),
        "state_schema": state_jsonschema(graph),
        "config_schema": config_jsonschema(graph),
        "context_schema": graph.get_context_jsonschema(),
    }


def xray_param(value: str | None) -> bool | int:
    """`xray` as langgraph-api reads it: true / false, or how many levels of subgraphs to draw (a positive int)."""
    if value is None or value in ("false", "False"):
        return False
    if value in ("true", "True"):
        return True
    try:
        depth = int(value)
    except ValueError:
        depth = 0
    if depth <= 0:
        raise HttpError(422, f"xray must be true, false or a positive number of levels, not {value[:20]!r}")
    return depth


def drawing(graph: Any, xray: bool | int) -> dict[str, Any]:
    """The graph's nodes and edges as Studio draws them (node data without its Python class path, as langgraph-api)."""
    drawn = graph.get_graph(xray=xray).to_json()
    for node in drawn.get("nodes", []):
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    return dict(drawn)


def subgraphs(graph: Any, namespace: str | None, recurse: bool) -> dict[str, Any]:
    """Each subgraph (by namespace) with its schemas; SPARKIT's graph has none, so this is {} unless one is added."""
    return {ns: schemas(sub) for ns, sub in graph.get_subgraphs(namespace=namespace, recurse=recurse)}


def server_info() -> dict[str, Any]:
    """/info: what the server supports (LangGraph Studio asks before it connects)."""
    import langgraph.version

    try:
        version = importlib.metadata.version("sparkit")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {
        "version": API_VERSION,
        "langgraph_py_version": langgraph.version.__version__,
        "flags": {
            "assistants": True,
            "crons": False,
            "langsmith": False,
            "langsmith_tracing_replicas": False,
            "langsmith_tracing_session_on_runs": False,
        },
        "metadata": {"server": "sparkit serve", "sparkit_version": version},
    }
