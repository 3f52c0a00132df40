"""target_claims: contested claims get literal and negation queries for another retrieval + court round."""

from __future__ import annotations

from agent.nodes.parts import RunParts
from agent.records import ClaimVerdict
from agent.search import claim_queries
from agent.state import ResearchState
from agent.tracing.progress import emit


async def target_claims(state: ResearchState, parts: RunParts) -> ResearchState:
    contested = [c for c in state.get("claims") or [] if c.verdict == ClaimVerdict.CONTESTED]
    queries = [q for claim in contested for q in claim_queries(claim.text)]
    emit({"node": "target_claims", "contested": len(contested), "queries": [q.text for q in queries]})
    return {"queries": queries, "escalations": state.get("escalations", 0) + 1, "phase": "escalation"}
