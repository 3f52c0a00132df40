"""The Python API: `ask`, `verify` and their async twins return the same Answer object as the CLI.

Runs are checkpointed to SQLite under SPARKIT_HOME (thread id = run id), so `resume(run_id)` continues
a crashed run from the node that failed without re-running finished ones.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.config import Context, sparkit_home
from agent.errors import InputError, SparkitError
from agent.inputs import validate_question
from agent.records import Answer, Status

EventHandler = Callable[[dict[str, Any]], None]


def make_context(context: Context | dict[str, Any] | None = None, **overrides: Any) -> Context:
    """A validated Context from a Context, a dict and/or keyword overrides; unknown presets and fields raise InputError."""
    data: dict[str, Any] = {}
    if isinstance(context, Context):
        data = context.model_dump(include=context.model_fields_set)
    elif context:
        data = dict(context)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Context.model_validate(data)
    except Exception as exc:  # pydantic.ValidationError: keep the first problem, one line
        errors = getattr(exc, "errors", lambda: [])()
        first = errors[0] if errors else {"loc": ["context"], "msg": str(exc)}
        raise InputError(f"invalid setting {'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def checkpoint_path() -> Path:
    return sparkit_home() / "checkpoints.sqlite"


async def _run(graph_input: dict[str, Any] | None, settings: Context, run_id: str, on_event: EventHandler | None, callbacks: list | None) -> Answer:
    from agent.checkpoint import sqlite_checkpointer
    from agent.graph import compile_graph

    config = {"configurable": {"thread_id": run_id}, "recursion_limit": settings.resolved().recursion_limit, "callbacks": callbacks or []}
    async with sqlite_checkpointer(checkpoint_path()) as saver:
        app = compile_graph(saver)
        async for mode, chunk in app.astream(graph_input, config, context=settings, stream_mode=["updates", "custom"]):
            if mode == "custom" and on_event is not None:
                on_event(chunk)
        state = await app.aget_state(config)
    answer = state.values.get("answer")
    if answer is None:
        raise SparkitError(f"run {run_id} ended without an answer (next: {list(state.next)})")
    return answer


def _error_answer(question: str, run_id: str, exc: Exception) -> Answer:
    return Answer(status=Status.ERROR, task="open", question=question, answer=f"Run failed: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}",
                  confidence=0.0, run_id=run_id, stop_reason=f"error in run; resume with `sparkit resume {run_id}`")


async def aask(
    question: str,
    options: list[str] | None = None,
    *,
    context: Context | dict[str, Any] | None = None,
    documents: list[dict[str, Any]] | None = None,
    mode: str = "ask",
    run_id: str | None = None,
    on_event: EventHandler | None = None,
    callbacks: list | None = None,
    **overrides: Any,
) -> Answer:
    """Answer a question (or check a claim with mode='verify') with cited evidence.

    Input and configuration problems raise SparkitError subclasses; failures inside the run return an
    Answer with status ERROR whose run_id can be resumed.
    """
    question, options = validate_question(question, options)
    settings = make_context(context, **overrides)
    settings.resolved()
    run_id = run_id or uuid.uuid4().hex[:12]
    graph_input: dict[str, Any] = {"question": question, "options": options, "mode": mode}
    if documents:
        graph_input["documents"] = documents
    try:
        return await _run(graph_input, settings, run_id, on_event, callbacks)
    except SparkitError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as an ERROR answer, resumable
        return _error_answer(question, run_id, exc)


async def averify(claim: str, **kwargs: Any) -> Answer:
    """Check a claim: verdict SUPPORT / CONTRADICT / NOT_ENOUGH_INFO with the evidence."""
    return await aask(claim, None, mode="verify", **kwargs)


async def aresume(run_id: str, *, context: Context | dict[str, Any] | None = None, on_event: EventHandler | None = None, **overrides: Any) -> Answer:
    """Continue a checkpointed run from where it stopped."""
    settings = make_context(context, **overrides)
    try:
        return await _run(None, settings, run_id, on_event, None)
    except SparkitError:
        raise
    except Exception as exc:  # noqa: BLE001
        return _error_answer("", run_id, exc)


def ask(question: str, options: list[str] | None = None, **kwargs: Any) -> Answer:
    return asyncio.run(aask(question, options, **kwargs))


def verify(claim: str, **kwargs: Any) -> Answer:
    return asyncio.run(averify(claim, **kwargs))


def resume(run_id: str, **kwargs: Any) -> Answer:
    return asyncio.run(aresume(run_id, **kwargs))
