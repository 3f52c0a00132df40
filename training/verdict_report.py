"""The verdict model's out-of-fold report: per family, what the confident tier and the three-tier answer would state.

Split from training/fit_verdict.py (which fits); both are training code, never imported at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from training.verdict_balance import stated_classes


def side_and_probability(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The likelier side (0 SUPPORT, 1 CONTRADICT) of each question and its probability."""
    side = (p[:, 1] > p[:, 0]).astype(int)
    return side, p[np.arange(len(p)), side]


def family_report(p: np.ndarray, y: np.ndarray, threshold: float | np.ndarray, family: list[str]) -> dict[str, Any]:
    """Per family, out of fold: coverage, precision when answering, accuracy with abstention as NOT_ENOUGH_INFO, the
    direction of evidence questions answered, and how well the probability tells right answers from wrong ones."""
    side, prob = side_and_probability(p)
    report = {}
    for name in sorted(set(family)) + ["all"]:
        keep = np.asarray([name in ("all", f) for f in family])
        answered = keep & (prob >= threshold)
        right = side == y
        evidence = keep & (y < 2)
        auc_mask = answered
        auc = (
            float(roc_auc_score(right[auc_mask], prob[auc_mask]))
            if auc_mask.sum() > 5 and 0 < right[auc_mask].mean() < 1
            else None
        )
        predicted = np.where(prob >= threshold, side, 2)
        report[name] = {
            "questions": int(keep.sum()),
            "answered": int(answered.sum()),
            "coverage": round(float(answered.sum() / max(1, keep.sum())), 4),
            "precision": round(float(right[answered].mean()), 4) if answered.any() else None,
            "accuracy_with_abstention": round(float((predicted[keep] == y[keep]).mean()), 4),
            "evidence_answered": round(float((answered & evidence).sum() / max(1, evidence.sum())), 4),
            "direction_right_when_answered": (
                round(float(right[answered & evidence].mean()), 4) if (answered & evidence).any() else None
            ),
            "direction_right_all_evidence": round(float(right[evidence].mean()), 4) if evidence.any() else None,
            "auc_right_vs_wrong": round(auc, 4) if auc is not None else None,
            **lean_report(
                p[keep], y[keep], prob[keep] >= threshold if np.ndim(threshold) == 0 else (prob >= threshold)[keep]
            ),
        }
    return report


def lean_report(p: np.ndarray, y: np.ndarray, confident: np.ndarray) -> dict[str, Any]:
    """What the three-tier answer states (agent/answer/status.py): a side when it leads the three probabilities
    (confident at the operating point, leaning under it), NOT_ENOUGH_INFO when that leads. Accuracy over every
    question, each tier's precision and coverage, and how well the stated probability ranks right against wrong
    over the questions that lean or answer."""
    _, prob = side_and_probability(p)
    states = stated_classes(p)
    gives = states < 2
    right = states == y
    leaning = gives & ~confident
    auc = float(roc_auc_score(right[gives], prob[gives])) if gives.sum() > 5 and 0 < right[gives].mean() < 1 else None
    return {
        "three_tier_accuracy": round(float(right.mean()), 4) if len(y) else None,
        "confident_coverage": round(float((gives & confident).mean()), 4) if len(y) else None,
        "confident_precision": round(float(right[gives & confident].mean()), 4) if (gives & confident).any() else None,
        "leaning_coverage": round(float(leaning.mean()), 4) if len(y) else None,
        "leaning_precision": round(float(right[leaning].mean()), 4) if leaning.any() else None,
        "auc_stated_right_vs_wrong": round(auc, 4) if auc is not None else None,
        "leans_without_evidence": round(float((gives & (y == 2)).sum() / max(1, gives.sum())), 4),
    }
