"""The graph's plumbing: node views of the state follow the state's own reducers, routes are typed Literals wired
to exactly their nodes, and every node runs under invoke as well as ainvoke through public LangGraph APIs only."""

from __future__ import annotations

import asyncio
import dataclasses
import operator
from pathlib import Path
from typing import Annotated, get_args

import pytest
from langgraph.channels.binop import BinaryOperatorAggregate

from agent.api import ask
from agent.api.checkpoint import serializer
from agent.backend import register_backend
from agent.graph import build_graph, graph
from agent.literature import Query
from agent.records import Usage
from agent.routing import (
    ROUTE_NODES,
    AfterCourt,
    AfterRerank,
    AfterRetrieve,
    AfterVerify,
    CourtRoute,
    RerankRoute,
    RetrieveRoute,
    VerifyRoute,
)
from agent.state import REDUCERS, ResearchState, apply_update, reducers
from tests.fakes import ListSource, make_backend, unique_backend_name
from tests.test_routing import CLAIM, SUPPORTING, run

AGENT = Path(__file__).resolve().parents[1] / "agent"


def test_the_reducers_are_the_ones_langgraph_compiles():
    channels = build_graph().channels
    assert set(REDUCERS) == {k for k, c in channels.items() if isinstance(c, BinaryOperatorAggregate)}
    assert set(REDUCERS) >= {"pool", "usage", "decisions", "notes", "sent_queries", "hopped_ids"}


def test_a_reducer_added_to_the_schema_is_honoured_without_a_hand_kept_list():
    class Extended(ResearchState, total=False):
        seen: Annotated[list[str], operator.add]

    assert "seen" in reducers(Extended) and "seen" not in REDUCERS


def test_apply_update_reduces_what_has_a_reducer_and_replaces_the_rest():
    state = {"notes": ["a"], "usage": Usage(source_calls=2), "round": 1, "queries": [Query(text="q1")]}
    view = apply_update(
        state, {"notes": ["b"], "usage": Usage(source_calls=3), "round": 2, "queries": [], "hopped_ids": ["x"]}
    )
    assert view["notes"] == ["a", "b"] and view["usage"].source_calls == 5 and view["hopped_ids"] == ["x"]
    assert view["round"] == 2 and view["queries"] == []
    assert state["notes"] == ["a"]  # the state itself is untouched


def test_a_note_made_again_in_a_later_round_is_kept_once():
    # seen: the court's aspect note printed three times after three court rounds
    note = "court: 1 record(s) read as neutral: they do not name both the subject and the object ... : 2058909"
    view = apply_update({"notes": ["plan: offline"]}, {"notes": [note]})
    view = apply_update(view, {"notes": [note, "citation_hop 1: 0 linked records, 0 new"]})
    assert view["notes"] == ["plan: offline", note, "citation_hop 1: 0 linked records, 0 new"]
    assert build_graph().channels["notes"].operator(view["notes"], [note]) == view["notes"]  # what LangGraph applies


@pytest.mark.parametrize(
    ("node", "route", "decision"),
    [
        ("retrieve", RetrieveRoute, AfterRetrieve),
        ("rerank", RerankRoute, AfterRerank),
        ("court", CourtRoute, AfterCourt),
        ("verify_claims", VerifyRoute, AfterVerify),
    ],
)
def test_each_edge_is_wired_to_exactly_its_routes(node, route, decision):
    targets = {e.target for e in graph.get_graph().edges if e.source == node and e.conditional}
    assert targets == {ROUTE_NODES.get(r, r) for r in get_args(route)}  # the answer is written past the review point
    wrong = next(n for n in ("report", "court", "plan") if n not in targets)
    with pytest.raises(ValueError):
        decision(at=node, next=wrong, reason="a route this edge does not have")


def test_typed_decisions_survive_the_checkpoint():
    serde = serializer()
    decision = AfterCourt(at="court", next="discriminate", reason="low margin", margin=0.01)
    restored = serde.loads_typed(serde.dumps_typed([decision]))
    assert restored == [decision] and type(restored[0]) is AfterCourt


def test_nodes_run_under_invoke_inside_a_running_event_loop():
    async def caller():  # e.g. a notebook or a server calling the sync API
        return run(CLAIM, make_backend([ListSource(SUPPORTING)]), mode="verify", max_claims=0)

    answer = asyncio.run(caller())
    assert answer.verdict == "SUPPORT" and [d.at for d in answer.decisions][:2] == ["retrieve", "rerank"]


def test_the_runtime_uses_no_private_langgraph_module():
    offenders = [
        str(p)
        for p in AGENT.rglob("*.py")
        if "langgraph._internal" in p.read_text() or "langgraph.pregel._" in p.read_text()
    ]
    assert offenders == []


def test_an_api_run_releases_what_its_backend_holds_open():
    """The backend owns its tools (live: HTTP clients, the response cache); an API run closes them when it ends."""

    class Tools:
        closed = 0

        async def aclose(self) -> None:
            self.closed += 1

    tools, scripted = Tools(), make_backend([ListSource(SUPPORTING)])
    name = unique_backend_name()
    register_backend(
        name, lambda settings, documents=None: dataclasses.replace(scripted(settings, documents), tools=tools)
    )
    answer = ask(CLAIM, backend=name, mode="verify", max_claims=0)
    assert answer.verdict == "SUPPORT" and tools.closed == 1
