"""Misspelled questions are read as meant (issue 39, item 5): "Does asprin reduce the risk of colorectal cancer?"
retrieved the aspirin trials and abstained because no record names "asprin"; "Dose metfromin reduse the risk of cancr
in diabetis?" was read as an open question. Conservative: known words, names and numbers are never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.api.checkpoint import serializer
from agent.english.spelling import Speller, read_as_sentence, read_question, read_question_word
from agent.records import Correction
from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.local_index import word_counts
from tests.conftest import DATA

HERE = Path(__file__).resolve().parents[1]
MISSPELLED = [
    json.loads(line)
    for line in (HERE / "data" / "misspelled_questions.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]
SCIFACT = DATA / "scifact" / "corpus.jsonl"


@pytest.fixture(scope="module")
def scifact_speller() -> Speller:
    if not SCIFACT.exists():
        pytest.skip(f"SciFact not found under {DATA}")
    return Speller(lambda: word_counts(load_corpus(SCIFACT)))


def test_the_test_set_has_at_least_twenty_misspelled_questions():
    assert sum(item["question"] != item["intended"] for item in MISSPELLED) >= 20
    assert sum(item["question"] == item["intended"] for item in MISSPELLED) >= 5  # and well-spelled ones to leave alone


@pytest.mark.parametrize("item", MISSPELLED, ids=lambda item: item["question"][:50])
def test_a_misspelled_question_is_read_as_meant_over_the_scifact_vocabulary(item, scifact_speller):
    question, options, corrections = read_question(item["question"], [], scifact_speller)
    assert question == item["intended"] and options == []
    assert bool(corrections) == (item["question"] != item["intended"])


def test_the_issue_questions(scifact_speller):
    assert read_question("Does asprin reduce the risk of colorectal cancer?", [], scifact_speller)[2] == [
        Correction(original="asprin", corrected="aspirin")
    ]
    _, _, corrections = read_question("Dose metfromin reduse the risk of cancr in diabetis?", [], scifact_speller)
    assert read_as_sentence(corrections) == (
        "Read 'Dose' as 'Does', 'metfromin' as 'metformin', 'reduse' as 'reduce', 'cancr' as 'cancer' "
        "and 'diabetis' as 'diabetes'."
    )


COUNTS = {
    "aspirin": 70,
    "colorectal": 170,
    "cancer": 2700,
    "reduce": 200,
    "risk": 900,
    "stroma": 40,
    "palm": 5,
    "tocopherol": 9,
    "mortality": 300,
    "colonization": 30,
    "rare": 2,
    "phosphorylated": 12,
    "bacteria": 50,
}


def speller(counts=COUNTS) -> Speller:
    return Speller(lambda: counts)


@pytest.mark.parametrize(
    "text",
    [
        "Does aspirin reduce the risk of colorectal cancer?",  # known to the corpus
        "Is the dose of aspirin relevant?",  # English words ('dose' is English, and here is no typo)
        "Does BRCA1 or IL-6 or mTOR or hCG or TP53 change mortality?",  # gene symbols: capitals, digits
        "Does 5-fluorouracil at 400mg reduce mortality?",  # numbers
        "Does rsk or canc or colo matter?",  # shorter than four letters, or no corpus word near enough
        "Is the Higgs boson heavier than Aspirn Calmette?",  # names inside a sentence
        "Does α-tocopheryl or (polm) reduce mortality?",  # Greek letters, an abbreviation in parentheses
        "Does the neutropenic patient rarely have bacterium?",  # another last letter: another word, not a typo
        "Does conization affect mortality?",  # two edits in a word of fewer than twelve letters
        "Does JNK phosphorylates tau?",  # an inflection of a corpus word ('phosphorylated')
        "Does tumour raree matter?",  # the nearest corpus word ('rare') is too rare to correct towards
    ],
)
def test_what_is_never_corrected(text):
    assert read_question(text, [], speller()) == (text, [], [])


def test_corrections_keep_case_and_hyphens_and_reach_options():
    question, options, corrections = read_question(
        "Asprin or anti-cancr drugs: which lowers mortallity?", ["asprin", "Tocopherol"], speller()
    )
    assert question == "Aspirin or anti-cancer drugs: which lowers mortality?" and options == ["aspirin", "Tocopherol"]
    assert [(c.original, c.corrected) for c in corrections] == [
        ("Asprin", "Aspirin"),
        ("cancr", "cancer"),
        ("mortallity", "mortality"),
        ("asprin", "aspirin"),
    ]


def test_two_edits_in_a_long_word():
    counts = {"immunohistochemistry": 40}
    assert read_question("Is immunohistochemstry useful?", [], speller(counts))[0] == "Is immunohistochemistry useful?"
    assert read_question("Is imunohistochemstry useful?", [], speller(counts))[0] == "Is immunohistochemistry useful?"


def test_the_dictionary_is_the_backends_corpus():
    """A library of other papers has another vocabulary: 'asprin' is read as 'aspirin' only where the corpus has it."""
    other = speller({"aspartame": 40, "cancer": 300})
    assert read_question("Does asprin cause cancer?", [], other)[0] == "Does asprin cause cancer?"
    assert read_question("Does asprin cause cancer?", [], speller())[0] == "Does aspirin cause cancer?"


def test_the_dictionary_is_built_once_and_only_when_a_word_is_unknown():
    built = []

    def counts():
        built.append(1)
        return COUNTS

    lazy = Speller(counts)
    assert read_question("Is aspirin safe in children?", [], lazy)[2] == [] and built == []  # English words only
    for _ in range(3):
        read_question("Does asprin reduce colorectal cancer?", [], lazy)
    assert built == [1]


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Dose metformin reduce the risk of cancer?", "Does metformin reduce the risk of cancer?"),
        ("Deos aspirin prevent stroke?", "Does aspirin prevent stroke?"),
        ("Waht causes scurvy?", "What causes scurvy?"),
        ("Whta causes scurvy?", "What causes scurvy?"),
        ("Hwo does insulin work?", "Hwo does insulin work?"),  # 'who' or 'how': not guessed
        ("Dos statins lower cholesterol?", "Do statins lower cholesterol?"),
        (
            "Dose escalation of cisplatin improves survival.",
            "Dose escalation of cisplatin improves survival.",
        ),  # no question
        (
            "Dose escalation of cisplatin in children?",
            "Dose escalation of cisplatin in children?",
        ),  # no verb for 'does'
        ("Does the dose matter?", "Does the dose matter?"),
        ("Bose-Einstein condensates at room temperature?", "Bose-Einstein condensates at room temperature?"),
    ],
)
def test_the_question_word(question, read):
    assert read_question_word(question)[0] == read
    assert read_question(question, [], None)[0] == read  # without a corpus vocabulary (live) too


def test_the_question_word_makes_the_task_polar():
    """Seen: 'Dose metfromin reduse ...?' was an open question because of 'Dose'."""
    from agent.english.questions import classify_task

    question, _, _ = read_question(
        "Dose metfromin reduse the risk of cancr?", [], speller({"metformin": 100, "reduce": 200, "cancer": 2700})
    )
    assert question == "Does metformin reduce the risk of cancer?" and classify_task(question, []) == "polar"


def test_read_as_sentence():
    assert read_as_sentence([]) == ""
    assert read_as_sentence([Correction(original="asprin", corrected="aspirin")]) == "Read 'asprin' as 'aspirin'."
    two = [Correction(original="Dose", corrected="Does"), Correction(original="cancr", corrected="cancer")]
    assert read_as_sentence(two) == "Read 'Dose' as 'Does' and 'cancr' as 'cancer'."


def test_corrections_survive_the_checkpoint():
    serde = serializer()
    corrections = [Correction(original="asprin", corrected="aspirin")]
    restored = serde.loads_typed(serde.dumps_typed(corrections))
    assert restored == corrections and type(restored[0]) is Correction
