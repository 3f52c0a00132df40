"""The JSON the API answers with, in langgraph-api's shapes (its openapi.json): threads, runs, state snapshots, the
assistant, server-sent events and a finished run's outcome."""

from __future__ import annotations

import json
from typing import Any

from agent.service import store
from agent.service.jsonable import jsonable
from agent.service.requests import ASSISTANT_ID, GRAPH_ID


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
        "metadata": {"graph_id": GRAPH_ID, "assistant_id": ASSISTANT_ID, **run.metadata},
        "multitask_strategy": "reject",
        "kwargs": {
            "input": run.input,
            "command": None,
            "config": {"configurable": {}},
            "context": run.settings,
            "stream_mode": run.stream_mode,
            "interrupt_before": None,
            "interrupt_after": None,
            "attempts": run.attempts,
            **run.options,
        },
    }


def _checkpoint(config: Any) -> dict[str, Any] | None:
    configurable = (config or {}).get("configurable") or {}
    if not configurable.get("checkpoint_id"):
        return None
    return {
        "thread_id": configurable.get("thread_id"),
        "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        "checkpoint_id": configurable["checkpoint_id"],
    }


def _interrupt(interrupt: Any) -> dict[str, Any]:
    return {"id": getattr(interrupt, "id", None), "value": jsonable(getattr(interrupt, "value", None))}


def snapshot_json(snapshot: Any) -> dict[str, Any]:
    """A ThreadState as langgraph-api writes one (its state.py): no checkpoint yet is `checkpoint: null`."""
    checkpoint, parent = _checkpoint(snapshot.config), _checkpoint(snapshot.parent_config)
    return {
        "values": jsonable(snapshot.values),
        "next": list(snapshot.next),
        "tasks": [
            {
                "id": task.id,
                "name": task.name,
                "path": jsonable(task.path),
                "error": str(task.error) if task.error is not None else None,
                "interrupts": [_interrupt(i) for i in task.interrupts],
                "checkpoint": None,
                "state": None,
                "result": jsonable(task.result),
            }
            for task in snapshot.tasks
        ],
        "metadata": jsonable({k: v for k, v in (snapshot.metadata or {}).items() if not k.startswith("__")}),
        "created_at": snapshot.created_at,
        "checkpoint": checkpoint,
        "parent_checkpoint": parent,
        "interrupts": [_interrupt(i) for i in snapshot.interrupts],
        "checkpoint_id": checkpoint["checkpoint_id"] if checkpoint else None,
        "parent_checkpoint_id": parent["checkpoint_id"] if parent else None,
    }


def assistant_json() -> dict[str, Any]:
    return {
        "assistant_id": ASSISTANT_ID,
        "graph_id": GRAPH_ID,
        "name": GRAPH_ID,
        "config": {},
        "context": {},
        "metadata": {"created_by": "system"},
        "version": 1,
        "created_at": "1970-01-01T00:00:00+00:00",
        "updated_at": "1970-01-01T00:00:00+00:00",
        "description": "SPARKIT: cited answers from the literature",
    }


def sse(event: str, data: Any, seq: int | None = None) -> bytes:
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def outcome(run: store.RunRow) -> dict[str, Any]:
    """What /runs/wait and /join return: the output values (for a run stopped at a breakpoint, the state there), or
    LangGraph's `__error__` object."""
    if run.status in ("success", "interrupted") and run.output is not None:
        return run.output
    kind = "RunError" if run.status == "error" else "RunInterrupted"
    return {"__error__": {"error": kind, "message": run.error or run.status}}


def location(run: store.RunRow) -> dict[str, str]:
    return {"Content-Location": f"/threads/{run.thread_id}/runs/{run.run_id}"}
