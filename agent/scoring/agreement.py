"""Agreement between two providers' hypothesis sets, on meaning (seed 003).

agreement = mean over both directions of each hypothesis's best cosine to the other set (clipped at 0): a
paraphrase agrees (cosine near 1), a different answer does not. Word overlap, its predecessor, read every
paraphrase as disagreement and looped for nothing. The court's edge loops below court.agreement_threshold (0.35).
"""

from __future__ import annotations

import numpy as np

from agent.interfaces import Embedder
from agent.records import Hypothesis

DUPLICATE_COSINE = 0.85


def own(hypotheses: list[Hypothesis]) -> list[Hypothesis]:
    """A provider's own proposals (origin 'llm'); all of them when it proposed none (the extractive second opinion)."""
    proposed = [h for h in hypotheses if h.origin == "llm"]
    return proposed or hypotheses


async def set_agreement(first: list[str], second: list[str], embedder: Embedder) -> float | None:
    if not first or not second:
        return None
    vectors = await embedder.embed([*first, *second], kind="document")
    sims = np.clip(vectors[: len(first)] @ vectors[len(first) :].T, 0.0, 1.0)
    return round(float(0.5 * (sims.max(axis=1).mean() + sims.max(axis=0).mean())), 4)


async def novel(candidates: list[Hypothesis], existing: list[Hypothesis], embedder: Embedder) -> list[Hypothesis]:
    """The candidates that are no paraphrase (cosine >= DUPLICATE_COSINE) of an existing hypothesis."""
    if not candidates:
        return []
    vectors = await embedder.embed([h.statement for h in [*existing, *candidates]], kind="document")
    base = vectors[: len(existing)]
    return [
        h
        for i, h in enumerate(candidates)
        if not len(existing) or float((base @ vectors[len(existing) + i]).max()) < DUPLICATE_COSINE
    ]
