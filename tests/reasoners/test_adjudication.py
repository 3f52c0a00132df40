"""With a chat model the model adjudicates and the evidence checks it (issue 17): per-hypothesis judgements on the
ledger passages it was shown, blended 70 / 30 with the evidence; the answer follows the blend, abstains below the
threshold, and a strong disagreement between model and evidence is a contested point the court's edge may loop on."""

from __future__ import annotations

import pytest

from agent.backend import register_backend
from agent.config import Context
from agent.graph import graph
from agent.interfaces import ModelVerdict
from agent.reasoners.chat import AdjudicationOut, checked_verdict
from agent.records import Hypothesis, HypothesisJudgement, LedgerEntry, Status
from agent.scoring.adjudication import blend
from tests.fakes import ListSource, SchemaChat, chat_reasoner, make_backend, record, unique_backend_name

QUESTION = "Which drug increases insulin sensitivity in adults with prediabetes?"
OPTIONS = ["metformin", "aspirin"]
RECORDS = [
    record(
        f"m{i}",
        f"Metformin trial {i}",
        f"Metformin increases insulin sensitivity in adults with prediabetes, cohort {i}.",
        f"Aspirin was given to {20 + i} controls.",
    )
    for i in range(3)
]


def run(question, backend, options=None, mode="ask", **settings):
    name = unique_backend_name()
    register_backend(name, backend)
    out = graph.invoke(
        {"question": question, "options": options or [], "mode": mode},
        {"recursion_limit": 100},
        context=Context(backend=name, max_claims=0, **settings),
    )
    return out["answer"]


def judge(p_first: float, p_second: float, choice: str) -> dict:
    return {
        "judgements": [
            {
                "hypothesis": "H1",
                "judgement": "holds" if p_first > 0.5 else "fails",
                "probability": p_first,
                "evidence": ["E1"],
            },
            {
                "hypothesis": "H2",
                "judgement": "holds" if p_second > 0.5 else "fails",
                "probability": p_second,
                "evidence": ["E1"],
            },
        ],
        "choice": choice,
    }


def mcq_model(adjudication: dict) -> SchemaChat:
    return SchemaChat(
        replies={
            "PlanOut": [{"queries": ["metformin insulin sensitivity"], "entities": ["metformin"], "numbers": []}],
            "QueriesOut": [
                {"queries": [{"text": "metformin insulin sensitivity trial", "intent": "confirm", "hypothesis": 1}]}
            ],
            "AdjudicationOut": [adjudication],
            "AnswerOut": [
                {
                    "answer": "Metformin.",
                    "sentences": [
                        {"text": "Metformin raised insulin sensitivity in three cohorts.", "citations": ["m0"]}
                    ],
                }
            ],
        }
    )


def test_blend_is_seventy_percent_model_thirty_percent_evidence():
    hypotheses = [Hypothesis(id=f"H{i + 1}", text=t, origin="option", option_index=i) for i, t in enumerate("abc")]
    verdict = ModelVerdict(
        model="fake:model",
        choice="H2",
        judgements=[
            HypothesisJudgement(hypothesis_id="H1", judgement="fails", probability=0.1, evidence=["r1"]),
            HypothesisJudgement(hypothesis_id="H2", judgement="holds", probability=0.8, evidence=["r2"]),
            HypothesisJudgement(hypothesis_id="H3", judgement="fails", probability=0.1, evidence=["r3"]),
        ],
    )
    out = blend(hypotheses, verdict, [0.6, 0.3, 0.1], model_share=0.7, abstain_below=0.3, contested_share=0.7)
    assert out.blend == pytest.approx(
        {"H1": 0.7 * 0.1 + 0.3 * 0.6, "H2": 0.7 * 0.8 + 0.3 * 0.3, "H3": 0.7 * 0.1 + 0.3 * 0.1}
    )
    assert (out.model_choice, out.evidence_choice, out.choice, out.abstained) == ("H2", "H1", "H2", False)
    flat = blend(hypotheses, verdict.model_copy(update={"judgements": [], "choice": None}), [1 / 3] * 3, 0.7, 0.4, 0.7)
    assert flat.abstained and flat.choice is None, (
        "an uninformative model and even evidence: below the threshold, abstain"
    )


