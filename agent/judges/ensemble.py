"""Averaging stance judges: the mean of several judges' class probabilities, argmax as the stance.

The default offline judge averages the heuristic (cosine relatedness, negation / direction cue mismatch) and
the fine-tuned cross-encoder. Through the court their mean beat either alone on the SciFact validation claims
(abstract-label F1 0.591 vs 0.554 / 0.521, evals/HISTORY.md), so they err on different passages; an unweighted
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


class DirectionFromJudge:
    """StanceJudge that takes whether a passage takes a side from `base` and which side from `direction`.

    The default ensemble's verdicts rest on a cross-encoder that reads relatedness (with its +1 SUPPORT prior it
    almost never says CONTRADICT) beside a heuristic that reads direction from lexical cues, and its commonest
    verdict error is a contradiction read as support. A second reader's likelier side (SUPPORT vs CONTRADICT)
    replaces the base's where they differ, by swapping the two probabilities: the base's confidence, and so the
    court's coverage, is kept; only the direction changes.
    """

    def __init__(self, base: StanceJudge, direction: StanceJudge):
        self.base, self.direction = base, direction
        self.name = f"{base.name}/direction({direction.name})"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        if not pairs:
            return []
        base = await self.base.judge(pairs)  # first: a reader shared with the base then finds its pairs cached
        direction = await self.direction.judge(pairs)
        results = []
        for mine, theirs in zip(base, direction, strict=True):
            probs = {label: mine.probabilities.get(label, 0.0) for label in LABELS}
            says_support = theirs.probabilities.get("SUPPORT", 0.0) > theirs.probabilities.get("CONTRADICT", 0.0)
            if says_support != (probs["SUPPORT"] > probs["CONTRADICT"]):
                probs["SUPPORT"], probs["CONTRADICT"] = probs["CONTRADICT"], probs["SUPPORT"]
            results.append(StanceResult.from_probabilities(LABELS, [probs[label] for label in LABELS]))
        return results
