"""The evals' metric functions on hand-made examples."""

import math
from types import SimpleNamespace

import pytest

from benchmarks.metrics import calibration, macro_f1, prf
from benchmarks.questions import contrast_pairs, gold_of, question_of
from evals.beir import mrr_at_10, ndcg_at_10, recall_at_100
from evals.pubmedqa import lean_confidence
from evals.scifact import predictions_of


def test_ranking_metrics():
    relevant = {"a": 1, "b": 1}
    assert ndcg_at_10(["a", "b", "c"], relevant) == pytest.approx(1.0)
    assert ndcg_at_10(["c", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))
    assert recall_at_100(["x"] * 99 + ["a"], relevant) == 0.5
    assert mrr_at_10(["c", "d", "b"], relevant) == pytest.approx(1 / 3)
    assert mrr_at_10(["c"] * 10 + ["a"], relevant) == 0.0


def test_classification_and_calibration_metrics():
    assert prf(2, 4, 8) == pytest.approx((0.5, 0.25, 1 / 3))
    assert macro_f1(["yes", "no"], ["yes", "yes"], ["yes", "no"]) == pytest.approx((2 / 3 + 0) / 2)
    ece, brier = calibration([1.0, 0.0], [True, False])
    assert ece == 0.0 and brier == 0.0
    ece, brier = calibration([0.9, 0.9], [True, False])
    assert ece == pytest.approx(0.4) and brier == pytest.approx((0.01 + 0.81) / 2)


def test_scifact_gold_labels():
    claim = {"evidence": {"12": [{"sentences": [1, 3], "label": "CONTRADICT"}]}}
    labels, sentences, claim_label = gold_of(claim)
    assert labels == {"12": "CONTRADICT"} and sentences == {"12": {1, 3}} and claim_label == "CONTRADICT"
    assert gold_of({"evidence": {}})[2] == "NOT_ENOUGH_INFO"


def test_scifact_predicted_abstract_is_the_strongest_contribution_to_the_verdict():
    from agent.records import Hypothesis, LedgerEntry

    def entry(record_id, stance, confidence, weight, index):
        return LedgerEntry(
            hypothesis_id="H1",
            record_id=record_id,
            sentence_index=index,
            text="t",
            stance=stance,
            confidence=confidence,
            weight=weight,
        )

    answer = SimpleNamespace(
        verdict="SUPPORT",
        hypotheses=[
            Hypothesis(id="H1", text="claim", polarity=1),
            Hypothesis(id="H2", text="not claim", claim="claim", polarity=-1),
        ],
        ledger=[
            entry("top", "SUPPORT", 0.6, 1.0, 2),
            entry("fifth", "SUPPORT", 0.9, 0.04, 0),
            entry("top", "CONTRADICT", 0.99, 1.0, 4),
        ],
    )
    labels, sentences = predictions_of(answer)
    assert labels == {"top": "SUPPORT"} and sentences == {"top": {2}}
    assert predictions_of(SimpleNamespace(verdict="NOT_ENOUGH_INFO", hypotheses=[], ledger=[])) == ({}, {})
    window = entry("top", "SUPPORT", 0.7, 1.0, 5).model_copy(update={"sentence_end": 8})
    assert predictions_of(
        SimpleNamespace(verdict="SUPPORT", hypotheses=answer.hypotheses, ledger=[*answer.ledger, window])
    )[1] == {"top": {2, 5, 6, 7}}


def test_scifact_mcq_pairs_a_supported_and_a_contradicted_claim_of_one_abstract():
    def claim(cid, label, doc="7"):
        return {
            "id": cid,
            "claim": f"claim {cid}",
            "evidence": {doc: [{"label": label, "sentences": [0]}]} if label else {},
        }

    claims = [
        claim(1, "SUPPORT"),
        claim(2, "CONTRADICT"),
        claim(3, "CONTRADICT"),
        claim(4, "SUPPORT", doc="9"),
        claim(5, None),
    ]
    pairs = contrast_pairs(claims)
    assert [(s["id"], c["id"]) for s, c in pairs] == [(1, 2), (1, 3)]
    assert question_of(0, *pairs[0]) == (["claim 1", "claim 2"], 0)
    assert question_of(1, *pairs[1]) == (["claim 3", "claim 1"], 1)


def test_pubmedqa_lean_decision_is_scored_with_the_leading_answers_confidence():
    def answer(abstained, yes, no):
        hypotheses = [SimpleNamespace(polarity=1, score=yes), SimpleNamespace(polarity=-1, score=no)]
        return SimpleNamespace(
            abstained=abstained,
            verdict=None if abstained else "SUPPORT",
            hypotheses=hypotheses,
            confidence=0.6,
            leading_confidence=0.35,
        )

    assert lean_confidence(answer(True, 0.4, 0.1)) == 0.35  # abstained but leaned "yes"
    assert lean_confidence(answer(True, 0.0, 0.0)) == 0.6  # nothing to lean on: "maybe", the abstention's
    assert lean_confidence(answer(False, 0.4, 0.1)) == 0.6


