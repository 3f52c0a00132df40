"""A chat model's "not enough" binds (issue 58): an adjudicating model that abstains, or an answer that says
"insufficient evidence", leaves the run without a stated SUPPORT / CONTRADICT: INSUFFICIENT_EVIDENCE, or a LEANING
answer that says why, by a rule that fires with two hypotheses."""

from __future__ import annotations

import pytest

from agent.backend import register_backend
from agent.config import Context
from agent.graph import graph
from agent.interfaces import ModelVerdict
from agent.reasoners.chat import AdjudicationOut, checked_verdict
from agent.records import Hypothesis, HypothesisJudgement, LedgerEntry, Status
from agent.scoring.adjudication import blend
from tests.fakes import ListSource, SchemaChat, chat_reasoner, make_backend, unique_backend_name
from tests.reasoners.test_adjudication import RECORDS  # the three metformin trials the adjudication tests read

CLAIM = "Metformin increases insulin sensitivity in adults with prediabetes"
TWO = [
    Hypothesis(id="H1", text=CLAIM, origin="claim"),
    Hypothesis(id="H2", text=f"Not: {CLAIM}", origin="negation", claim=CLAIM, polarity=-1),
]


def adjudication(choice: str, judgement: str = "holds") -> dict:
    return {
        "reasoning": "Three cohorts report higher insulin sensitivity; none reports the opposite.",
        "judgements": [
            {"hypothesis": "H1", "reason": "cohorts", "judgement": judgement, "probability": 0.8, "evidence": ["E1"]},
            {"hypothesis": "H2", "reason": "none", "judgement": "undecided", "probability": 0.2, "evidence": []},
        ],
        "choice": choice,
    }


def model(adjudicated: dict, answer: str = "Metformin increases insulin sensitivity.") -> SchemaChat:
    return SchemaChat(
        replies={
            "PlanOut": [{"queries": ["metformin insulin sensitivity"]}],
            "QueriesOut": [{"queries": [{"text": "metformin insulin sensitivity", "hypothesis": 1}]}],
            "AdjudicationOut": [adjudicated],
            "AnswerOut": [
                {
                    "answer": answer,
                    "sentences": [{"text": "Metformin raised insulin sensitivity in cohort 0.", "citations": ["m0"]}],
                }
            ],
        }
    )


def run(chat: SchemaChat, **settings):
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)], reasoner=chat_reasoner(chat)))
    return graph.invoke(
        {"question": CLAIM, "options": [], "mode": "verify"},
        {"recursion_limit": 100},
        context=Context(backend=name, max_claims=0, max_discrimination_rounds=0, **settings),
    )["answer"]


def test_the_same_run_states_a_verdict_when_the_model_chooses():
    answer = run(model(adjudication("H1")))
    assert answer.verdict == "SUPPORT" and answer.status in (Status.ANSWERED, Status.LEANING)


@pytest.mark.parametrize("choice", ["abstain", "undecided", "Abstain."])
def test_a_model_that_abstains_yields_no_stated_support_or_contradict(choice):
    answer = run(model(adjudication(choice)))
    assert answer.adjudication is not None and answer.adjudication.model_abstained
    assert answer.verdict not in ("SUPPORT", "CONTRADICT")
    assert answer.status in (Status.INSUFFICIENT_EVIDENCE, Status.LEANING)
    if answer.status == Status.LEANING:
        assert "No verdict is stated" in answer.answer and "abstained" in answer.stop_reason
    else:
        assert "abstained" in answer.stop_reason


def test_every_hypothesis_undecided_is_an_abstention():
    out = AdjudicationOut.model_validate({**adjudication("H1", judgement="undecided")})
    shown = {"E1": LedgerEntry(hypothesis_id="H1", record_id="m0", text="t", stance="SUPPORT", confidence=0.9)}
    verdict = checked_verdict(out, {"H1", "H2"}, shown, "fake:model")
    assert verdict.abstained and verdict.choice is None


def test_an_insufficient_evidence_answer_yields_no_stated_verdict():
    for answer_line in ("Insufficient evidence: the cohorts measured another outcome.", "Not enough evidence."):
        answer = run(model(adjudication("H1"), answer=answer_line))
        assert answer.verdict not in ("SUPPORT", "CONTRADICT"), answer_line
        assert "insufficient" in answer.stop_reason


def test_the_rule_fires_with_two_hypotheses():
    """Two hypotheses: the best blend is at least 0.5, so a blend threshold of 0.3 can never abstain; an abstaining
    model does, unless the evidence alone holds abstain_lean_share, and then the run can only lean."""
    abstaining = ModelVerdict(
        model="m",
        abstained=True,
        judgements=[HypothesisJudgement(hypothesis_id="H1", judgement="undecided", probability=0.9)],
    )
    even = blend(TWO, abstaining, [0.6, 0.4], 0.7, 0.3, 0.7, lean_share=0.7)
    assert even.abstained and even.choice is None and even.model_abstained
    assert even.model_probability == {"H1": 0.5, "H2": 0.5}, "an abstaining model's probabilities are not counted"
    clear = blend(TWO, abstaining, [0.9, 0.1], 0.7, 0.3, 0.7, lean_share=0.7)
    assert not clear.abstained and clear.choice == "H1" and clear.model_abstained
    chooses = blend(TWO, abstaining.model_copy(update={"abstained": False}), [0.6, 0.4], 0.7, 0.3, 0.7)
    assert not chooses.abstained and chooses.choice == "H1"


def test_the_cli_shows_how_many_llm_calls_were_retries():
    from agent.answer.text import render

    answer = run(model(adjudication("H1")))
    assert "retries)" not in render(answer)
    retried = answer.model_copy(update={"usage": answer.usage.model_copy(update={"llm_retries": 2})})
    assert f"{answer.usage.llm_calls} LLM calls (2 of them retries)" in render(retried)