def test_mcq_evidence_favours_a_model_favours_b_and_the_answer_follows_the_blend():
    answer = run(
        QUESTION, make_backend([ListSource(RECORDS)], reasoner=chat_reasoner(mcq_model(judge(0.1, 0.9, "H2")))), OPTIONS
    )
    adj = answer.adjudication
    assert adj is not None and adj.model == "fake:model"
    assert (
        adj.evidence_choice == "H1" and adj.model_choice == "H2"
    )  # the evidence is about metformin; the model says aspirin
    share = adj.evidence_share
    assert adj.blend["H1"] == pytest.approx(0.7 * 0.1 + 0.3 * share["H1"], abs=1e-3)
    assert adj.blend["H2"] == pytest.approx(0.7 * 0.9 + 0.3 * share["H2"], abs=1e-3)
    assert adj.choice == "H2" and answer.selected_option == 1 and answer.answer.startswith("(B) aspirin")
    assert {j.hypothesis_id: j.judgement for j in adj.judgements} == {"H1": "fails", "H2": "holds"}
    assert all(set(j.evidence) <= {r.id for r in RECORDS} for j in adj.judgements), "judgements cite ledger records"
    assert answer.confidence == pytest.approx(adj.blend["H2"], abs=1e-3)


def test_mcq_model_and_evidence_agree():
    answer = run(
        QUESTION, make_backend([ListSource(RECORDS)], reasoner=chat_reasoner(mcq_model(judge(0.9, 0.1, "H1")))), OPTIONS
    )
    adj = answer.adjudication
    assert adj.model_choice == adj.evidence_choice == adj.choice == "H1" and not adj.contested
    assert adj.blend["H1"] == pytest.approx(0.7 * 0.9 + 0.3 * adj.evidence_share["H1"], abs=1e-3)
    assert answer.status == Status.ANSWERED and answer.selected_option == 0


def test_mcq_blend_below_the_threshold_abstains():
    answer = run(
        QUESTION,
        make_backend([ListSource(RECORDS)], reasoner=chat_reasoner(mcq_model(judge(0.5, 0.5, "abstain")))),
        OPTIONS,
        adjudication_abstain_below=0.9,
    )
    assert answer.adjudication.abstained and answer.adjudication.model_choice is None
    assert answer.abstained and answer.status == Status.INSUFFICIENT_EVIDENCE and answer.selected_option is None


def test_claim_strong_disagreement_is_contested_and_loops():
    claim = "Metformin increases insulin sensitivity in adults with prediabetes"
    model = SchemaChat(
        replies={
            "PlanOut": [{"queries": ["metformin insulin sensitivity"]}],
            "QueriesOut": [
                {"queries": [{"text": "metformin insulin sensitivity trial", "intent": "confirm", "hypothesis": 1}]}
            ],
            "AdjudicationOut": [judge(0.05, 0.95, "H2")],
            "AnswerOut": [
                {
                    "answer": "x",
                    "sentences": [{"text": "Metformin raised insulin sensitivity in cohort 0.", "citations": ["m0"]}],
                }
            ],
        }
    )
    answer = run(
        claim,
        make_backend([ListSource(RECORDS)], reasoner=chat_reasoner(model)),
        mode="verify",
        max_discrimination_rounds=1,
    )
    courts = [d for d in answer.decisions if d.at == "court"]
    assert (
        courts[0].next == "discriminate" and "model and evidence disagree (model H2, evidence H1)" in courts[0].reason
    )
    assert answer.adjudication.contested and any("contested" in n for n in answer.notes)


def test_offline_runs_have_no_adjudication():
    answer = run(QUESTION, make_backend([ListSource(RECORDS)]), OPTIONS)
    assert answer.adjudication is None and all(e.judged_by is None for e in answer.ledger)


def test_citations_are_checked_against_the_passages_shown():
    shown = {"E1": LedgerEntry(hypothesis_id="H1", record_id="m0", text="t", stance="SUPPORT", confidence=0.9)}
    out = AdjudicationOut.model_validate(
        {
            "judgements": [
                {"hypothesis": "H1", "judgement": "holds", "probability": 1.7, "evidence": ["E1", "E9", "H2 NEUTRAL"]},
                {
                    "hypothesis": "H2",
                    "judgement": "holds",
                    "probability": 0.9,
                    "evidence": ["m0"],
                },  # a record id, not a shown passage id
                {"hypothesis": "1.2", "judgement": "holds", "probability": 0.9, "evidence": ["E1"]},
            ],
            "choice": "H2",
        }
    )
    verdict = checked_verdict(out, {"H1", "H2"}, shown, "fake:model")
    assert [(j.hypothesis_id, j.probability, j.evidence) for j in verdict.judgements] == [("H1", 1.0, ["m0"])]
    assert verdict.choice is None, "its choice rests on a judgement that cited nothing it was shown"
    assert any("E9" in n for n in verdict.notes) and any("H2" in n and "not counted" in n for n in verdict.notes)
