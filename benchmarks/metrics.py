"""The metrics the evals report and the fits select by: precision / recall / F1, macro-F1, confusion counts,
selective accuracy, calibration (ECE, Brier), and stratified folds for cross-validation."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence


def prf(correct: int, predicted: int, gold: int) -> tuple[float, float, float]:
    precision = correct / predicted if predicted else 0.0
    recall = correct / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def confusion(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, int]:
    """Counts of every "gold->predicted" label pair, in `labels` order."""
    counts = Counter(zip(gold, predicted))
    return {f"{g}->{p}": counts[(g, p)] for g in labels for p in labels}


def stratified_folds(labels: Sequence[str], folds: int, seed: int) -> list[int]:
    """Fold of each item for cross-validation: every label's items dealt round-robin over the folds after a seeded
    shuffle."""
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        by_label[label].append(i)
    fold_of = [0] * len(labels)
    rng = random.Random(seed)
    offset = 0
    for label in sorted(by_label):
        items = by_label[label]
        rng.shuffle(items)
        for k, i in enumerate(items):
            fold_of[i] = (k + offset) % folds
        offset += len(items)
    return fold_of


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        scores.append(prf(tp, sum(p == label for p in predicted), sum(g == label for g in gold))[2])
    return sum(scores) / len(scores) if scores else 0.0


def selective(correct: Sequence[bool], answered: Sequence[bool]) -> dict[str, float]:
    """Selective accuracy, as LitQA2 scores it: coverage = answered / all, precision = right / answered (a verdict
    given, not an abstention), accuracy = right / all (here an abstention is right when "not enough info" is)."""
    n, given = len(correct), sum(answered)
    right_given = sum(c and a for c, a in zip(correct, answered))
    return {
        "coverage": given / n if n else 0.0,
        "precision_when_answering": right_given / given if given else 0.0,
        "selective_accuracy": sum(correct) / n if n else 0.0,
    }


def calibration(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> tuple[float, float]:
    """(ECE with equal-width bins, Brier score) of confidence against correctness."""
    n = len(confidences)
    if n == 0:
        return 0.0, 0.0
    brier = sum((c - float(k)) ** 2 for c, k in zip(confidences, correct)) / n
    ece = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [(c, k) for c, k in zip(confidences, correct) if low <= c < high or (b == bins - 1 and c == 1.0)]
        if members:
            accuracy = sum(k for _, k in members) / len(members)
            mean_conf = sum(c for c, _ in members) / len(members)
            ece += len(members) / n * abs(accuracy - mean_conf)
    return ece, brier


def recall_by_class(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, float | None]:
    """Each gold class's recall (None for a class with no gold item): whether an answer ever says the rarer label.
    A system that always says the majority label scores 1 on it and 0 on every other class."""
    out: dict[str, float | None] = {}
    for label in labels:
        members = [p for g, p in zip(gold, predicted) if g == label]
        out[label] = sum(p == label for p in members) / len(members) if members else None
    return out


def per_class_report(
    gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str], baseline: str
) -> dict[str, object]:
    """Recall per class and balanced accuracy of the stated labels, beside always-`baseline` on the same items (its
    accuracy; its recall is 1 on `baseline` and 0 elsewhere), and the counts of what was stated."""
    recall = recall_by_class(gold, predicted, labels)
    present = [r for r in recall.values() if r is not None]
    return {
        "recall_by_class": recall,
        "balanced_accuracy": sum(present) / len(present) if present else None,
        "stated_counts": {label: sum(p == label for p in predicted) for label in labels},
        "gold_counts": {label: sum(g == label for g in gold) for label in labels},
        f"always_{baseline.lower()}_accuracy": sum(g == baseline for g in gold) / len(gold) if gold else None,
        f"always_{baseline.lower()}_balanced_accuracy": 1 / len(present) if present else None,
    }
