"""Weakly labelled conclusion pairs: the conclusion found and cleaned, its best result sentence as evidence,
negation balanced between the labels, and no held-out or validation document used."""

from __future__ import annotations

import collections
import random

import pytest

from agent.english.lexicon import NEGATION_MARKER
from tests.judges.conftest import needs_data
from training.conclusions import _balanced, conclusion_of, conclusion_pairs, evidence_for, excluded_docs
from training.dataset import default_data_dir, load_scifact

STRUCTURED = [
    "BACKGROUND Statins lower cholesterol but their effect on sepsis mortality is debated.",
    "METHODS We randomised 400 patients with sepsis to simvastatin or placebo.",
    "RESULTS Mortality at 28 days did not differ between simvastatin and placebo groups in patients with "
    "sepsis (21% vs 22%, p=0.71).",
    "Length of stay was similar.",
    "CONCLUSIONS These results suggest that simvastatin does not reduce mortality in patients with sepsis.",
]
PLAIN = [
    "Exercise is widely recommended.",
    "Twelve weeks of aerobic training improved insulin sensitivity in adults with type 2 diabetes by 25%.",
    "Blood pressure was unchanged.",
    "Our findings indicate that aerobic training improves insulin sensitivity in adults with type 2 diabetes.",
]


def test_structured_conclusion_is_found_and_stripped_of_its_lead_in():
    index, statement = conclusion_of(STRUCTURED)
    assert index == 4
    assert statement == "Simvastatin does not reduce mortality in patients with sepsis."


def test_plain_abstract_uses_a_last_sentence_that_reads_as_a_conclusion():
    assert conclusion_of(PLAIN) == (3, "Aerobic training improves insulin sensitivity in adults with type 2 diabetes.")
    assert conclusion_of(PLAIN[:3] + ["Participants were recruited in 2010 from three clinics in Ohio."]) is None


def test_evidence_is_the_best_overlapping_result_sentence_before_the_conclusion():
    index, statement = conclusion_of(STRUCTURED)
    assert evidence_for(statement, STRUCTURED, index) == [
        STRUCTURED[2].removeprefix("RESULTS ")
    ]  # methods and background skipped
    index, statement = conclusion_of(PLAIN)
    assert evidence_for(statement, PLAIN, index, k=1) == [PLAIN[1]]


def test_balance_keeps_as_many_added_as_removed_negations():
    added = [(i, f"X raises Y {i}", f"X does not raise Y {i}", "e") for i in range(10)]
    removed = [(i, f"X does not lower Z {i}", f"X lowers Z {i}", "e") for i in range(10, 13)]
    antonym = [(20, "X increases Y", "X decreases Y", "e")]
    kept = _balanced(added + removed + antonym, random.Random(0))
    assert len(kept) == 3 + 3 + 1
    support_neg = sum(bool(NEGATION_MARKER.search(t[1])) for t in kept)
    contradict_neg = sum(bool(NEGATION_MARKER.search(t[2])) for t in kept)
    assert support_neg == contradict_neg == 3


@needs_data
@pytest.mark.slow
def test_pairs_skip_held_out_documents_and_are_balanced():
    data_dir = default_data_dir()
    _corpus, claims = load_scifact(data_dir)
    skip = excluded_docs(claims)
    pairs = conclusion_pairs(data_dir)
    labels = collections.Counter(p.label for p in pairs)
    assert labels["SUPPORT"] == labels["CONTRADICT"] > 300
    assert all(p.split == "train" and p.kind == "conclusion" for p in pairs)
    assert not {int(p.group.removeprefix("doc")) for p in pairs} & skip
    negated = {
        label: sum(bool(NEGATION_MARKER.search(p.statement)) for p in pairs if p.label == label)
        for label in ("SUPPORT", "CONTRADICT")
    }
    assert negated["SUPPORT"] == negated["CONTRADICT"]
