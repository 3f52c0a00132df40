"""citation_hop: expand the top records through references and citing papers where the backend has them.

Filters (seed 000, agent.interfaces.HopFilter, applied by each source before it cuts its lists): drop records
older than citation_min_year; records older than citation_old_year need citation_old_min_citations; records of
unknown year are kept from a local corpus, and from live sources only with citation_keep_unknown_year. New records are tagged via='citation_hop' and
deduped against the pool.
Where no source has a citation graph (SciFact abstracts carry no references) the trace says so.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent.errors import SourceError
from agent.nodes.common import backend_of, emit, merge_into_pool, node_meter, settings_of
from agent.records import Provenance, Record
from agent.interfaces import HopFilter


async def citation_hop(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    settings = settings_of(runtime)
    backend = await backend_of(runtime, state)
    pool = state.get("pool") or {}
    hopped = set(state.get("hopped_ids") or [])
    seeds = [pool[p.record_id] for p in state.get("ranked") or [] if p.record_id in pool and p.record_id not in hopped][: settings.retrieval.citation_hop_top]
    graph_sources = [s for s in backend.sources if s.supports_citations]
    hop = state.get("hops_done", 0) + 1
    if not graph_sources:
        note = f"citation_hop: no configured source has a citation graph ({', '.join(s.name for s in backend.sources)}); skipped"
        emit({"node": "citation_hop", "hop": hop, "skipped": note})
        return {"hops_done": hop, "notes": [note]}
    retrieval = settings.retrieval
    gate = HopFilter(min_year=retrieval.citation_min_year, old_year=retrieval.citation_old_year,
                     old_min_citations=retrieval.citation_old_min_citations, keep_unknown_year=retrieval.citation_keep_unknown_year)
    with node_meter(state, settings) as meter:
        calls = [(source, seed) for seed in seeds for source in graph_sources]

        async def expand(source, seed):
            try:
                found = await source.neighbours(seed, limit=settings.retrieval.citation_hop_per_record * 4, gate=gate)
                meter.source_call(source.name)
                return found, None
            except SourceError as exc:
                meter.source_call(source.name, ok=False)
                return [], str(exc)

        results = await asyncio.gather(*(expand(s, r) for s, r in calls))
        found: list[Record] = []
        failures = []
        for (source, seed), (records, error) in zip(calls, results):
            if error:
                failures.append(error)
            kept = records[: settings.retrieval.citation_hop_per_record]
            tag = Provenance(query=f"citations of {seed.id}", round=state.get("round", 0), via="citation_hop", source=source.name)
            found += [r.model_copy(update={"provenance": [*r.provenance, tag]}) for r in kept]
        update_pool = merge_into_pool(pool, found)
    new = [k for k in update_pool if k not in pool]
    emit({"node": "citation_hop", "hop": hop, "seeds": [s.id for s in seeds], "found": len(found), "new": len(new)})
    return {
        "pool": update_pool,
        "hops_done": hop,
        "hopped_ids": [s.id for s in seeds],
        "usage": meter.usage,
        "notes": [f"citation_hop {hop}: {len(found)} linked records, {len(new)} new"] + [f"source failed: {f}" for f in failures],
    }
