"""evals.reading_check: the hand-written check set is well formed, and the evaluator scores a judge per category."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agent.errors import InputError
from agent.interfaces import StanceResult
from evals import reading_check
from evals.reading_check import CATEGORIES, DATA, CheckPair, evaluate, load_pairs

# categories whose every pair has one label by construction; the others must mix SUPPORT and CONTRADICT
SINGLE_LABEL = {"plain_support": "SUPPORT", "hedge": "NEUTRAL", "off_target": "NEUTRAL"}


def test_the_check_set_is_large_clean_and_covers_every_category():
    pairs = load_pairs(DATA)
    assert len(pairs) >= 180
    per_category = Counter(p.category for p in pairs)
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 15, per_category
    keys = [(p.statement.strip().lower(), p.passage.strip().lower()) for p in pairs]
    assert len(set(keys)) == len(keys), [k for k, n in Counter(keys).items() if n > 1]


def test_the_check_set_labels_fit_their_categories():
    pairs = load_pairs(DATA)
    for category in CATEGORIES:
        labels = Counter(p.label for p in pairs if p.category == category)
        if category in SINGLE_LABEL:
            assert set(labels) == {SINGLE_LABEL[category]}, (category, labels)
        elif category == "no_difference":  # a null result against a claimed effect, or for a claimed absence
            assert labels["NEUTRAL"] == 0 and labels["CONTRADICT"] > labels["SUPPORT"] > 0, labels
        else:  # both sides, neither under a third of the category
            total = sum(labels.values())
            assert labels["NEUTRAL"] == 0 and min(labels["SUPPORT"], labels["CONTRADICT"]) * 3 >= total, (
                category,
                labels,
            )


def test_a_bad_row_is_an_input_error_naming_the_line(tmp_path):
    data = tmp_path / "pairs.jsonl"
    good = {
        "statement": "Aspirin lowers fever.",
        "passage": "Fever fell after aspirin.",
        "label": "SUPPORT",
        "category": "plain_support",
    }
    data.write_text(json.dumps(good) + "\n" + json.dumps({**good, "category": "sarcasm"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pairs.jsonl line 2: \('category',\)"):
        load_pairs(data)
    data.write_text(json.dumps({**good, "passage": "  "}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: a pair needs a non-empty statement and passage"):
        load_pairs(data)


def _pair(label: str, category: str, n: int) -> CheckPair:
    return CheckPair(statement=f"Claim {n}.", passage=f"Passage {n}.", label=label, category=category)


def test_evaluate_scores_overall_and_per_category():
    pairs = [
        _pair("SUPPORT", "plain_support", 0),
        _pair("SUPPORT", "plain_support", 1),
        _pair("NEUTRAL", "hedge", 2),
        _pair("CONTRADICT", "ratio", 3),
    ]
    results = evaluate(pairs, ["SUPPORT", "CONTRADICT", "SUPPORT", "CONTRADICT"])
    assert results["accuracy"] == 0.5
    assert results["accuracy/plain_support"] == 0.5 and results["pairs/plain_support"] == 2
    assert results["accuracy/hedge"] == 0.0 and results["accuracy/ratio"] == 1.0
    assert "accuracy/negation" not in results  # a category with no pairs is left out, not scored 0
    assert results["confusion"]["NEUTRAL->SUPPORT"] == 1 and results["confusion"]["SUPPORT->CONTRADICT"] == 1


class KeywordJudge:
    """A stand-in judge: CONTRADICT when the passage says 'not', else SUPPORT."""

    name = "keyword"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        return [
            StanceResult(stance="CONTRADICT" if " not " in passage else "SUPPORT", confidence=0.9)
            for _, passage in pairs
        ]


def test_main_runs_the_selected_judge_and_prints_the_json_line(tmp_path, monkeypatch, capsys):
    data = tmp_path / "pairs.jsonl"
    rows = [
        {
            "statement": "Drug A lowers X.",
            "passage": "Drug A lowered X.",
            "label": "SUPPORT",
            "category": "plain_support",
        },
        {
            "statement": "Drug A lowers X.",
            "passage": "Drug A did not lower X.",
            "label": "CONTRADICT",
            "category": "negation",
        },
        {
            "statement": "Drug A lowers Y.",
            "passage": "Whether drug A lowers Y is not known.",
            "label": "NEUTRAL",
            "category": "hedge",
        },
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    asked: dict = {}
    monkeypatch.setattr(reading_check, "stance_judge", lambda **overrides: asked.update(overrides) or KeywordJudge())
    assert reading_check.main(["--data", str(data), "--set", "stance_model=heuristic", "--errors", "--json"]) == 0
    out = capsys.readouterr().out
    line = json.loads(out.strip().splitlines()[-1])
    assert asked == {"stance_model": "heuristic"} and line["judge"] == "keyword"
    assert line["pairs"] == 3 and abs(line["accuracy"] - 2 / 3) < 1e-9
    assert line["accuracy/plain_support"] == 1.0 and line["accuracy/negation"] == 1.0 and line["accuracy/hedge"] == 0.0
    assert line["confusion"]["NEUTRAL->CONTRADICT"] == 1 and line["gold"] == {
        "SUPPORT": 1,
        "CONTRADICT": 1,
        "NEUTRAL": 1,
    }
    assert "hedge: NEUTRAL -> CONTRADICT" in out  # --errors lists the misread pair


def test_main_refuses_a_missing_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        reading_check.main(["--data", str(tmp_path / "absent.jsonl")])
    assert stopped.value.code == 2 and "absent.jsonl" in capsys.readouterr().err
