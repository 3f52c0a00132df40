"""The node wrapper: each node is `parts in, typed update out`; the wrapper owns the run around it.

A node is a coroutine `(state, parts: RunParts) -> ResearchState` (a partial update). The wrapper, once per node:
- resolves the run's parts (agent/nodes/parts.py): the settings (a run started without a context gets the default
  Context), the backend pinned for the whole run, and the node's meter, whose usage it adds to the update;
- enforces the hard budget and reports progress (agent/nodes/guard.py): a `start` event, heartbeats while the node
  works, the wall-time cut, and skipping once a hard limit has stopped the run;
- for a branching node, applies the update to the state as LangGraph will (agent.state.apply_update) and appends the
  Decision of the node's decider (agent/routing.py), skipped or not: the edges follow it, so a skipped node's route
  towards `report` comes from the same decider as its every other route.

Each node is a `RunnableLambda` with both paths, through LangGraph's and LangChain's public APIs only: the async path
is the real one (one event loop for the whole run: `ainvoke`, `astream`, `langgraph dev`); LangGraph refuses a
coroutine node under `graph.invoke` ("No synchronous function provided"), so its sync twin runs the coroutine to
completion on a private loop (in a worker thread, with the caller's context variables, when the caller already runs
a loop).

The node that starts a question (`starts_question`: plan) first clears what an earlier question on the same thread
left in the state (agent.state.leftovers_reset), before the budget guard reads it: the earlier run's usage, start
time or budget stop must not count against the new question, nor its hypotheses, pool or ledger answer it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.runnables import RunnableLambda
from langgraph.runtime import Runtime, get_runtime

from agent.budget import node_meter
from agent.common.aio import run_coroutine_sync
from agent.config import Context
from agent.errors import ConfigurationError, ReportedConfigurationError
from agent.nodes.guard import guarded
from agent.nodes.parts import RunParts, RunPins, run_pins
from agent.records import Decision
from agent.state import ResearchState, apply_update, leftovers_reset, reset_then

NodeFunction = Callable[[ResearchState, RunParts], Awaitable[ResearchState]]
Decider = Callable[[Mapping[str, Any], Context], Decision[Any]]


@dataclass(frozen=True)
class Step:
    """A node and where it leads: `then`, the one node after it, or `decide`, the decider whose Decision a branching
    node's edge follows (agent/graph.py declares every step)."""

    work: NodeFunction
    then: str | None = None
    decide: Decider | None = None
    starts_question: bool = False

    def __post_init__(self) -> None:
        if (self.then is None) == (self.decide is None):
            raise ValueError(f"{self.name}: a step has either one next node or a decider")

    @property
    def name(self) -> str:
        return self.work.__name__


def run_settings() -> Context:
    """The current run's settings: its Runtime's context validated into a Context (defaults when none was given)."""
    runtime: Runtime[Context] = get_runtime(Context)
    context = runtime.context
    return context if isinstance(context, Context) else Context.model_validate(context or {})


async def run_step(step: Step, state: Mapping[str, Any], settings: Context, pins: RunPins) -> dict[str, Any]:
    """One step's whole update, as the graph applies it (module docstring)."""
    reset = leftovers_reset(state) if step.starts_question else {}
    view = cast(ResearchState, apply_update(state, reset) if reset else state)  # the state as this node sees it

    async def work() -> dict[str, Any]:
        with node_meter(view, settings) as meter:
            update = dict(await step.work(view, RunParts(settings, meter, pins, view.get("documents"))))
        return {**update, "usage": meter.usage}

    try:
        update = await guarded(step.name, view, settings, work)
    except ConfigurationError as exc:
        if isinstance(exc, ValueError):
            raise
        raise ReportedConfigurationError(str(exc)) from exc
    if step.decide is not None:
        update["decisions"] = [step.decide(apply_update(view, update), settings)]
    return reset_then(reset, update) if reset else update


def node(step: Step) -> RunnableLambda:
    """`step` as a graph node that works under `invoke` as well as `ainvoke` / `astream` (module docstring)."""

    async def arun(state: Any) -> dict[str, Any]:
        return await run_step(step, state, run_settings(), run_pins())

    def run(state: Any) -> dict[str, Any]:
        return run_coroutine_sync(arun(state))

    return RunnableLambda(run, afunc=arun, name=step.name)
