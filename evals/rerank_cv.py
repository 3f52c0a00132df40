"""A trained reranker, scored honestly: logistic regression over the offline reranker's signals, k-fold
cross-validated over queries, with folds grouped so that no held-out query shares a relevant document
with a training query.

Grouping matters on SciFact: 538 of the 809 train claims share a cited abstract with another claim (several
claims, and their negations, were written from one citation), so plain query folds let a model learn "this
abstract is relevant" and pass it off as generalisation.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np

from agent.tools.index.offline_rerank import SIGNALS, zscores


def grouped_folds(qrels: Mapping[str, Mapping[str, int]], k: int = 5, seed: int = 0) -> dict[str, int]:
    """Fold of each query; queries linked through a shared relevant document fall in one fold."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for query, relevant in qrels.items():
        for doc, grade in relevant.items():
            if grade > 0:
                parent[find("q:" + query)] = find("d:" + doc)
    groups = sorted({find("q:" + query) for query in qrels})
    random.Random(seed).shuffle(groups)
    fold_of_group = {group: i % k for i, group in enumerate(groups)}
    return {query: fold_of_group[find("q:" + query)] for query in qrels}


def features(signals: Mapping[str, np.ndarray]) -> np.ndarray:
    """Per candidate: each signal raw and standardised over the candidate list (absent signals are 0)."""
    n = len(next(iter(signals.values())))
    columns: list[np.ndarray] = []
    for name in SIGNALS:
        raw = np.asarray(signals.get(name, np.zeros(n)), dtype=np.float64)
        columns += [raw, zscores(raw)]
    return np.column_stack(columns)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """L2-regularised logistic regression by Newton's method on standardised features.

    Returns (mean, std, weights with the bias last); score new rows with `logistic_scores`.
    """
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-9
    design = np.column_stack([(x - mean) / std, np.ones(len(x))])
    weights = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ weights)))
        gradient = design.T @ (p - y) + penalty * weights
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(len(weights))
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return mean, std, weights


def logistic_scores(model: tuple[np.ndarray, np.ndarray, np.ndarray], x: np.ndarray) -> np.ndarray:
    mean, std, weights = model
    return ((x - mean) / std) @ weights[:-1] + weights[-1]


def cross_validated_scores(
    query_ids: Sequence[str],
    blocks: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    folds: Mapping[str, int],
    l2: float = 1.0,
) -> list[np.ndarray]:
    """Out-of-fold scores per query: each query's candidates scored by a model that never saw its fold."""
    scores: list[np.ndarray] = [np.zeros(len(b)) for b in blocks]
    for fold in sorted({folds[q] for q in query_ids}):
        train = [i for i, q in enumerate(query_ids) if folds[q] != fold]
        test = [i for i, q in enumerate(query_ids) if folds[q] == fold]
        if not train:
            raise ValueError("cross-validation needs at least two folds with queries")
        model = fit_logistic(np.vstack([blocks[i] for i in train]), np.concatenate([labels[i] for i in train]), l2)
        for i in test:
            scores[i] = logistic_scores(model, blocks[i])
    return scores