def _answer(
    adjudication=None, *, selected=None, verdict=None, abstained=False, fallbacks=(), llm_calls=0, judged=(None,)
):
    from agent.records import Adjudication, Answer, Hypothesis, LedgerEntry, Status, Usage

    hypotheses = [
        Hypothesis(id="H1", text="option A", origin="option", option_index=0, polarity=1, score=0.4),
        Hypothesis(id="H2", text="option B", origin="option", option_index=1, polarity=-1, score=0.6),
    ]
    ledger = [
        LedgerEntry(
            hypothesis_id="H1", record_id=f"r{i}", text="t", stance="SUPPORT", confidence=0.9, weight=1.0, judged_by=j
        )
        for i, j in enumerate(judged)
    ]
    return Answer(
        status=Status.ANSWERED,
        task="mcq",
        question="q",
        answer="a",
        confidence=0.5,
        selected_option=selected,
        verdict=verdict,
        abstained=abstained,
        hypotheses=hypotheses,
        ledger=ledger,
        usage=Usage(llm_calls=llm_calls, fallbacks=list(fallbacks)),
        adjudication=None if adjudication is None else Adjudication(model="llamacpp:m", **adjudication),
    )


def test_fallback_kind_names_the_role_and_the_failure():
    from evals.report import fallback_kind

    assert (
        fallback_kind(
            "stance: heuristic judged 3 of 16 pairs (ModelUnavailable: no reply within the fast role's deadline (40 s))"
        )
        == "stance ModelUnavailable"
    )
    assert (
        fallback_kind(
            "plan: extractive (ValueError: chat model gave no valid PlanOut after 2 attempts: queries: missing)"
        )
        == "plan ValueError"
    )
    assert (
        fallback_kind("synthesize: extractive (no model sentence cites a ledger record it was shown)") == "synthesize"
    )


def test_followed_blend_compares_the_reported_answer_with_the_blend_choice():
    from evals.report import followed_blend

    chose_b = {"model_choice": "H2", "evidence_choice": "H1", "blend": {"H1": 0.4, "H2": 0.6}, "choice": "H2"}
    assert followed_blend(_answer(chose_b, selected=1)) is True
    assert (
        followed_blend(_answer(chose_b, selected=0)) is False
    )  # the answer reported the evidence's option, not the blend's
    assert followed_blend(_answer(chose_b, abstained=True)) is False
    assert (
        followed_blend(_answer(chose_b, verdict="CONTRADICT")) is True
    )  # H2 has polarity -1: the claim is contradicted
    assert followed_blend(_answer(chose_b, verdict="SUPPORT")) is False
    abstain = {"model_choice": None, "blend": {"H1": 0.25, "H2": 0.28}, "choice": None, "abstained": True}
    assert followed_blend(_answer(abstain, abstained=True)) is True
    assert followed_blend(_answer(abstain, selected=1)) is False
    assert followed_blend(_answer(None, selected=1)) is None  # no model adjudicated


def test_chat_model_usage_counts_calls_fallbacks_and_blend():
    from evals.report import chat_model_usage

    chose_b = {
        "model_choice": "H2",
        "evidence_choice": "H1",
        "blend": {"H1": 0.4, "H2": 0.6},
        "choice": "H2",
        "contested": True,
    }
    answers = [
        _answer(
            chose_b,
            selected=1,
            llm_calls=5,
            judged=("llm", None),
            fallbacks=["stance: heuristic judged 1 of 2 pairs (ModelUnavailable: x)"],
        ),
        _answer(
            None,
            selected=0,
            llm_calls=3,
            fallbacks=[
                "adjudicate: extractive (ValueError: y)",
                "synthesize: extractive (no model sentence cites a ledger record it was shown)",
            ],
        ),
    ]
    usage = chat_model_usage(answers)
    assert usage["llm_calls_per_question"] == 4.0
    assert usage["fallbacks"] == 3 and usage["questions_with_fallbacks"] == 2
    assert usage["fallbacks_by_kind"] == {"adjudicate ValueError": 1, "stance ModelUnavailable": 1, "synthesize": 1}
    assert usage["ledger_judged_by_model"] == 1 / 3
    assert (usage["adjudicated"], usage["followed_blend"], usage["contested"], usage["model_agrees_with_evidence"]) == (
        1,
        1,
        1,
        0,
    )
    assert chat_model_usage([_answer(None, selected=0)])["fallbacks"] == 0
