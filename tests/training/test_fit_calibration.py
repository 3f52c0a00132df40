"""training/fit_calibration.py: the out-of-fold reliability comes from maps fitted without the scored runs."""

from __future__ import annotations

import random

import pytest

from training import fit_calibration


def runs(n: int = 120, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        score = rng.random()
        abstained = score < 0.3
        right = rng.random() < score  # a higher evidence score is more often right
        gold = "SUPPORT" if right else "CONTRADICT"
        if abstained:
            gold = "NOT_ENOUGH_INFO" if rng.random() < 1 - score else "SUPPORT"
        rows.append(
            {
                "id": i,
                "score": score,
                "lead": "SUPPORT",
                "abstained": abstained,
                "verdict": "NOT_ENOUGH_INFO" if abstained else "SUPPORT",
                "gold": gold,
            }
        )
    return rows


def test_each_run_is_scored_by_maps_fitted_on_the_other_folds(monkeypatch):
    rows = runs()
    seen: list[set[int]] = []
    real = fit_calibration.fitted_maps

    def spy(train_rows):
        seen.append({r["id"] for r in train_rows})
        return real(train_rows)

    monkeypatch.setattr(fit_calibration, "fitted_maps", spy)
    confidences = fit_calibration.out_of_fold(rows, folds=5)
    assert len(seen) == 5 and all(0.0 <= c <= 1.0 for c in confidences)
    covered = set()
    for train in seen:
        held = {r["id"] for r in rows} - train
        assert 0 < len(held) < len(rows)
        covered |= held
    assert covered == {r["id"] for r in rows}  # every run held out exactly once
    leading, abstention = real(rows)
    in_sample = [fit_calibration.confidence_of(r, leading, abstention) for r in rows]
    assert confidences != pytest.approx(in_sample)


def test_a_map_without_wrong_outcomes_is_refused():
    rows = [{**r, "gold": "SUPPORT", "abstained": False} for r in runs(20)]
    with pytest.raises(ValueError, match="both right and wrong"):
        fit_calibration.fitted_maps(rows)
