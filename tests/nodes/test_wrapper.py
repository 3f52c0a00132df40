"""The node wrapper owns the run: one backend per run, the loop's topology declared once, the phase named in state."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from pathlib import Path
from typing import Any, get_args

import pytest
from langgraph.graph import END, START

from agent.api import ask
from agent.backend import register_backend
from agent.config import Context
from agent.graph import FIRST, STEPS, graph, route_type
from agent.nodes.parts import RunPins
from agent.nodes.runnable import run_step
from agent.records import Hypothesis, Status
from agent.routing import ROUTE_NODES
from tests.fakes import ListSource, make_backend, unique_backend_name
from tests.test_routing import CLAIM, SUPPORTING

NODES = Path(__file__).resolve().parents[2] / "agent" / "nodes"


def test_a_run_keeps_one_backend_when_the_library_changes_between_its_nodes(monkeypatch):
    """`sparkit library add` (or a cache eviction) while a run is under way must not swap its index between nodes:
    here the library's stamp changes at every look, so every lookup of the backend would build another one."""
    from agent.library import searched

    stamps = itertools.count()
    monkeypatch.setattr(searched, "library_stamp", lambda settings: f"stamp-{next(stamps)}")
    built: list[Any] = []
    scripted = make_backend([ListSource(SUPPORTING)])
    name = unique_backend_name()
    register_backend(name, lambda settings, documents=None: built.append(scripted(settings, documents)) or built[-1])
    answer = ask(CLAIM, mode="verify", backend=name)
    assert answer.status == Status.ANSWERED and len(answer.decisions) >= 4
    assert len(built) == 1, f"one run built {len(built)} backends"


def test_each_run_resolves_its_backend_again():
    """Pinned for a run, not for ever: the next run sees the library as it is then."""
    built: list[Any] = []
    scripted = make_backend([ListSource(SUPPORTING)])
    name = unique_backend_name()
    register_backend(name, lambda settings, documents=None: built.append(scripted(settings, documents)) or built[-1])
    pins = [RunPins(), RunPins()]
    backends = [asyncio.run(p.backend(Context(backend=name), None)) for p in pins for _ in range(2)]
    assert backends[0] is backends[1] and len(built) == 1  # the cache serves the second run here: nothing changed


def test_the_compiled_edges_are_the_declared_steps():
    declared = {(START, FIRST)}
    for name, step in STEPS.items():
        if step.decide is not None:  # a route ends at its node, or past the review point (ROUTE_NODES)
            declared |= {(name, ROUTE_NODES.get(t, t)) for t in get_args(route_type(step.decide))}
        else:
            declared.add((name, step.then))
    assert {(e.source, e.target) for e in graph.get_graph().edges} == {(s, END if t == END else t) for s, t in declared}


@pytest.mark.parametrize("start", sorted(STEPS))
def test_a_stopped_run_reaches_report_through_the_same_deciders(start):
    """The skip path has no table of its own: from any node, the declared steps lead a stopped run to `report`."""
    state: dict[str, Any] = {
        "budget_stop": "wall_time: max_wall_time_s=1 reached before retrieve",
        "round": 2,
        "phase": "discrimination",
        "hypotheses": [Hypothesis(id="H1", text="x")],
        "margin": 0.0,
    }
    seen, at = [], start
    while at != "report" and at not in seen:
        seen.append(at)
        step = STEPS[at]
        at = step.decide(state, Context()).next if step.decide is not None else str(step.then)
    assert at == "report", f"{start}: {' -> '.join(seen)} loops"


def test_a_skipped_node_records_its_deciders_route():
    async def court(state, parts):
        raise AssertionError("a node ran after the budget stopped the run")

    update = asyncio.run(
        run_step(
            dataclasses.replace(STEPS["court"], work=court),
            {"budget_stop": "wall_time: x", "round": 3},
            Context(),
            RunPins(),
        )
    )
    [decision] = update["decisions"]
    assert (decision.at, decision.next, decision.reason, decision.round) == (
        "court",
        "synthesize",
        "budget_exhausted: wall_time: x",
        3,
    )
    assert decision.margin is None and "usage" not in update  # a skipped node spent nothing


def test_no_node_resolves_its_own_backend_meter_or_route():
    offenders = {
        p.name: word
        for p in NODES.glob("*.py")
        if p.name not in ("parts.py", "runnable.py")
        for word in ("abackend_for", "backend_for(", "node_meter", "apply_update", "decide_after")
        if word in p.read_text()
    }
    assert offenders == {}


def test_the_first_discrimination_targets_every_hypothesis_and_later_ones_the_closest():
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(SUPPORTING)]))
    hypotheses = [
        Hypothesis(id=f"H{i}", text=f"Metformin changes insulin marker {i}", score=float(i)) for i in range(5)
    ]
    state = {"question": "What does metformin change?", "hypotheses": hypotheses}

    def targeted(phase: str) -> set[str]:
        update = asyncio.run(
            run_step(STEPS["discriminate"], {**state, "phase": phase}, Context(backend=name), RunPins())
        )
        assert update["phase"] == "discrimination"
        return {q.hypothesis_id for q in update["queries"] if q.hypothesis_id}

    assert targeted("round_1") == {f"H{i}" for i in range(5)}
    assert targeted("discrimination") == targeted("escalation") == {"H4", "H3", "H2"}


def test_a_run_names_its_phases_in_order():
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(SUPPORTING)]))
    values = [
        chunk
        for chunk in graph.stream(
            {"question": CLAIM, "mode": "verify"},
            {"recursion_limit": 100},
            context=Context(backend=name, max_claims=0),
            stream_mode="values",
        )
    ]
    assert values[-1]["answer"].status == Status.ANSWERED
    phases = [v.get("phase") for v in values if v.get("phase")]
    assert phases[0] == "round_1" and phases[-1] == "discrimination" and set(phases) == {"round_1", "discrimination"}


def test_pins_survive_a_copied_config_and_pickle_empty():
    """The server pickles a run's config with its checkpoints: the pinned backend (locks, models) must not go along."""
    import copy
    import pickle
    import threading

    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(SUPPORTING)]))
    pins = RunPins()
    backend = asyncio.run(pins.backend(Context(backend=name), None))
    pins._backend = dataclasses.replace(
        backend, speller=threading.Lock()
    )  # a lock, as a real backend holds: unpicklable
    assert copy.deepcopy({"configurable": {"pins": pins}})["configurable"]["pins"] is pins
    assert pickle.loads(pickle.dumps(pins))._backend is None
