"""retrieve: fan the pending queries out to the sources in parallel, normalise, dedupe and tag provenance.

Academic sources first; the web source only for queries every academic source missed, capped per run
(agent.tools.live.search_academic_then_web). A source failing beyond its retries is reported in usage
and notes; the others carry on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent.backend import Backend
from agent.budget import source_calls_left
from agent.config import Context
from agent.metering import Meter
from agent.nodes.common import (
    backend_of,
    emit,
    merge_into_pool,
    node_meter,
    settings_of,
    state_after,
)
from agent.records import Provenance, Query, Record, Usage
from agent.routing import decide_after_retrieve
from agent.tools.live import SearchOutcome, WebBudget, search_academic_then_web


def _tagged(outcome: SearchOutcome, query: Query, round_: int) -> list[Record]:
    via = "claim_check" if query.intent.startswith("claim") else "search"
    return [
        r.model_copy(update={"provenance": [*r.provenance, Provenance(query=query.text, round=round_, hypothesis_id=query.hypothesis_id, via=via, source=r.source)]})
        for r in outcome.records
    ]


async def search_queries(
    backend: Backend, queries: list[Query], *, limit: int, round_: int, settings: Context, usage: Usage | None, meter: Meter,
    use_web: bool = True,
) -> tuple[list[Record], list[str], list[Query]]:
    """Send as many queries as the source budget still allows to every source (web fallback when asked).

    Returns the tagged records, the failure messages and the queries actually sent; every call is metered.
    """
    left = source_calls_left(usage, settings) - meter.usage.source_calls
    sendable = queries[: max(0, left) // max(1, len(backend.sources))]
    web = backend.web if use_web else None
    web_name = web.name if web is not None else ""
    web_used = (usage.calls_by_source.get(web_name, 0) if usage else 0) + meter.usage.calls_by_source.get(web_name, 0) if web_name else 0
    web_budget = WebBudget(cap=settings.budget.brave_cap, used=web_used)
    outcomes = await asyncio.gather(*(
        search_academic_then_web(backend.sources, web, q.text, limit=limit, web_budget=web_budget) for q in sendable
    ))
    found: list[Record] = []
    failures: list[str] = []
    for query, outcome in zip(sendable, outcomes, strict=True):
        failed = {f.source for f in outcome.failures}
        for source in backend.sources:
            meter.source_call(source.name, ok=source.name not in failed)
        if outcome.web_used:
            meter.source_call(web_name, ok=web_name not in failed)
        failures += [f"{f.source}: {f.message}" for f in outcome.failures]
        found += _tagged(outcome, query, round_)
    return found, failures, sendable


async def retrieve(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    settings = settings_of(runtime)
    backend = await backend_of(runtime, state)
    pending: list[Query] = state.get("queries") or []
    round_ = state.get("round", 0) + 1
    usage = state.get("usage")
    with node_meter(state, settings) as meter:
        found, failures, sendable = await search_queries(
            backend, pending, limit=settings.retrieval.results_per_query, round_=round_, settings=settings, usage=usage, meter=meter
        )
        notes = [f"retrieve: source budget allows {len(sendable)} of {len(pending)} queries"] if len(sendable) < len(pending) else []
        update_pool = merge_into_pool(state.get("pool") or {}, found)
    notes += [f"source failed: {f}" for f in dict.fromkeys(failures)]
    emit({"node": "retrieve", "round": round_, "queries": len(sendable), "sources": [s.name for s in backend.sources],
          "records": len(found), "new": len(update_pool), "failures": len(failures)})
    update = {"pool": update_pool, "queries": [], "sent_queries": sendable, "round": round_, "usage": meter.usage, "notes": notes}
    return {**update, "decisions": [decide_after_retrieve(state_after(state, update), settings)]}
