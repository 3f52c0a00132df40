"""Questions in another language are refused with a clear reason (issue 39, item 6): "¿La suplementación con vitamina
D reduce el riesgo de fracturas óseas?" was answered "the retrieved evidence does not address the question", and
"Aspirin senkt das Risiko für Darmkrebs." negated as "It is not the case that aspirin senkt das Risiko für Darmkrebs".
English questions full of Latin, gene and chemical names must never be refused (issue 46, item 1: "Xanthogranulomatous
cholecystitis: a premalignant condition?" was refused as French); where the gate is unsure the question is answered,
with a note that it may not be English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.english.language import LanguageError, foreign_language, language_note, read_language, require_english
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


def test_the_test_set_covers_eight_more_languages_than_issue_39s():
    issue_39 = {"es", "de", "fr", "it", "pt", "nl", "sv", "pl", "ru", "zh", "ja"}
    added = {item["language"] for item in FOREIGN} - issue_39
    assert len(added) >= 8 and all(sum(item["language"] == code for item in FOREIGN) >= 1 for code in added)


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
    # refused before issue 46 (the language langid named, with the share of words the English list knew)
    "Xanthogranulomatous cholecystitis: a premalignant condition?",  # fr 0.32, share 0.5
    "Caenorhabditis elegans cyclin A?",  # Latin
    "Streptococcus pneumoniae?",  # Latin 0.58
    "Keratoconjunctivitis sicca as?",  # Latin
    "Hydroxychloroquine in?",  # Latin
    "Macrosomia and hyperinsulinaemic hypoglycaemia?",  # Latin
    "Arachidonic acid cytochrome P450 epoxygenase?",  # Latin
    "Erythema nodosum leprosum: thalidomide?",  # Latin
    "Riesz pyramids?",  # pl 0.34: one unknown name is no language
    "Debate on Bacille Calmette-Guérin vaccination?",  # fr 0.30
    "A chikungunya fever?",  # Shona 0.69
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


@pytest.mark.parametrize(
    "question",
    ["Riesz pyramids?", "Debate on Bacille Calmette-Guérin vaccination?", "A chikungunya fever?"],
)
def test_a_question_the_gate_is_unsure_of_is_answered_with_a_one_line_note(question):
    reading = read_language(question)
    assert not reading.foreign and reading.unsure
    note = language_note(question)
    assert note is not None and "may not be in English" in note and "\n" not in note
    assert language_note(question, knows=lambda word: True) is None  # words the corpus knows count as English


@pytest.mark.parametrize(
    "question", ["Xanthogranulomatous cholecystitis: a premalignant condition?", "Do statins work?"]
)
def test_an_english_question_gets_no_note(question):
    assert language_note(question) is None


def test_the_plan_answers_a_question_it_is_unsure_of_and_notes_it():
    from agent.nodes.plan import plan
    from tests.nodes.test_nodes import run, runtime

    update = run(plan, {"question": "Riesz pyramids?", "options": []}, runtime())
    assert [n for n in update["notes"] if "may not be in English" in n] == [
        "The question may not be in English (it reads partly as Polish (pl)): the answer may have misread it."
    ]
    plain = run(plan, {"question": "Do statins increase muscle pain?", "options": []}, runtime())
    assert not [n for n in plain["notes"] if "may not be in English" in n]
