"""Class-balanced fitting pieces for the verdict model: weights, the balanced log-loss, per-class calibration and the
map from a stated class's probability to the chance that it is right.

Why balanced: fitted to the plain log-loss on few questions under heavy regularisation, the verdict model learnt the
prior (SUPPORT is the commonest gold class) and said CONTRADICT four times in 64 contradicted claims. A balanced
objective counts each class's questions as one third of the loss, so a model that never says CONTRADICT pays for it;
the per-class bias then puts the three classes' decision boundaries where the out-of-fold data put them, and the
confidence map turns the balanced probabilities back into honest chances of being right.
Training code: never imported at run time.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from agent.verdict.model import softmax

N_CLASSES = 3


def class_weights(y: np.ndarray, n_classes: int = N_CLASSES) -> np.ndarray:
    """Each question's weight so that every class present weighs the same in total (sklearn's 'balanced')."""
    counts = np.bincount(y, minlength=n_classes).astype(float)
    present = (counts > 0).sum()
    return len(y) / (present * counts[y])


def balanced_log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """The mean over the classes present of each class's mean log-loss."""
    losses = [-np.log(np.clip(p[y == k, k], 1e-12, 1.0)).mean() for k in range(p.shape[1]) if (y == k).any()]
    return float(np.mean(losses))


def balanced_accuracy(y: np.ndarray, predicted: np.ndarray) -> float:
    recalls = [float((predicted[y == k] == k).mean()) for k in range(N_CLASSES) if (y == k).any()]
    return float(np.mean(recalls))


def vector_scaling(logits: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """A temperature and a bias per class (SUPPORT's fixed at 0) that minimise the balanced log-loss of out-of-fold
    logits: per-class calibration, so that no class wins by its prior alone."""
    weights = class_weights(y, logits.shape[1])
    index = np.arange(len(y))

    def loss(params: np.ndarray) -> float:
        t, bias = np.exp(params[0]), np.concatenate([[0.0], params[1:]])
        p = softmax(logits / t + bias)
        return float(-(weights * np.log(p[index, y] + 1e-12)).sum() / weights.sum())

    found = minimize(loss, np.zeros(logits.shape[1]), method="Nelder-Mead", options={"xatol": 1e-4, "maxiter": 4000})
    return float(np.exp(found.x[0])), np.concatenate([[0.0], found.x[1:]])


def stated_classes(p: np.ndarray) -> np.ndarray:
    """What the three-tier answer states (agent/answer/status.py): the likelier side when it is likelier than
    NOT_ENOUGH_INFO, else NOT_ENOUGH_INFO."""
    side = (p[:, 1] > p[:, 0]).astype(int)
    return np.where(p[np.arange(len(p)), side] > p[:, 2], side, 2)


def _logit(q: np.ndarray) -> np.ndarray:
    q = np.clip(q, 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def confidence_map(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(slope, offset) of a logistic map from the stated class's probability to whether it is right, fitted on
    out-of-fold probabilities (plain, unweighted: the map's job is the true chance). Monotone increasing."""
    stated = stated_classes(p)
    q = p[np.arange(len(p)), stated]
    right = (stated == y).astype(float)
    x = _logit(q)

    def nll(params: np.ndarray) -> float:
        z = params[0] * x + params[1]
        return float(np.mean(np.logaddexp(0.0, z) - right * z))

    found = minimize(nll, np.array([1.0, 0.0]), method="Nelder-Mead", options={"xatol": 1e-5, "maxiter": 2000})
    slope = max(float(found.x[0]), 1e-3)
    return slope, float(found.x[1])


def mapped(p: np.ndarray, cmap: tuple[float, float]) -> np.ndarray:
    """Every class's probability through the confidence map (each entry on its own: the order of classes holds)."""
    slope, offset = cmap
    return 1.0 / (1.0 + np.exp(-(slope * _logit(p) + offset)))
