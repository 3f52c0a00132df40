"""Novelty demotion moves a near-copy below a distinct document; distinct rankings are untouched."""

from __future__ import annotations

import numpy as np
import pytest

from agent.scoring.novelty import demote, novelty_rerank


def normalised(rows: list[list[float]]) -> np.ndarray:
    matrix = np.array(rows, dtype=float)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_near_duplicate_is_demoted_below_distinct_document() -> None:
    # 0 and 1 are near-copies (cosine ~0.99); 2 is distinct and slightly less relevant than 1.
    vectors = normalised([[1, 0, 0], [1, 0.1, 0], [0, 1, 0]])
    ranking = novelty_rerank([0.9, 0.8, 0.7], vectors)
    assert ranking.order == [0, 2, 1]
    assert ranking.demoted == [1]
    assert ranking.scores == pytest.approx([0.9, 0.4, 0.7])


def test_distinct_documents_keep_their_order() -> None:
    vectors = np.eye(3)
    ranking = novelty_rerank([0.2, 0.9, 0.5], vectors)
    assert ranking.order == [1, 2, 0]
    assert ranking.demoted == []


def test_threshold_is_strict_cosine() -> None:
    vectors = normalised([[1, 0], [0.9, np.sqrt(1 - 0.81)]])  # cosine exactly 0.9
    assert novelty_rerank([1.0, 0.5], vectors, threshold=0.9).demoted == []
    assert novelty_rerank([1.0, 0.5], vectors, threshold=0.89).demoted == [1]


def test_negative_scores_move_down() -> None:
    assert demote(-2.0, 0.5) < -2.0
    assert demote(2.0, 0.5) == 1.0


def test_demoted_once_only() -> None:
    # Three copies: the third is demoted by the first pick, not again by the second.
    vectors = np.tile([1.0, 0.0], (3, 1))
    ranking = novelty_rerank([1.0, 0.8, 0.6], vectors)
    assert ranking.scores == pytest.approx([1.0, 0.4, 0.3])
    assert ranking.order == [0, 1, 2]


def test_length_mismatch_raises() -> None:
    with pytest.raises(ValueError):
        novelty_rerank([1.0], np.eye(2))
