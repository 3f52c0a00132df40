"""Novelty demotion: push near-duplicate documents down a ranking so the evidence pool stays diverse.

Seed 002: a document within cosine distance 0.1 (cosine > 0.9) of an already-selected document has its
relevance halved. Selection is greedy, so the demotion is judged against what is actually ranked above
it: of two near-copies the better one keeps its place and only the other moves down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_THRESHOLD = 0.9
DEFAULT_PENALTY = 0.5


def demote(score: float, penalty: float) -> float:
    """`score * penalty` for positive scores; negative scores (logits) move down by the same fraction."""
    return score * penalty if score >= 0 else score * (2.0 - penalty)


@dataclass(frozen=True)
class NoveltyRanking:
    order: list[int]  # indices into the input, best first
    scores: list[float]  # adjusted score of each input item (aligned with the input, not the order)
    demoted: list[int]  # inputs whose score was demoted


def novelty_rerank(
    scores: Sequence[float],
    embeddings: np.ndarray,
    threshold: float = DEFAULT_THRESHOLD,
    penalty: float = DEFAULT_PENALTY,
) -> NoveltyRanking:
    """Greedy re-ranking: repeatedly take the best remaining item, demoting once any item whose cosine to
    an already-taken item exceeds `threshold`. `embeddings` are L2-normalised, one row per score."""
    n = len(scores)
    if n != len(embeddings):
        raise ValueError(f"{n} scores but {len(embeddings)} embeddings")
    adjusted = np.asarray(scores, dtype=float).copy()
    is_demoted = np.zeros(n, dtype=bool)
    remaining = np.ones(n, dtype=bool)
    order: list[int] = []
    for _ in range(n):
        candidates = np.flatnonzero(remaining)
        pick = int(candidates[np.argmax(adjusted[candidates])])
        order.append(pick)
        remaining[pick] = False
        if not remaining.any():
            break
        close = remaining & ~is_demoted & (embeddings @ embeddings[pick] > threshold)
        for i in np.flatnonzero(close):
            adjusted[i] = demote(float(adjusted[i]), penalty)
            is_demoted[i] = True
    return NoveltyRanking(order=order, scores=adjusted.tolist(), demoted=np.flatnonzero(is_demoted).tolist())
