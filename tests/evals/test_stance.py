"""evals.stance: scores a judge on labelled pairs and prints one JSON line with the metrics."""

from __future__ import annotations

import json

import pytest

from evals.stance import main, score
from tests.conftest import DATA


def test_score_counts_per_label():
    gold = ["SUPPORT", "SUPPORT", "CONTRADICT", "NEUTRAL"]
    predicted = ["SUPPORT", "NEUTRAL", "CONTRADICT", "SUPPORT"]
    result = score(gold, predicted)
    assert result["accuracy"] == 0.5
    assert result["support_precision"] == 0.5 and result["support_recall"] == 0.5
    assert result["contradict_f1"] == 1.0 and result["neutral_f1"] == 0.0
    assert abs(result["macro_f1"] - (0.5 + 1.0 + 0.0) / 3) < 1e-9
    assert result["confusion"]["SUPPORT->NEUTRAL"] == 1


@pytest.mark.slow
def test_main_prints_the_metrics_line(capsys):
    code = main(
        [
            "--data",
            str(DATA / "healthver" / "healthver_dev.csv"),
            "--limit",
            "12",
            "--set",
            "stance_model=heuristic",
            "--json",
        ]
    )
    assert code == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["pairs"] == 12 and line["judge"] == "heuristic+structure" and line["format"] == "healthver_csv"
    for key in ("macro_f1", "accuracy", "support_precision", "contradict_recall", "neutral_f1", "pairs_per_second"):
        assert key in line
    assert sum(line["confusion"].values()) == 12


def test_main_refuses_an_unknown_file(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n")
    try:
        main(["--data", str(bad)])
    except SystemExit as exc:
        assert exc.code == 2
    assert "unknown format" in capsys.readouterr().err
