"""Averaging stance judges: the mean of several judges' class probabilities, argmax as the stance.

The default offline judge averages the heuristic (cosine relatedness, negation / direction cue mismatch) and
the fine-tuned cross-encoder. Through the court their mean beat either alone on the SciFact validation claims
(abstract-label F1 0.591 vs 0.554 / 0.521, evals/README.md), so they err on different passages; an unweighted
mean needs no weight tuned on evaluation data.
"""

from __future__ import annotations

import asyncio

from agent.interfaces import StanceJudge, StanceResult
from agent.records import STANCE_LABELS as LABELS


class MeanStanceJudge:
    """StanceJudge whose probabilities are the unweighted mean of its members' probabilities."""

    def __init__(self, judges: list[StanceJudge]):
        if not judges:
            raise ValueError("MeanStanceJudge needs at least one judge")
        self.judges = judges
        self.name = "ensemble(" + "+".join(j.name for j in judges) + ")"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        if not pairs:
            return []
        per_judge = await asyncio.gather(*(j.judge(pairs) for j in self.judges))
        results = []
        for row in zip(*per_judge, strict=True):
            mean = [sum(r.probabilities.get(label, 0.0) for r in row) / len(row) for label in LABELS]
            results.append(StanceResult.from_probabilities(LABELS, mean))
        return results
