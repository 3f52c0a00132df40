"""retrieve: fan the pending queries out to the sources in parallel, normalise, dedupe and tag provenance.

Academic sources first; the web source only for queries every academic source missed, capped per run
(agent.tools.live.search_academic_then_web). A source failing beyond its retries is reported in usage
and notes; the others carry on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent.budget import source_calls_left
from agent.nodes.common import backend_of, emit, merge_into_pool, node_meter, settings_of, state_after
from agent.records import Provenance, Query, Record
from agent.routing import decide_after_retrieve
from agent.tools.live import SearchOutcome, WebBudget, search_academic_then_web


def _tagged(outcome: SearchOutcome, query: Query, round_: int) -> list[Record]:
    via = "claim_check" if query.intent.startswith("claim") else "search"
    return [
        r.model_copy(update={"provenance": [*r.provenance, Provenance(query=query.text, round=round_, hypothesis_id=query.hypothesis_id, via=via, source=r.source)]})
        for r in outcome.records
    ]


async def retrieve(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    settings = settings_of(runtime)
    backend = await backend_of(runtime, state)
    pending: list[Query] = state.get("queries") or []
    round_ = state.get("round", 0) + 1
    usage = state.get("usage")
    with node_meter(state, settings) as meter:
        sendable = pending[: source_calls_left(usage, settings) // max(1, len(backend.sources))]
        notes = [f"retrieve: source budget allows {len(sendable)} of {len(pending)} queries"] if len(sendable) < len(pending) else []
        web_name = backend.web.name if backend.web is not None else ""
        web_budget = WebBudget(cap=settings.brave_cap, used=usage.calls_by_source.get(web_name, 0) if usage and web_name else 0)
        outcomes = await asyncio.gather(*(
            search_academic_then_web(backend, q.text, limit=settings.results_per_query, web_budget=web_budget) for q in sendable
        ))
        found: list[Record] = []
        failures: list[str] = []
        for query, outcome in zip(sendable, outcomes):
            failed = {f.source for f in outcome.failures}
            for source in backend.sources:
                meter.source_call(source.name, ok=source.name not in failed)
            if outcome.web_used:
                meter.source_call(web_name, ok=web_name not in failed)
            failures += [f"{f.source}: {f.message}" for f in outcome.failures]
            found += _tagged(outcome, query, round_)
        update_pool = merge_into_pool(state.get("pool") or {}, found)
    notes += [f"source failed: {f}" for f in dict.fromkeys(failures)]
    emit({"node": "retrieve", "round": round_, "queries": len(sendable), "sources": [s.name for s in backend.sources],
          "records": len(found), "new": len(update_pool), "failures": len(failures)})
    update = {"pool": update_pool, "queries": [], "sent_queries": sendable, "round": round_, "usage": meter.usage, "notes": notes}
    return {**update, "decisions": [decide_after_retrieve(state_after(state, update), settings)]}
