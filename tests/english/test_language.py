"""Questions in another language are refused with a clear reason (issue 39, item 6): "¿La suplementación con vitamina
D reduce el riesgo de fracturas óseas?" was answered "the retrieved evidence does not address the question", and
"Aspirin senkt das Risiko für Darmkrebs." negated as "It is not the case that aspirin senkt das Risiko für Darmkrebs".
English questions full of Latin, gene and chemical names must never be refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.english.language import LanguageError, foreign_language, require_english
from agent.errors import InputError
from agent.inputs import validate_question
from tests.conftest import DATA

HERE = Path(__file__).resolve().parent.parent
FOREIGN = [
    json.loads(line)
    for line in (HERE / "data" / "non_english_questions.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]
EVALS = HERE.parent / "evals" / "data"


def test_the_test_set_covers_at_least_ten_questions_in_six_languages():
    assert len(FOREIGN) >= 10 and {"es", "de", "fr", "it", "pt", "nl"} <= {item["language"] for item in FOREIGN}


@pytest.mark.parametrize("item", FOREIGN, ids=lambda item: item["question"][:40])
def test_a_question_in_another_language_is_named_as_such(item):
    assert foreign_language(item["question"]) == item["language"]
    with pytest.raises(LanguageError, match="SPARKIT reads questions in English") as raised:
        validate_question(item["question"])
    assert isinstance(raised.value, InputError) and raised.value.language == item["language"]


def test_the_message_names_the_language():
    with pytest.raises(LanguageError) as raised:
        require_english("Aspirin senkt das Risiko für Darmkrebs.")
    assert (
        str(raised.value)
        == "SPARKIT reads questions in English, and this one reads as German (de): please ask it in English"
    )


ENGLISH_WITH_NAMES = [
    "Does spontaneous remission occur in polyarteritis nodosa?",  # langid: Latin, 0.36
    "Are laboratories reporting serum quantitative hCG results correctly?",  # langid: Latin, 0.59
    "Pyridostatin deregulates G2/M progression.",
    "TNFAIP3 is a glioblastoma tumor suppressor.",
    "Is Chaalia/Pan Masala harmful for health?",
    "Does Escherichia coli O157:H7 cause hemolytic uremic syndrome in children?",
    "Is Helicobacter pylori eradication associated with lower gastric cancer incidence?",
    "Does 5-fluorouracil plus leucovorin improve survival in colorectal cancer?",
    "Does la Crosse virus cause encephalitis?",
]


@pytest.mark.parametrize("question", ENGLISH_WITH_NAMES)
def test_english_with_latin_gene_and_chemical_names_is_english(question):
    assert foreign_language(question) is None
    validate_question(question)


def test_no_question_of_the_projects_english_question_sets_is_refused():
    questions = [
        json.loads(line)["question"]
        for name in ("off_topic.jsonl", "open_questions.jsonl")
        for line in (EVALS / name).read_text(encoding="utf-8").splitlines()
        if line
    ]
    assert len(questions) > 150
    assert [q for q in questions if foreign_language(q)] == []


@pytest.mark.skipif(not (DATA / "scifact" / "claims_train.jsonl").exists(), reason=f"SciFact not found under {DATA}")
def test_no_scifact_claim_is_refused():
    claims = [
        json.loads(line)["claim"]
        for line in (DATA / "scifact" / "claims_train.jsonl").read_text(encoding="utf-8").splitlines()
        if line
    ]
    assert len(claims) == 809
    assert [c for c in claims if foreign_language(c)] == []
