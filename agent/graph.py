"""The research graph, wiring only.

    plan -> retrieve -(decision)-> citation_hop -> rerank
                     \\-----------------------------> rerank -(decision)-> hypothesize -> discriminate -> retrieve
                                                              \\-> court -(decision)-> discriminate (low margin /
                                                              disagreement)
                                                                              \\-> synthesize -> verify_claims
                                                                              -(decision)-> target_claims -> retrieve
                                                                                                                      \\->
                                                                                                                      report
                                                                                                                      ->
                                                                                                                      END
Every branch follows the Decision its source node recorded (agent/routing.py), so each route and its
numbers are in the state and the trace; each branch is wired to exactly its Literal of routes. `graph` has no
checkpointer (for `langgraph dev`); `compile_graph(checkpointer)` gives the CLI and Python API a resumable one;
agent/server.py serves it to langgraph dev.

A thread holds one question at a time: a new input on a thread that answered before is a new question, run from a
fresh state (the input keys it leaves out are cleared, `ResearchGraph`; plan clears the rest, agent/nodes/runnable.py);
the thread's checkpoints keep the earlier questions. A run resumed with no input (`sparkit resume`) continues its own.
"""

from __future__ import annotations

from typing import Any, cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.config import Context
from agent.nodes.citation_hop import citation_hop
from agent.nodes.court import court
from agent.nodes.discriminate import discriminate
from agent.nodes.hypothesize import hypothesize
from agent.nodes.plan import plan
from agent.nodes.report import report
from agent.nodes.runnable import node
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.synthesize import synthesize
from agent.nodes.target_claims import target_claims
from agent.nodes.verify_claims import verify_claims
from agent.routing import CourtRoute, RerankRoute, RetrieveRoute, VerifyRoute, follow_decision, routes
from agent.state import InputState, OutputState, ResearchState, whole_input


def build_graph(context_schema: type | None = Context) -> StateGraph:
    builder = StateGraph(ResearchState, context_schema=context_schema, input_schema=InputState, output_schema=OutputState)
    builder.add_node("plan", node(plan, starts_question=True))
    builder.add_node("retrieve", node(retrieve))
    builder.add_node("citation_hop", node(citation_hop))
    builder.add_node("rerank", node(rerank))
    builder.add_node("hypothesize", node(hypothesize))
    builder.add_node("discriminate", node(discriminate))
    builder.add_node("court", node(court))
    builder.add_node("synthesize", node(synthesize))
    builder.add_node("verify_claims", node(verify_claims))
    builder.add_node("target_claims", node(target_claims))
    builder.add_node("report", node(report))

    builder.add_edge(START, "plan")
    builder.add_edge("plan", "retrieve")
    builder.add_conditional_edges("retrieve", follow_decision, routes(RetrieveRoute))
    builder.add_edge("citation_hop", "rerank")
    builder.add_conditional_edges("rerank", follow_decision, routes(RerankRoute))
    builder.add_edge("hypothesize", "discriminate")
    builder.add_edge("discriminate", "retrieve")
    builder.add_conditional_edges("court", follow_decision, routes(CourtRoute))
    builder.add_edge("synthesize", "verify_claims")
    builder.add_conditional_edges("verify_claims", follow_decision, routes(VerifyRoute))
    builder.add_edge("target_claims", "retrieve")
    builder.add_edge("report", END)
    return builder


class ResearchGraph(CompiledStateGraph):
    """The compiled graph, taking each new input as a whole question (agent.state.whole_input). `invoke` and
    `ainvoke` go through `stream` and `astream`; so does the server's run of it."""

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return super().stream(whole_input(input), config, **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return super().astream(whole_input(input), config, **kwargs)


def research_graph(builder: StateGraph, checkpointer: Any = None) -> ResearchGraph:
    compiled = builder.compile(checkpointer=checkpointer, name="sparkit")
    compiled.__class__ = ResearchGraph  # same object layout: a subclass that only completes the input
    return cast(ResearchGraph, compiled)


def compile_graph(checkpointer: Any = None) -> ResearchGraph:
    return research_graph(build_graph(), checkpointer)


graph = compile_graph()

