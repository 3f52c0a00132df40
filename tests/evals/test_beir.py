"""evals.beir's metrics on hand-made rankings, and the grouped cross-validation behind learned-cv."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evals.beir import mrr_at_10, ndcg_at_10, recall_at_100, summarise
from evals.rerank_cv import cross_validated_scores, features, fit_logistic, grouped_folds, logistic_scores


def test_ndcg_hand_computed() -> None:
    # Relevant docs at ranks 2 and 4; ideal puts both on top.
    ranked = ["x", "a", "y", "b"]
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at_10(ranked, {"a": 1, "b": 1}) == pytest.approx(dcg / idcg)
    # Graded relevance uses the grade as gain; relevant documents never retrieved still count in the ideal.
    assert ndcg_at_10(["a"], {"a": 2, "b": 1}) == pytest.approx(2 / (2 + 1 / math.log2(3)))
    assert ndcg_at_10(["x"] * 10 + ["a"], {"a": 1}) == 0.0


def test_recall_and_mrr_hand_computed() -> None:
    relevant = {"a": 1, "b": 1, "c": 0}
    assert recall_at_100(["a"] + ["x"] * 200 + ["b"], relevant) == 0.5
    assert mrr_at_10(["x", "y", "b", "a"], relevant) == pytest.approx(1 / 3)
    assert mrr_at_10(["c", "x"], relevant) == 0.0  # grade 0 is not relevant


def test_summarise_averages_over_queries() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    result = summarise({"q1": ["a"], "q2": ["x", "b"]}, qrels)
    assert result["mrr@10"] == pytest.approx((1 + 0.5) / 2)
    assert result["recall@100"] == 1.0


def test_grouped_folds_keep_queries_sharing_a_document_together() -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1, "d2": 1}, "q3": {"d2": 1}, "q4": {"d9": 1}, "q5": {"d8": 1}}
    folds = grouped_folds(qrels, k=2, seed=3)
    assert folds["q1"] == folds["q2"] == folds["q3"]
    assert set(folds.values()) == {0, 1}


def test_logistic_regression_learns_a_signal() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] > 0).astype(float)
    model = fit_logistic(x, y, l2=0.1)
    scores = logistic_scores(model, x)
    assert np.mean((scores > 0) == (y > 0)) > 0.95
    assert abs(model[2][0]) > 5 * abs(model[2][1])


def test_cross_validation_scores_each_query_with_a_model_that_never_saw_it() -> None:
    # In fold 0 the feature predicts relevance, in fold 1 it predicts the opposite: a leak-free model trained
    # on the other fold must rank every query upside down.
    queries = ["a1", "a2", "b1", "b2"]
    folds = {"a1": 0, "a2": 0, "b1": 1, "b2": 1}
    blocks = [np.array([[1.0], [0.0], [-1.0]]) for _ in queries]
    labels = [np.array([1.0, 0.0, 0.0]) if folds[q] == 0 else np.array([0.0, 0.0, 1.0]) for q in queries]
    for q, _block, label, scores in zip(
        queries, blocks, labels, cross_validated_scores(queries, blocks, labels, folds)
    ):
        assert label[int(np.argmax(scores))] == 0.0, q


def test_features_standardise_each_signal() -> None:
    x = features({"bm25": np.array([0.0, 2.0]), "dense": np.array([0.5, 0.5])})
    assert x.shape == (2, 6)
    assert x[:, 1].tolist() == [-1.0, 1.0]  # z(bm25)
    assert x[:, 3].tolist() == [0.0, 0.0]  # z of a constant
    assert x[:, 4].tolist() == [0.0, 0.0]  # absent sentence signal
