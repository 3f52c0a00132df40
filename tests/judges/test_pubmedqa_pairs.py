"""PubMedQA stance pairs: labels from the expert answer, the question turned into its claim, "maybe" left out,
and the odd-PMID questions that `evals.pubmedqa --split heldout` scores never in the training or validation parts."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from benchmarks.splits import pubmedqa_split
from tests.judges.conftest import DATA
from training.dataset import negation_augment, pubmedqa_pairs

ITEMS = {
    "20": {  # even, (20 // 2) % 5 == 0 -> validation
        "QUESTION": "Is aspirin safe in children with fever?",
        "CONTEXTS": ["Aspirin is debated.", "Adverse events occurred in 2% of 300 children."],
        "LABELS": ["BACKGROUND", "RESULTS"],
        "LONG_ANSWER": "Aspirin was safe in children with fever.",
        "final_decision": "yes",
    },
    "12": {  # even, (12 // 2) % 5 == 1 -> train
        "QUESTION": "Does statin therapy reduce sepsis mortality?",
        "CONTEXTS": ["Statins are common.", "We randomised 400 patients.", "Mortality did not differ (21% vs 22%)."],
        "LABELS": ["BACKGROUND", "METHODS", "RESULTS"],
        "LONG_ANSWER": "Statins do not reduce mortality in sepsis.",
        "final_decision": "no",
    },
    "14": {
        "QUESTION": "Is screening cost-effective?",
        "CONTEXTS": ["Costs were uncertain."],
        "LABELS": ["RESULTS"],
        "LONG_ANSWER": "The evidence is inconclusive.",
        "final_decision": "maybe",
    },
    "7": {  # odd -> held out
        "QUESTION": "Do cats reduce asthma?",
        "CONTEXTS": ["Asthma was measured.", "Cat owners had less asthma."],
        "LABELS": ["METHODS", "RESULTS"],
        "LONG_ANSWER": "Cats reduce asthma.",
        "final_decision": "yes",
    },
}


@pytest.fixture()
def data_dir(tmp_path):
    (tmp_path / "pubmedqa").mkdir()
    (tmp_path / "pubmedqa" / "pqal_dev.json").write_text(json.dumps(ITEMS))
    return tmp_path


def test_split_rule_holds_out_odd_pmids_and_validates_on_a_fifth_of_the_rest():
    assert pubmedqa_split("7") == pubmedqa_split(10808977) == "heldout"
    assert pubmedqa_split("20") == "val"
    assert pubmedqa_split("12") == "train"


def test_pairs_read_the_question_as_its_claim_against_the_conclusion_and_the_results(data_dir):
    pairs = pubmedqa_pairs(data_dir)
    by_pmid = {pmid: [p for p in pairs if p.group == pmid] for pmid in ITEMS}
    assert by_pmid["14"] == []  # "maybe" is neither support nor unrelated
    statin = by_pmid["12"]
    assert {p.statement for p in statin} == {"Statin therapy reduces sepsis mortality"}
    assert [p.passage for p in statin] == [
        "Statins do not reduce mortality in sepsis.",
        "Mortality did not differ (21% vs 22%).",
    ]
    assert {(p.label, p.kind, p.split) for p in statin} == {("CONTRADICT", "pubmedqa", "train")}
    aspirin = by_pmid["20"]
    assert {p.statement for p in aspirin} == {"Aspirin is safe in children with fever"}
    assert {(p.label, p.split) for p in aspirin} == {("SUPPORT", "val")}
    assert {p.split for p in by_pmid["7"]} == {"heldout"}


def test_missing_file_gives_no_pairs(tmp_path):
    assert pubmedqa_pairs(tmp_path) == []


def test_negation_augment_flips_pairs_outside_the_held_out_part(data_dir):
    augmented = negation_augment(pubmedqa_pairs(data_dir))
    assert {p.group for p in augmented} == {"20"}  # held out: never; refuted "reduce" -> "increase": not implied
    assert {(p.statement, p.label) for p in augmented} == {("Aspirin is not safe in children with fever", "CONTRADICT")}


@pytest.mark.skipif(not (DATA / "pubmedqa" / "pqal_dev.json").exists(), reason=f"PubMedQA not found under {DATA}")
def test_real_file_holds_out_246_questions_and_trains_on_none_of_them():
    items = json.loads((DATA / "pubmedqa" / "pqal_dev.json").read_text())
    held_out = {pmid for pmid in items if pubmedqa_split(pmid) == "heldout"}
    assert len(held_out) == 246
    pairs = pubmedqa_pairs(DATA)
    assert not {p.group for p in pairs if p.split != "heldout"} & held_out
    labels = Counter((p.split, p.label) for p in pairs)
    assert labels[("train", "CONTRADICT")] > 100 and labels[("train", "SUPPORT")] > 200
