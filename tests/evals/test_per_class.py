"""Recall per class beside always-SUPPORT in the end-to-end evals, the opposite-claim pairs of SciFact, the textbook
reversals check, and the trace of the no stage by stage (evals/trace_no.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchmarks.metrics import per_class_report, recall_by_class
from evals import reversals, trace_no
from evals.scifact import opposite_pairs, stated_label
from tests.verdict.test_readings import _row

LABELS = ("SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO")


def test_recall_per_class_shows_what_always_support_hides():
    gold = ["SUPPORT"] * 6 + ["CONTRADICT"] * 3 + ["NOT_ENOUGH_INFO"]
    always = ["SUPPORT"] * 10
    report = per_class_report(gold, always, LABELS, "SUPPORT")
    assert report["recall_by_class"] == {"SUPPORT": 1.0, "CONTRADICT": 0.0, "NOT_ENOUGH_INFO": 0.0}
    assert report["balanced_accuracy"] == pytest.approx(1 / 3) and report["always_support_accuracy"] == 0.6
    saying_no = ["SUPPORT"] * 5 + ["CONTRADICT"] + ["CONTRADICT"] * 2 + ["SUPPORT", "NOT_ENOUGH_INFO"]
    assert recall_by_class(gold, saying_no, LABELS)["CONTRADICT"] == pytest.approx(2 / 3)
    assert recall_by_class(["SUPPORT"], ["SUPPORT"], LABELS)["CONTRADICT"] is None


def _answer(verdict, abstained=False):
    return SimpleNamespace(verdict=verdict, abstained=abstained)


def test_a_lean_states_its_side_and_an_abstention_states_not_enough():
    assert stated_label(_answer("CONTRADICT")) == "CONTRADICT"
    assert stated_label(_answer("SUPPORT", abstained=True)) == "NOT_ENOUGH_INFO"
    assert stated_label(_answer(None)) == "NOT_ENOUGH_INFO"


def test_opposite_pairs_count_both_right_and_the_reversal_read_like_the_finding():
    claims = [
        {"id": 1, "claim": "X raises Y", "evidence": {"9": [{"label": "SUPPORT", "sentences": [0]}]}},
        {"id": 2, "claim": "X lowers Y", "evidence": {"9": [{"label": "CONTRADICT", "sentences": [0]}]}},
        {"id": 3, "claim": "A raises B", "evidence": {"8": [{"label": "SUPPORT", "sentences": [1]}]}},
        {"id": 4, "claim": "A lowers B", "evidence": {"8": [{"label": "CONTRADICT", "sentences": [1]}]}},
    ]
    result = opposite_pairs(claims, ["SUPPORT", "CONTRADICT", "SUPPORT", "SUPPORT"])
    assert result == {"opposite_pairs": 2, "opposite_pairs_both_right": 0.5, "opposite_pairs_same_side": 0.5}


def test_the_reversals_check_counts_a_false_form_leaning_with_its_true_form():
    pairs = [{"true": "a", "false": "not a"}, {"true": "b", "false": "not b"}, {"true": "c", "false": "not c"}]
    result = reversals.score(pairs, [("SUPPORT", "SUPPORT"), ("SUPPORT", "CONTRADICT"), ("NOT_ENOUGH_INFO", "SUPPORT")])
    assert result["false_leans_support_where_true_does"] == 1 and result["both_right"] == 1
    assert result["false_support"] == 2 and result["stated"][1]["false_says"] == "CONTRADICT"


def test_the_trace_follows_a_contradicted_claim_from_its_rationale_to_the_stated_answer():
    claim = {"id": 7, "claim": "X raises Y", "evidence": {"r0": [{"label": "CONTRADICT", "sentences": [3]}]}}
    heard = _row([0.1, 0.8, 0.1], passage=0, sentence=3, sentence_end=None)
    heard["readers"] = {"cross": [0.6, 0.2, 0.2], "direction": [0.1, 0.9, 0.0], "heuristic": [0.3, 0.4, 0.3]}
    whole = {"kind": "record", "statement": 0, "record": "r0", "rank": 0, "p": [0.2, 0.5, 0.3], "readers": {}}
    question = {
        "family": "claims",
        "id": "7",
        "gold": "CONTRADICT",
        "part": "scifact val",
        "answer": {"readings": [heard, whole]},
    }
    tables = trace_no.trace([question], {"7": claim}, {("claims", "7"): [0.3, 0.5, 0.2]}, None).tables()
    assert tables["sentences"]["scifact val / cross"]["recall"] == {"CONTRADICT": 0.0}
    assert tables["sentences"]["scifact val / direction"]["recall"] == {"CONTRADICT": 1.0}
    assert tables["record"]["scifact val / record read whole"]["recall"] == {"CONTRADICT": 1.0}
    assert tables["verdict"]["scifact val"]["recall"] == {"CONTRADICT": 1.0}
    assert tables["stated"]["scifact val"]["recall"] == {"CONTRADICT": 1.0}
    leaning_nowhere = trace_no.trace([question], {"7": claim}, {("claims", "7"): [0.3, 0.35, 0.4]}, None).tables()
    assert leaning_nowhere["stated"]["scifact val"]["recall"] == {"CONTRADICT": 0.0}
