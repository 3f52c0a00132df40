"""Selection with guaranteed risk (Geifman & El-Yaniv 2017): which confidence threshold answers the most while an
exact Clopper-Pearson bound keeps precision at a target. Shared by evals.risk_coverage (on an eval's answers) and
training.fit_verdict (on the verdict model's out-of-fold predictions), so both choose by one procedure."""

from __future__ import annotations

from typing import Any

from scipy.stats import beta


def upper_error_bound(errors: int, n: int, level: float) -> float:
    """One-sided Clopper-Pearson upper bound on an error rate at confidence 1 - level (1.0 when n is 0)."""
    if n == 0:
        return 1.0
    return 1.0 if errors >= n else float(beta.ppf(1 - level, errors + 1, n - errors))


def curve(rows: list[tuple[float, bool, bool]], evidence: list[bool] | None = None) -> list[dict[str, Any]]:
    """(confidence, answered, right) per claim -> per threshold: coverage, precision when answering, answered,
    errors."""
    answered = sorted(((c, r) for c, a, r in rows if a), key=lambda x: -x[0])
    points, right = [], 0
    for k, (confidence, is_right) in enumerate(answered, 1):
        right += is_right
        if k < len(answered) and answered[k][0] == confidence:
            continue  # ties: a threshold keeps all answers of equal confidence
        points.append(
            {
                "threshold": round(confidence, 4),
                "answered": k,
                "coverage": round(k / len(rows), 4),
                "precision": round(right / k, 4),
                "errors": k - right,
            }
        )
    return points


def choose(points: list[dict[str, Any]], target: float, delta: float) -> dict[str, Any] | None:
    """The lowest threshold whose Bonferroni-corrected Clopper-Pearson error bound is at most 1 - target."""
    level = delta / max(1, len(points))
    chosen = None
    for point in points:
        point["error_bound"] = round(upper_error_bound(point["errors"], point["answered"], level), 4)
        if point["error_bound"] <= 1 - target:
            chosen = point
    return chosen


def choose_or_safest(points: list[dict[str, Any]], target: float, delta: float) -> tuple[dict[str, Any] | None, bool]:
    """`choose`'s threshold and True; where none reaches the target, the threshold whose error bound is lowest (the
    precision that can be vouched for is highest; ties go to the larger coverage) and False. None only for no
    points."""
    chosen = choose(points, target, delta)
    if chosen is not None or not points:
        return chosen, chosen is not None
    return min(points, key=lambda p: (p["error_bound"], -p["answered"])), False
