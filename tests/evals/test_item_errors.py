"""One bad item does not end an eval (issue 46, item 2): a 500-question PubMedQA run ended after 126 answers, exit 2
and no table, when the language gate refused one question. Each eval is fed one refused item among good ones: the
refused item is written to the answers file as its ERROR answer, the table scores the rest and says `errors: 1` and
which item, the exit code is 1, and a rerun with the same answers file retries only that item. Scripted asks stand in
for the graph; the refusal is the real input check (agent.inputs.validate_question)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.config import Context
from agent.inputs import validate_question
from agent.records import Answer, Hypothesis, Status
from evals import off_topic, open_questions, pubmedqa, scifact, scifact_mcq, stance
from evals.failures import FAILED
from evals.sweep import Sweep, run

GERMAN = "Aspirin senkt das Risiko für Darmkrebs."
asked: list[str] = []
refuse = {"on": True}  # a rerun after the cause is fixed: the refused item is answered


def answer_to(question: str, verdict: str = "SUPPORT", **extra: Any) -> Answer:
    """What a run answers, after the input check every API call makes."""
    asked.append(question)
    if refuse["on"]:
        validate_question(question)
    return Answer(
        status=Status.ANSWERED,
        task="claim",
        question=question,
        answer=verdict,
        verdict=verdict,
        confidence=0.7,
        hypotheses=[Hypothesis(id="H1", text=question, origin="claim", polarity=1, score=0.5)],
        **extra,
    )


@pytest.fixture(autouse=True)
def fresh():
    asked.clear()
    refuse["on"] = True


def results_of(main, argv: list[str], capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert "errors" in out  # the table's row, above the JSON line
    return code, json.loads(out.splitlines()[-1])


def check(main, argv: list[str], answers: Path, capsys, count_key: str, total: int, bad_id: str) -> None:
    """The eval finishes with its table, one error named, the rest scored, exit 1; a rerun retries only that item."""
    code, results = results_of(main, [*argv, "--answers", str(answers)], capsys)
    assert code == FAILED and results["errors"] == 1 and results[count_key] == total - 1
    assert results["failed_items"] == f"{bad_id} (LanguageError)"
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    [failed] = [line for line in lines if line["status"] == "ERROR"]
    assert len(lines) == total and failed["sweep"]["id"] == bad_id and "LanguageError" in failed["answer"]
    asked.clear()
    refuse["on"] = False
    code, results = results_of(main, [*argv, "--answers", str(answers)], capsys)
    assert len(asked) == 1 and code == 0 and results["errors"] == 0 and results[count_key] == total
    assert "failed_items" not in results


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


CLAIMS = [
    {"id": 1, "claim": "Statins lower LDL cholesterol.", "evidence": {"11": [{"label": "SUPPORT", "sentences": [0]}]}},
    {"id": 2, "claim": GERMAN, "evidence": {"12": [{"label": "SUPPORT", "sentences": [0]}]}},
    {
        "id": 3,
        "claim": "Statins raise LDL cholesterol.",
        "evidence": {"11": [{"label": "CONTRADICT", "sentences": [0]}]},
    },
    {"id": 4, "claim": "Aspirin lowers fever.", "evidence": {}},
]
CORPUS = [{"doc_id": d, "title": "t", "abstract": ["A sentence."]} for d in (11, 12)]


def claims_args(tmp_path: Path, claims: list[dict] = CLAIMS) -> list[str]:
    files = write_jsonl(tmp_path / "claims.jsonl", claims), write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    return ["--claims", str(files[0]), "--corpus", str(files[1]), "--split", "all"]


def test_scifact(tmp_path, capsys, monkeypatch):
    async def ask(context: Context, claim: dict) -> Answer:
        return answer_to(claim["claim"])

    monkeypatch.setattr(scifact, "ask_claim", ask)
    check(scifact.main, claims_args(tmp_path), tmp_path / "a.jsonl", capsys, "claims", 4, "2")


def test_scifact_mcq(tmp_path, capsys, monkeypatch):
    pairs = [
        *CLAIMS[:3],
        {
            "id": 5,
            "claim": "Ibuprofen hilft gegen Fieber.",
            "evidence": {"12": [{"label": "CONTRADICT", "sentences": [0]}]},
        },
    ]

    async def ask(context: Context, question: tuple[list[str], int]) -> Answer:
        options, _ = question
        asked.append(" | ".join(options))
        if refuse["on"]:
            for option in options:  # an option in another language, refused as a question would be
                validate_question(option)
        return Answer(status=Status.ANSWERED, task="mcq", question="q", answer="(A)", confidence=0.6, selected_option=0)

    monkeypatch.setattr(scifact_mcq, "ask_question", ask)
    check(scifact_mcq.main, claims_args(tmp_path, pairs), tmp_path / "a.jsonl", capsys, "questions", 2, "2/5")


def test_pubmedqa(tmp_path, capsys, monkeypatch):
    items = {
        str(pmid): {"QUESTION": question, "CONTEXTS": ["Some context."], "final_decision": "yes"}
        for pmid, question in ((101, "Do statins lower LDL?"), (102, GERMAN + "?"), (103, "Does aspirin lower fever?"))
    }
    data = tmp_path / "pqal.json"
    data.write_text(json.dumps(items))

    async def ask(context: Context, question: tuple[str, dict]) -> Answer:
        return answer_to(question[1]["QUESTION"])

    monkeypatch.setattr(pubmedqa, "ask_item", ask)
    check(pubmedqa.main, ["--data", str(data)], tmp_path / "a.jsonl", capsys, "questions", 3, "102")


def test_off_topic(tmp_path, capsys, monkeypatch):
    questions = [
        {"id": "ot-1", "question": "What is the boiling point of water?", "domain": "physics", "split": "heldout"},
        {"id": "ot-2", "question": "Wie hoch ist der Mount Everest?", "domain": "everyday", "split": "heldout"},
        {"id": "ot-3", "question": "Who wrote Hamlet?", "domain": "everyday", "split": "heldout"},
    ]

    async def ask(context: Context, item: dict) -> Answer:
        return answer_to(item["question"])

    monkeypatch.setattr(off_topic, "ask_question", ask)
    monkeypatch.setattr(off_topic, "load_off_topic", lambda: questions)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    check(off_topic.main, ["--corpus", str(corpus)], tmp_path / "a.jsonl", capsys, "questions", 3, "ot-2")


def test_open_questions(tmp_path, capsys, monkeypatch):
    questions = write_jsonl(
        tmp_path / "open.jsonl",
        [
            {"id": "oq-1", "question": "What do statins lower?", "scifact_claim": 1, "split": "heldout"},
            {"id": "oq-2", "question": "Was senkt das Risiko für Darmkrebs?", "scifact_claim": 2, "split": "heldout"},
            {"id": "oq-3", "question": "What lowers fever?", "scifact_claim": 4, "split": "heldout"},
        ],
    )
    monkeypatch.setattr(open_questions, "QUESTIONS", questions)

    async def ask(context: Context, item: dict) -> Answer:
        return answer_to(item["question"])

    monkeypatch.setattr(open_questions, "ask_question", ask)
    args = claims_args(tmp_path)
    check(open_questions.main, [*args[:4], "--split", "all"], tmp_path / "a.jsonl", capsys, "questions", 3, "oq-2")


class RefusingJudge:
    """A stance judge that refuses a statement in another language, as the input check would."""

    name = "refusing"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[Any]:
        for statement, _ in pairs:
            validate_question(statement)
        return [type("Read", (), {"stance": "SUPPORT"})() for _ in pairs]


def test_stance(tmp_path, capsys, monkeypatch):
    data = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"statement": "Aspirin lowers fever.", "passage": "Fever fell after aspirin.", "label": "SUPPORT"},
            {"statement": GERMAN, "passage": "Aspirin reduced colorectal cancer.", "label": "SUPPORT"},
            {"statement": "Statins lower LDL.", "passage": "LDL rose on statins.", "label": "CONTRADICT"},
        ],
    )
    monkeypatch.setattr(stance, "stance_judge", lambda **overrides: RefusingJudge())
    code, results = results_of(stance.main, ["--data", str(data)], capsys)
    assert code == FAILED and results["errors"] == 1 and results["pairs"] == 2
    assert results["failed_items"] == f"pair 1 of {GERMAN} (LanguageError)"
    assert sum(results["confusion"].values()) == 2 and results["accuracy"] == 0.5


def test_a_question_past_the_timeout_and_one_that_raises_are_recorded_and_the_rest_answered(tmp_path):
    async def ask(context: Context, item: str) -> Answer:
        if item == "slow":
            await asyncio.sleep(5)
        if item == "broken":
            raise RuntimeError("the backend fell over")
        return answer_to(f"Does {item} work?")

    items = ["aspirin", "slow", "broken", "statins"]
    sweep = Sweep(ask=ask, context=Context(), items=items, ids=items, settings={}, answers=None, timeout=0.2)
    answered = run(sweep)
    assert [a.answer.status for a in answered] == [Status.ANSWERED, Status.ERROR, Status.ERROR, Status.ANSWERED]
    assert answered[1].answer.answer == "Item failed: TimeoutError"
    assert answered[2].answer.answer == "Item failed: RuntimeError: the backend fell over"
