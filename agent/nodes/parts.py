"""The run's parts a node works with, resolved by the node wrapper (agent/nodes/runnable.py) rather than by each node.

A node gets its settings, its meter (the LLM calls and dollars the run has left) and the run's backend. The backend is
pinned for the whole run: the first node that asks for it resolves it (agent.backend.abackend_for: cached, keyed on
the settings, the caller's documents and the library's stamp), and every later node of the same run gets that one.
Resolving it again per node would re-hash the settings and documents and stat the library each time, and a
`sparkit library add` or a cache eviction between two nodes would swap the run's index half-way through.

A run is one `stream` / `astream` of the compiled graph (agent.graph.ResearchGraph puts fresh pins in its config),
so a resumed run resolves its backend once more, for the library as it is then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent.backend import Backend, abackend_for
from agent.config import Context
from agent.metering import Meter

RUN_PINS_KEY = "sparkit_run"
"""The `configurable` key under which a run's RunPins travel to its nodes (beside agent.budget.RUN_CLOCK_KEY)."""


class RunPins:
    """What stays fixed for one run: its backend, resolved by the first node that asks for it.

    Pins belong to the process that runs the graph: a copy is the same pins (so a copied config keeps them), and a
    pickled one (the server stores a run's config with its checkpoints) is fresh, empty pins."""

    def __init__(self) -> None:
        self._backend: Backend | None = None

    def __copy__(self) -> RunPins:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> RunPins:
        return self

    def __reduce__(self) -> tuple[type[RunPins], tuple[()]]:
        return (RunPins, ())

    async def backend(self, settings: Context, documents: list[dict[str, Any]] | None) -> Backend:
        if self._backend is None:
            self._backend = await abackend_for(settings, documents)
        return self._backend


def with_run_pins(config: RunnableConfig | None) -> RunnableConfig:
    """`config` with fresh RunPins in its `configurable`, unless the caller gave some."""
    configurable = dict((config or {}).get("configurable") or {})
    configurable.setdefault(RUN_PINS_KEY, RunPins())
    return {**(config or {}), "configurable": configurable}


def run_pins() -> RunPins:
    """This run's pins; a node run outside a graph (a unit test calling it) gets pins of its own."""
    try:
        from langgraph.config import get_config

        given = (get_config().get("configurable") or {}).get(RUN_PINS_KEY)
    except RuntimeError:  # outside a graph run
        given = None
    return given if isinstance(given, RunPins) else RunPins()


@dataclass(frozen=True)
class RunParts:
    """What one node works with: the run's settings, the node's meter, and the run's pinned backend."""

    settings: Context
    meter: Meter
    pins: RunPins
    documents: list[dict[str, Any]] | None = None

    async def backend(self) -> Backend:
        """The run's backend (built on first use: a run stopped before its plan never loads models for its report)."""
        return await self.pins.backend(self.settings, self.documents)
