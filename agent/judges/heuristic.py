"""The heuristic stance judge: MiniLM cosine for relatedness, lexical cue mismatch for polarity.

The fallback when the trained weights are absent, and the ablation baseline. A passage that is not
about the statement is NEUTRAL; a related passage contradicts when its negation, direction of effect
or null-result wording disagrees with the statement's ("increases" vs "reduced", "associated" vs
"not associated"), else it supports. The constants were chosen on the SciFact training part
(training/train_stance.py --tune-heuristic), never on the held-out claims.
"""

from __future__ import annotations

import asyncio
import math

import numpy as np

from agent.interfaces import StanceResult
from agent.judges.cues import PairCues, cues, pair_cues
from agent.records import STANCE_LABELS as LABELS
from agent.tools.models.encoder import MiniLMEncoder, shared_encoder

RELATED_COSINE = 0.6  # cosine at which P(related) = 0.5
RELATED_SLOPE = 12.0  # steepness of the relatedness logistic
CUE_WEIGHTS = {"direction_conflict": 1.0, "null_mismatch": 0.8, "negation_mismatch": 0.6, "direction_agree": -0.8}
CONTRADICT_AT = 0.25  # contradiction score at which P(contradict | related) = 0.5


def contradiction_score(pc: PairCues) -> float:
    """Weighted count of cue disagreements minus agreement of direction."""
    return (
        CUE_WEIGHTS["direction_conflict"] * pc.direction_conflict
        + CUE_WEIGHTS["null_mismatch"] * pc.null_mismatch
        + CUE_WEIGHTS["negation_mismatch"] * pc.negation_mismatch
        + CUE_WEIGHTS["direction_agree"] * pc.direction_agree
    )


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def heuristic_probabilities(statement: str, passage: str, cosine: float) -> dict[str, float]:
    """P(SUPPORT), P(CONTRADICT), P(NEUTRAL) from relatedness and cue disagreement."""
    related = _logistic(RELATED_SLOPE * (cosine - RELATED_COSINE))
    contradicts = _logistic(4.0 * (contradiction_score(pair_cues(cues(statement), cues(passage))) - CONTRADICT_AT))
    return {"SUPPORT": related * (1 - contradicts), "CONTRADICT": related * contradicts, "NEUTRAL": 1 - related}


class HeuristicStanceJudge:
    """StanceJudge with no trained weights: cosine from the shared encoder plus negation/antonym cues."""

    name = "heuristic"

    def __init__(self, encoder: MiniLMEncoder | None = None):
        self._encoder = encoder

    def judge_sync(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        if not pairs:
            return []
        unique = list(dict.fromkeys([s for s, _ in pairs] + [p for _, p in pairs]))
        vectors = (self._encoder or shared_encoder()).encode(unique)
        row = {text: i for i, text in enumerate(unique)}
        results = []
        for statement, passage in pairs:
            cosine = float(np.dot(vectors[row[statement]], vectors[row[passage]]))
            probs = heuristic_probabilities(statement, passage, cosine)
            results.append(StanceResult.from_probabilities(LABELS, [probs[label] for label in LABELS]))
        return results

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        """Stance of each (statement, passage) pair; the encoding runs in a thread."""
        return await asyncio.to_thread(self.judge_sync, pairs)
