"""retrieve: send the pending queries to the sources through the search service and add what they found to the pool.

Academic sources first; the web source only for queries every academic source missed, capped per run
(agent.search). A source failing beyond its retries is reported in usage and notes; the others carry on. When every
source failed to connect and nothing has been retrieved (no network), the run goes to `report`, which says so.
"""

from __future__ import annotations

from agent.literature import Query
from agent.nodes.parts import RunParts
from agent.search import SearchService, pool_additions
from agent.state import ResearchState
from agent.tracing.progress import emit


async def retrieve(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pending: list[Query] = state.get("queries") or []
    round_ = state.get("round", 0) + 1
    search = SearchService(backend, settings, usage=state.get("usage"), meter=parts.meter)
    found = await search.queries(pending, limit=settings.retrieval.results_per_query, round_=round_)
    notes = (
        [f"retrieve: source budget allows {len(found.sent)} of {len(pending)} queries"]
        if len(found.sent) < len(pending)
        else []
    )
    update_pool = pool_additions(state.get("pool") or {}, found.records)
    notes += [f"source failed: {f}" for f in dict.fromkeys(found.failures)]
    # every source failed to connect and nothing was ever retrieved: no network, so the run ends here and says so
    outage = found.no_network(backend.sources) if not state.get("pool") else None
    emit(
        {
            "node": "retrieve",
            "round": round_,
            "queries": len(found.sent),
            "sources": [s.name for s in backend.sources],
            "records": len(found.records),
            "new": len(update_pool),
            "failures": len(found.failures),
        }
    )
    update: ResearchState = {
        "pool": update_pool,
        "queries": [],
        "sent_queries": found.sent,
        "round": round_,
        "notes": notes,
    }
    if outage:
        update["outage"] = outage
    return update
