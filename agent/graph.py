"""The research graph, wiring only.

    plan -> retrieve -(decision)-> citation_hop -> rerank
                     \\-----------------------------> rerank -(decision)-> hypothesize -> discriminate -> retrieve
                                                              \\-> court -(decision)-> discriminate (low margin /
                                                              disagreement) -(decision)-> retrieve, or synthesize
                                                              when no new query can bring a record
                                                                              \\-> synthesize -> verify_claims
                                                                              -(decision)-> target_claims -> retrieve
                                                                                                                      \\->
                                                                                                                      report
                                                                                                                      ->
                                                                                                                      END
`STEPS` declares it: each node with the node after it, or the decider (agent/routing.py) whose Decision its branch
follows, so each route and its numbers are in the state and the trace; each branch is wired to exactly its decider's
Literal of routes. A route to `synthesize` passes through `review` (agent.routing.ROUTE_NODES): a no-op unless the
run asked for a scientist's review (agent/nodes/review.py), it stops the run there with the court's final ledger.
`graph` has no checkpointer (for `langgraph dev`); `compile_graph(checkpointer)` gives the CLI and Python API a
resumable one; agent/api/langgraph_server.py serves it to langgraph dev.

A thread holds one question at a time: a new input on a thread that answered before is a new question, run from a
fresh state (the input keys it leaves out are cleared, `ResearchGraph`; plan clears the rest, agent/nodes/runnable.py);
the thread's checkpoints keep the earlier questions. A run resumed with no input (`sparkit resume`) continues its own.
"""

from __future__ import annotations

from typing import Any, cast, get_type_hints

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.config import Context
from agent.nodes.citation_hop import citation_hop
from agent.nodes.court import court
from agent.nodes.discriminate import discriminate
from agent.nodes.hypothesize import hypothesize
from agent.nodes.parts import with_run_pins
from agent.nodes.plan import plan
from agent.nodes.report import report
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.review import review
from agent.nodes.runnable import Decider, Step, node
from agent.nodes.synthesize import synthesize
from agent.nodes.target_claims import target_claims
from agent.nodes.verify_claims import verify_claims
from agent.records import Decision
from agent.routing import (
    decide_after_court,
    decide_after_discriminate,
    decide_after_rerank,
    decide_after_retrieve,
    decide_after_verify,
    follow_decision,
    routes,
)
from agent.state import InputState, OutputState, ResearchState, whole_input

STEPS: dict[str, Step] = {
    "plan": Step(plan, then="retrieve", starts_question=True),
    "retrieve": Step(retrieve, decide=decide_after_retrieve),
    "citation_hop": Step(citation_hop, then="rerank"),
    "rerank": Step(rerank, decide=decide_after_rerank),
    "hypothesize": Step(hypothesize, then="discriminate"),
    "discriminate": Step(discriminate, decide=decide_after_discriminate),
    "court": Step(court, decide=decide_after_court),
    "review": Step(review, then="synthesize"),
    "synthesize": Step(synthesize, then="verify_claims"),
    "verify_claims": Step(verify_claims, decide=decide_after_verify),
    "target_claims": Step(target_claims, then="retrieve"),
    "report": Step(report, then=END),
}
"""The loop's topology, written once: each node, and the node after it or the decider its edge follows (the same
decider routes a run the hard budget stopped towards `report`)."""
FIRST = "plan"


def route_type(decide: Decider) -> Any:
    """The Literal of routes a decider can take: its Decision subclass's `next`."""
    decision: type[Decision[Any]] = get_type_hints(decide)["return"]
    return decision.model_fields["next"].annotation


def build_graph(context_schema: type | None = Context) -> StateGraph:
    builder = StateGraph(
        ResearchState, context_schema=context_schema, input_schema=InputState, output_schema=OutputState
    )
    for name, step in STEPS.items():
        if step.name != name:
            raise ValueError(f"step {name!r} runs {step.name}")
        builder.add_node(name, node(step))
    builder.add_edge(START, FIRST)
    for name, step in STEPS.items():
        if step.decide is not None:
            builder.add_conditional_edges(name, follow_decision, routes(route_type(step.decide)))
        else:
            builder.add_edge(name, step.then or END)
    return builder


class ResearchGraph(CompiledStateGraph):
    """The compiled graph, taking each new input as a whole question (agent.state.whole_input), each run with pins of
    its own (agent/nodes/parts.py: one backend for the whole run). `invoke` and `ainvoke` go through `stream` and
    `astream`; so does the server's run of it."""

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return super().stream(whole_input(input), with_run_pins(config), **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return super().astream(whole_input(input), with_run_pins(config), **kwargs)


def research_graph(builder: StateGraph, checkpointer: Any = None) -> ResearchGraph:
    compiled = builder.compile(checkpointer=checkpointer, name="sparkit")
    compiled.__class__ = ResearchGraph  # same object layout: a subclass that only completes the input
    return cast(ResearchGraph, compiled)


def compile_graph(checkpointer: Any = None) -> ResearchGraph:
    return research_graph(build_graph(), checkpointer)


graph = compile_graph()
