"""The abstention threshold is the lowest one whose error bound meets the precision target, and none when none does."""

from benchmarks.selection import choose, curve, upper_error_bound


def test_the_error_bound_is_exact_clopper_pearson():
    assert upper_error_bound(0, 0, 0.05) == 1.0
    assert 0.0 < upper_error_bound(0, 50, 0.05) < 0.06  # 1 - 0.05 ** (1 / 50) = 0.0582
    assert upper_error_bound(5, 50, 0.05) > 0.1


def test_the_curve_counts_ties_once_and_skips_unanswered_claims():
    rows = [(0.9, True, True), (0.9, True, False), (0.5, True, True), (0.95, False, False)]
    points = curve(rows)
    assert [(p["threshold"], p["answered"], p["errors"]) for p in points] == [(0.9, 2, 1), (0.5, 3, 1)]
    assert points[-1]["coverage"] == 0.75


def test_the_lowest_threshold_that_keeps_its_guarantee_is_chosen():
    rows = [(0.9, True, True)] * 60 + [(0.6, True, True)] * 20 + [(0.6, True, False)] * 20
    chosen = choose(curve(rows), target=0.85, delta=0.1)
    assert chosen is not None and chosen["threshold"] == 0.9 and chosen["precision"] == 1.0
    assert choose(curve([(0.9, True, True), (0.8, True, False)]), target=0.85, delta=0.1) is None
