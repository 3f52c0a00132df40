"""The Python API: `ask`, `verify` and their async twins return the same Answer object as the CLI.

Each call is checked here (the question, its options, the settings) and run by the engine (engine.py): the graph
streamed and checkpointed to SQLite under SPARKIT_HOME (thread id = run id), so `resume(run_id)` continues a crashed
run from the node that failed without re-running finished ones (checkpoint.py). The other programs' ways in are built
on it: the graph served to `langgraph dev` (langgraph_server.py) and the MCP tools (mcp_server.py).
"""

from __future__ import annotations

from typing import Any

from agent.api import engine
from agent.api.engine import NO_RESUME, EventHandler, Reviewer, checkpoint_path, ensure_home, new_run_id
from agent.common.aio import run_coroutine_sync
from agent.config import Context, merge_trees, settings_tree
from agent.errors import InputError
from agent.inputs import validate_mode, validate_question
from agent.interfaces import StanceJudge
from agent.records import Answer

__all__ = [
    "EventHandler",
    "Reviewer",
    "aask",
    "aresume",
    "ask",
    "averify",
    "checkpoint_path",
    "ensure_home",
    "make_context",
    "new_run_id",
    "resume",
    "stance_judge",
    "verify",
]


def make_context(context: Context | dict[str, Any] | None = None, **overrides: Any) -> Context:
    """A validated Context from a Context, a dict and/or keyword overrides (flat, dotted or grouped names; a
    new preset re-applies to what the caller did not set); unknown presets and fields raise InputError."""
    layer = {k: v for k, v in overrides.items() if v is not None}
    try:
        if isinstance(context, Context):
            return context.with_overrides(layer) if layer else context
        return Context.model_validate(merge_trees(settings_tree(context), settings_tree(layer)))
    except Exception as exc:  # pydantic.ValidationError: keep the first problem, one line
        errors: list[Any] = getattr(exc, "errors", lambda: [])()
        first = errors[0] if errors else {"loc": ["context"], "msg": str(exc)}
        name = ".".join(str(p) for p in first["loc"])
        shown = name if name.isprintable() and name.strip() else repr(name)  # a key of control characters, one line
        raise InputError(f"invalid setting {shown}: {' '.join(str(first['msg']).split())}") from None


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
    trace: bool | None = None,
    reviewer: Reviewer | None = None,
    **overrides: Any,
) -> Answer:
    """Answer a question (or check a claim with mode='verify') with cited evidence.

    With `review=True` the run stops after the court for a scientist's review of its ledger: `reviewer(payload)` is
    asked for the edits (agent/review/ledger.py); without a reviewer ReviewPending is raised, and
    `resume(run_id, edits={...})` continues the run with them.

    Input and configuration problems raise SparkitError subclasses; failures inside the run return an
    Answer with status ERROR whose run_id can be resumed. `trace=True` writes a local trace to
    $SPARKIT_HOME/traces/<run_id>.jsonl (`sparkit trace show RUN_ID`); None follows SPARKIT_TRACE, off when unset.
    """
    mode = validate_mode(mode)
    question, options = validate_question(question, options, mode)
    settings = make_context(context, **overrides)
    ensure_home()
    run_id = run_id or new_run_id()
    engine.announce(run_id, on_event)
    graph_input: dict[str, Any] = {"question": question, "options": options, "mode": mode}
    if documents:
        graph_input["documents"] = documents
    return await engine.traced_run(graph_input, settings, run_id, graph_input, on_event, callbacks, trace, reviewer)


async def averify(claim: str, **kwargs: Any) -> Answer:
    """Check a claim: verdict SUPPORT / CONTRADICT / NOT_ENOUGH_INFO with the evidence."""
    return await aask(claim, None, mode="verify", **kwargs)


async def aresume(
    run_id: str,
    *,
    context: Context | dict[str, Any] | None = None,
    on_event: EventHandler | None = None,
    callbacks: list | None = None,
    trace: bool | None = None,
    edits: Any = NO_RESUME,
    reviewer: Reviewer | None = None,
    **overrides: Any,
) -> Answer:
    """Continue a checkpointed run from where it stopped, with the settings it started with; `context` and keyword
    settings apply on top (a new `preset` re-applies that preset under them). A traced run's trace gets a new segment.
    An unknown run id raises InputError, and nothing is written. A run waiting at its review point takes `edits`
    (checked against its ledger first: ReviewError, and nothing runs, when they do not fit or the run is not waiting
    for a review)."""
    asked, stored = await engine.checkpointed_run(run_id, edits)
    given = context.explicit() if isinstance(context, Context) else settings_tree(context)
    settings = make_context(merge_trees(stored, given), **overrides)
    engine.announce(run_id, on_event)
    return await engine.traced_run(None, settings, run_id, asked, on_event, callbacks, trace, reviewer, edits)


def stance_judge(context: Context | dict[str, Any] | None = None, **overrides: Any) -> StanceJudge:
    """The stance judge that runs with these settings would use (`stance_model`, `llm`), without opening a corpus:
    `await judge.judge([(statement, passage), ...])` gives SUPPORT / CONTRADICT / NEUTRAL with probabilities."""
    from agent.backend.judging_parts import judge_for

    return judge_for(make_context(context, **overrides))


def ask(question: str, options: list[str] | None = None, **kwargs: Any) -> Answer:
    """Answer a question with cited evidence; blocking twin of `aask` (same arguments: `context=`, `documents=`,
    `mode=`, `run_id=`, `on_event=`, `trace=`, and any setting by name, e.g. `preset="fast"`, `max_claims=3`).

    With `options` (2 to 26) it is a multiple-choice question. Bad input raises InputError (a ValueError); a failure
    inside the run returns an Answer with status ERROR that `resume(answer.run_id)` continues. Called inside a running
    event loop (a Jupyter cell), the run goes on a private loop in a worker thread; there `await aask(...)` is better.
    """
    return run_coroutine_sync(aask(question, options, **kwargs))


def verify(claim: str, **kwargs: Any) -> Answer:
    """Check a claim: `answer.verdict` is SUPPORT, CONTRADICT or NOT_ENOUGH_INFO, with the evidence and its citations.
    Blocking twin of `averify`; takes the arguments of `ask`."""
    return run_coroutine_sync(averify(claim, **kwargs))


def resume(run_id: str, **kwargs: Any) -> Answer:
    """Continue a checkpointed run from the node that failed, with the settings it started with (keyword settings
    given here apply on top). An unknown run id raises InputError. Blocking twin of `aresume`."""
    return run_coroutine_sync(aresume(run_id, **kwargs))
