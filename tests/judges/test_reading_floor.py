"""The default judge reads the project's hand-written reading check (evals/data/reading_check.jsonl) at least as well
as it does today: a floor under it, not the target (issue 36 asks >= 0.90 overall and >= 0.80 per category;
evals/HISTORY.md has where it stands). It fails when the structure reader is removed (0.495 overall, hedges 0.05,
requirement 0.29)."""

import json

import pytest

from evals import reading_check

FLOOR = 0.68
CATEGORY_FLOORS = {
    "plain_support": 0.8,
    "comparative": 0.75,
    "ratio": 0.8,
    "hedge": 0.9,
    "requirement": 0.65,
    "subject_change": 0.55,
}


@pytest.mark.slow
def test_the_default_judge_reads_the_check_set_above_its_floor(capsys):
    assert reading_check.main(["--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["accuracy"] >= FLOOR, result["accuracy"]
    low = {c: result[f"accuracy/{c}"] for c, floor in CATEGORY_FLOORS.items() if result[f"accuracy/{c}"] < floor}
    assert not low, low
