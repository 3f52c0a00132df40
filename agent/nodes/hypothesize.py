"""hypothesize: after round 1, distinct candidate answers grounded in the top evidence.

With a second opinion (a second provider, or the extractive reasoner beside one chat model) the agreement
between the two providers' hypotheses is measured on meaning (agent/scoring/agreement.py) and the second
provider's novel hypotheses join the candidates; the court's edge loops on low agreement (seed 003).
"""

from __future__ import annotations

from agent.nodes.parts import RunParts
from agent.scoring.agreement import novel, own, set_agreement
from agent.scoring.chunking import sentence_passages
from agent.state import ResearchState
from agent.tracing.progress import emit


async def hypothesize(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool = state.get("pool") or {}
    ranked = state.get("ranked") or []
    top = [pool[p.record_id] for p in ranked[: settings.court.hypothesis_evidence_records] if p.record_id in pool]
    evidence = sentence_passages(top, {p.record_id: p.score for p in ranked})
    n = settings.court.n_hypotheses if settings.ablations.enable_hypotheses else 1
    hypotheses = await backend.reasoner.hypothesize(state["question"], state["plan"], evidence, n)
    agreement = None
    if backend.second_opinion is not None and hypotheses:
        others = await backend.second_opinion.hypothesize(state["question"], state["plan"], evidence, n)
        agreement = await set_agreement(
            [h.statement for h in own(hypotheses)], [h.statement for h in own(others)], backend.embedder
        )
        extra = await novel([h for h in others if h.origin == "llm"], hypotheses, backend.embedder)
        hypotheses = [
            *hypotheses,
            *(
                h.model_copy(update={"id": f"H{len(hypotheses) + i + 1}"})
                for i, h in enumerate(extra[: max(1, n // 2)])
            ),
        ]
    emit({"node": "hypothesize", "hypotheses": [h.text for h in hypotheses], "agreement": agreement})
    notes = [] if hypotheses else ["hypothesize: no evidence to ground a hypothesis"]
    return {"hypotheses": hypotheses, "agreement": agreement, "notes": notes}
