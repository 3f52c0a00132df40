"""rerank: score the pool against the question (and each hypothesis once they exist); keep the top k.

With hypotheses, a record's score blends its relevance to the question with its best relevance to any
hypothesis, and every hypothesis keeps its own top records so no candidate is starved of evidence.
"""

from __future__ import annotations

import numpy as np

from agent.literature import Passage, Record
from agent.nodes.parts import RunParts
from agent.scoring.novelty import novelty_rerank
from agent.state import ResearchState
from agent.tracing.progress import emit


def _normalise(scores: list[float]) -> np.ndarray:
    array = np.asarray(scores, dtype=np.float64)
    if array.size == 0:
        return array
    low, high = float(array.min()), float(array.max())
    return (array - low) / (high - low) if high > low else np.ones_like(array) * 0.5


def _focus(state: ResearchState) -> str:
    plan = state.get("plan")
    return (plan.claim if plan and plan.claim else None) or state["question"]


async def rerank(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool: dict[str, Record] = state.get("pool") or {}
    records = list(pool.values())
    retrieval = settings.retrieval
    if len(records) > retrieval.rerank_prefilter:  # cheap first pass: how many queries found it
        records.sort(key=lambda r: -len(r.provenance))
        records = records[: retrieval.rerank_prefilter]
    texts = [r.text for r in records]
    combined = _normalise(await backend.reranker.rerank(_focus(state), texts)) if records else np.zeros(0)
    hypotheses = state.get("hypotheses") or []
    guaranteed: set[int] = set()
    if hypotheses and records:
        per_h = np.stack([_normalise(await backend.reranker.rerank(h.statement, texts)) for h in hypotheses])
        combined = (1 - retrieval.rerank_hypothesis_share) * combined + retrieval.rerank_hypothesis_share * per_h.max(
            axis=0
        )
        for row in per_h:
            guaranteed.update(int(i) for i in np.argsort(-row)[: retrieval.rerank_per_hypothesis])
    if settings.ablations.enable_novelty_demotion and len(records) > 1:  # near-duplicate documents yield their slot
        vectors = await backend.embedder.embed(texts, kind="document")
        combined = np.asarray(
            novelty_rerank(combined.tolist(), vectors, retrieval.novelty_cosine, retrieval.novelty_penalty).scores
        )
    order = [int(i) for i in np.argsort(-combined)]
    keep = [i for i in order if i in guaranteed]
    keep += [i for i in order if i not in guaranteed][: max(0, settings.retrieval.rerank_top_k - len(keep))]
    keep.sort(key=lambda i: -combined[i])
    ranked = [
        Passage(record_id=records[i].id, text=records[i].title or records[i].abstract[:200], score=float(combined[i]))
        for i in keep
    ]
    emit(
        {
            "node": "rerank",
            "round": state.get("round", 0),
            "pool": len(pool),
            "kept": len(ranked),
            "reranker": backend.reranker.name,
        }
    )
    return {"ranked": ranked}
