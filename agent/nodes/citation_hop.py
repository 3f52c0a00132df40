"""citation_hop: expand the top records through references and citing papers where the backend has them.

Filters (seed 000, agent.interfaces.HopFilter, applied by each source before it cuts its lists): drop records
older than citation_min_year; records older than citation_old_year need citation_old_min_citations; records of
unknown year are kept from a local corpus, and from live sources only with citation_keep_unknown_year. New records are
tagged via='citation_hop' and deduped against the pool. Where no source has a citation graph (SciFact abstracts carry no
references) the trace says so."""

from __future__ import annotations

from agent.nodes.parts import RunParts
from agent.search import SearchService, pool_additions
from agent.state import ResearchState
from agent.tracing.progress import emit


async def citation_hop(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool = state.get("pool") or {}
    hopped = set(state.get("hopped_ids") or [])
    seeds = [pool[p.record_id] for p in state.get("ranked") or [] if p.record_id in pool and p.record_id not in hopped][
        : settings.retrieval.citation_hop_top
    ]
    hop = state.get("hops_done", 0) + 1
    search = SearchService(backend, settings, usage=state.get("usage"), meter=parts.meter)
    if not search.citation_sources:
        note = (
            "citation_hop: no configured source has a citation graph "
            f"({', '.join(s.name for s in backend.sources)}); skipped"
        )
        emit({"node": "citation_hop", "hop": hop, "skipped": note})
        return {"hops_done": hop, "notes": [note]}
    found = await search.neighbours(seeds, round_=state.get("round", 0))
    update_pool = pool_additions(pool, found.records)
    new = [k for k in update_pool if k not in pool]
    emit(
        {
            "node": "citation_hop",
            "hop": hop,
            "seeds": [s.id for s in seeds],
            "found": len(found.records),
            "new": len(new),
        }
    )
    return {
        "pool": update_pool,
        "hops_done": hop,
        "hopped_ids": [s.id for s in seeds],
        "notes": [f"citation_hop {hop}: {len(found.records)} linked records, {len(new)} new"]
        + [f"source failed: {f}" for f in found.failures],
    }
