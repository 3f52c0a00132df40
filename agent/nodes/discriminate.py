"""discriminate: queries that separate the closest hypotheses (confirm / falsify / contrastive pairs), capped."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.backend import abackend_for
from agent.budget import node_meter
from agent.config import Context
from agent.state import ResearchState
from agent.tracing.progress import emit

async def discriminate(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    settings = runtime.context
    backend = await abackend_for(settings, state.get("documents"))
    hypotheses = state.get("hypotheses") or []
    if state.get("ledger") is not None:  # a later round: only the closest contenders still matter
        hypotheses = sorted(hypotheses, key=lambda h: -h.score)[: settings.court.discrimination_closest]
    sent = {" ".join(q.text.lower().split()) for q in state.get("sent_queries") or []}
    queries = []
    with node_meter(state, settings) as meter:
        if settings.ablations.enable_discrimination and hypotheses:
            proposed = await backend.reasoner.discriminating_queries(state["question"], hypotheses, settings.court.queries_per_round * 2)
            queries = [q for q in proposed if " ".join(q.text.lower().split()) not in sent][: settings.court.queries_per_round]
    emit({"node": "discriminate", "round": state.get("round", 0), "queries": [q.text for q in queries]})
    return {"queries": queries, "discrimination_rounds": state.get("discrimination_rounds", 0) + 1, "usage": meter.usage}
