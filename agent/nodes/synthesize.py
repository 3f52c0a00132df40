"""synthesize: the cited answer from the court's ledger; every citation is checked against the pool in code.

A citation to a record this run did not retrieve is removed (and noted); a sentence left citing nothing
is dropped, so no statement reaches the user without evidence behind it; a sentence its own citation
contradicts is dropped too, and the share its citations support is the answer's faithfulness.
"""

from __future__ import annotations

from typing import Any

from agent.config import Context
from agent.interfaces import Draft
from agent.nodes.parts import RunParts
from agent.scoring.faithfulness import check_faithfulness
from agent.state import ResearchState
from agent.tracing.progress import emit


def check_citations(draft: Draft, retrieved: set[str]) -> tuple[Draft, list[str]]:
    """Keep only citations of retrieved records; drop sentences left uncited."""
    notes, kept = [], []
    for sentence in draft.sentences:
        valid = [c for c in dict.fromkeys(sentence.citations) if c in retrieved]
        invalid = [c for c in sentence.citations if c not in retrieved]
        if invalid:
            notes.append(f"synthesize: removed citations of unretrieved records {invalid}")
        if valid:
            kept.append(sentence.model_copy(update={"citations": valid}))
        else:
            notes.append(f"synthesize: dropped an uncited sentence: {sentence.text[:80]!r}")
    answer_citations = [c for c in dict.fromkeys(draft.answer_citations) if c in retrieved]
    return draft.model_copy(update={"sentences": kept, "answer_citations": answer_citations}), notes


async def _checked(draft: Draft, pool: dict, backend: Any, settings: Context) -> tuple[Draft, list[str]]:
    """Citations checked against the pool, then faithfulness: sentences their own citations contradict are dropped."""
    draft, notes = check_citations(draft, set(pool))
    kept, faithfulness, faith_notes = await check_faithfulness(
        draft.sentences, pool, backend.embedder, backend.stance, settings.court.stance_min_confidence
    )
    return draft.model_copy(update={"sentences": kept, "faithfulness": faithfulness}), notes + faith_notes


def _cited(draft: Draft) -> set[str]:
    return {c for sentence in draft.sentences for c in sentence.citations} | set(draft.answer_citations)


async def synthesize(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool = state.get("pool") or {}
    draft = await backend.reasoner.synthesize(
        state["question"], state["plan"], state.get("hypotheses") or [], state.get("ledger") or [], pool
    )
    draft, notes = await _checked(draft, pool, backend, settings)
    if (
        draft.alternative is not None and not draft.sentences
    ):  # every model sentence was dropped: the evidence's own draft
        parts.meter.fallback(
            "synthesize: extractive (every model sentence was dropped by the citation and faithfulness checks)"
        )
        draft, more = await _checked(draft.alternative, pool, backend, settings)
        notes += more
    # a draft, not the answer: the report may still decline it (too little evidence, a low confidence), so its progress
    # line states the answer and this one only what was drafted
    emit({"node": "synthesize", "sentences": len(draft.sentences), "cited": len(_cited(draft))})
    return {"draft": draft, "notes": notes}
