"""discriminate: queries that separate the closest hypotheses (confirm / falsify / contrastive pairs), capped."""

from __future__ import annotations

from agent.nodes.parts import RunParts
from agent.state import ResearchState
from agent.tracing.progress import emit


async def discriminate(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    hypotheses = state.get("hypotheses") or []
    if state.get("phase", "round_1") != "round_1":  # a later round: only the closest contenders still matter
        hypotheses = sorted(hypotheses, key=lambda h: -h.score)[: settings.court.discrimination_closest]
    sent = {" ".join(q.text.lower().split()) for q in state.get("sent_queries") or []}
    queries = []
    if settings.ablations.enable_discrimination and hypotheses:
        proposed = await backend.reasoner.discriminating_queries(
            state["question"], hypotheses, settings.court.queries_per_round * 2
        )
        queries = [q for q in proposed if " ".join(q.text.lower().split()) not in sent][
            : settings.court.queries_per_round
        ]
    emit({"node": "discriminate", "round": state.get("round", 0), "queries": [q.text for q in queries]})
    update: ResearchState = {"queries": queries, "discrimination_rounds": state.get("discrimination_rounds", 0) + 1}
    if hypotheses:  # the hypotheses are being separated: the loop's discrimination phase (round 1 runs again without)
        update["phase"] = "discrimination"
    return update
