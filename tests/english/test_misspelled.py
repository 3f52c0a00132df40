"""A misspelled question gets the answer its correct spelling gets, and says how it was read (issue 39, item 5):
"Does asprin reduce ...?" abstained with "no retrieved passage supports or contradicts any candidate answer"."""

from __future__ import annotations

import dataclasses

from agent.english.spelling import Speller
from agent.records import Correction
from agent.tools.index.local_index import word_counts
from tests.fakes import ListSource, make_backend, record
from tests.test_routing import run

RECORDS = [
    record(
        f"s{i}",
        f"Aspirin and colorectal cancer, trial {i}",
        f"Aspirin increases survival in colorectal cancer, trial {i}.",
        f"Aspirin was given to {100 + i} adults.",
    )
    for i in range(4)
]


def backend_with_speller():
    factory = make_backend([ListSource(RECORDS)])
    return lambda settings, documents=None: dataclasses.replace(
        factory(settings, documents), speller=Speller(lambda: word_counts(RECORDS))
    )


def test_a_misspelled_question_is_answered_as_the_well_spelled_one_and_says_how_it_was_read():
    right = run("Does aspirin increase survival in colorectal cancer?", backend_with_speller(), max_claims=0)
    typo = run("Dose asprin increase survival in colorectal cancr?", backend_with_speller(), max_claims=0)
    assert right.status.value == "ANSWERED" and right.corrections == []
    assert typo.corrections == [
        Correction(original="Dose", corrected="Does"),
        Correction(original="asprin", corrected="aspirin"),
        Correction(original="cancr", corrected="cancer"),
    ]
    assert typo.answer == f"{right.answer} Read 'Dose' as 'Does', 'asprin' as 'aspirin' and 'cancr' as 'cancer'."
    assert (typo.status, typo.verdict, typo.task, typo.question) == (
        right.status,
        right.verdict,
        right.task,
        right.question,
    )
    assert [c.id for c in typo.citations] == [c.id for c in right.citations]


def test_without_a_corpus_vocabulary_only_the_question_word_is_read():
    """The live backend has no corpus vocabulary: the question word is still read, unknown words are left."""
    answer = run(
        "Dose asprin increase survival in colorectal cancer?", make_backend([ListSource(RECORDS)]), max_claims=0
    )
    assert answer.task == "polar" and answer.corrections == [Correction(original="Dose", corrected="Does")]
