"""evals.open_questions scores an open answer by whether its answer line rests on, and states, the gold abstract."""

from __future__ import annotations

import pytest

from agent.english.questions import classify_task, is_polar
from agent.errors import InputError
from agent.literature import Citation
from agent.records import Answer, LedgerEntry, Status
from evals import open_questions
from evals.open_questions import QUESTIONS, headline_ids, load_questions, read_jsonl, score, summarise

CORPUS = {
    "11705328": ["Background.", "Folate deficiency raised plasma homocysteine concentrations in these adults."],
    "9": ["Other."],
}
ITEM = {"gold": ["11705328"], "rationales": {"11705328": [1]}}


def answer(line: str, status: Status = Status.ANSWERED, cited=("11705328",), judged=("11705328",)) -> Answer:
    return Answer(
        status=status,
        task="open",
        question="What is the effect of folate deficiency on blood homocysteine?",
        answer=line,
        confidence=0.6,
        citations=[Citation(id=rid, title="t") for rid in cited],
        ledger=[
            LedgerEntry(hypothesis_id="H1", record_id=rid, text="x", stance="SUPPORT", confidence=0.9) for rid in judged
        ],
    )


def test_an_answer_line_that_states_the_gold_rationale_from_the_gold_abstract_scores_on_every_count():
    outcome = score(
        ITEM,
        answer(
            "Folate deficiency raised plasma homocysteine concentrations in these adults [11705328] (confidence 0.60)."
        ),
        CORPUS,
    )
    assert outcome == {
        "answered": True,
        "headline_on_gold": True,
        "headline_is_rationale": True,
        "cites_gold": True,
        "gold_in_court": True,
    }


def test_an_answer_line_from_another_abstract_is_not_on_gold_even_when_a_gold_quote_sits_under_it():
    outcome = score(
        ITEM, answer("Vitamin B12 status predicts anaemia [9] (confidence 0.50).", cited=("9", "11705328")), CORPUS
    )
    assert outcome["answered"] and not outcome["headline_on_gold"] and not outcome["headline_is_rationale"]
    assert outcome["cites_gold"] and outcome["gold_in_court"]
    declined = score(
        ITEM, answer("Insufficient evidence: ...", Status.INSUFFICIENT_EVIDENCE, cited=(), judged=("9",)), CORPUS
    )
    assert declined == {
        "answered": False,
        "headline_on_gold": False,
        "headline_is_rationale": False,
        "cites_gold": False,
        "gold_in_court": False,
    }
    summary = summarise([outcome, declined], [1.0, 3.0])
    assert summary["coverage"] == 0.5 and summary["precision_when_answering"] == 0.0 and summary["gold_in_court"] == 0.5


def test_headline_ids_reads_every_bracketed_citation():
    assert headline_ids("A [1, 22] and B [333] (confidence 0.4).") == ["1", "22", "333"]


def test_the_questions_are_open_wh_questions_each_from_one_claim():
    items = read_jsonl(QUESTIONS)
    assert len(items) >= 60 and {i["split"] for i in items} == {"tune", "heldout"}
    assert all(classify_task(i["question"], []) == "open" and not is_polar(i["question"]) for i in items)
    assert len({i["scifact_claim"] for i in items}) == len(items)


def test_each_question_gets_its_claims_gold_abstracts_and_a_missing_claim_is_an_input_error(tmp_path, monkeypatch):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"id": "oq-t01", "question": "What do neutrophils produce?", "scifact_claim": 846, "split": "tune"}\n'
    )
    monkeypatch.setattr(open_questions, "QUESTIONS", questions)
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        '{"id": 846, "claim": "c", "evidence": {"22696649": [{"label": "SUPPORT", "sentences": [2, 3]}]}}\n'
    )
    [item] = load_questions("tune", claims)
    assert item["gold"] == ["22696649"] and item["rationales"] == {"22696649": [2, 3]}
    assert load_questions("heldout", claims) == []
    claims.write_text('{"id": 847, "claim": "c", "evidence": {}}\n')
    with pytest.raises(InputError, match="has no claim 846"):
        load_questions("tune", claims)
