"""A training claim and its antonym-swapped form, each checked against the abstract that states the finding, read
opposite ways (issue 50): 'increases' is supported where 'decreases' is contradicted, and each is said, as an answer
or a lean, rather than hidden behind "insufficient evidence" (the packaged readers and verdict model, real data)."""

from __future__ import annotations

import pytest

from agent import verify
from benchmarks.formats import read_jsonl
from tests.conftest import DATA

SCIFACT = DATA / "scifact"
PAIRS = [  # SciFact claims_train `train` claims (never held out) and their one direction word swapped
    (
        339,
        "Dexamethasone increases risk of postoperative bleeding.",
        "Dexamethasone decreases risk of postoperative bleeding.",
    ),
    (
        414,
        "Female carriers of the Apolipoprotein E4 (APOE4) allele have increased risk for Alzheimer's disease.",
        "Female carriers of the Apolipoprotein E4 (APOE4) allele have decreased risk for Alzheimer's disease.",
    ),
]


@pytest.mark.slow
@pytest.mark.skipif(not (SCIFACT / "claims_train.jsonl").is_file(), reason="needs ../shared/data/scifact")
@pytest.mark.parametrize(("claim_id", "claim", "swapped"), PAIRS)
def test_a_claim_and_its_antonym_swap_read_opposite_ways_on_the_record_that_states_the_finding(
    claim_id, claim, swapped
):
    item = next(c for c in read_jsonl(SCIFACT / "claims_train.jsonl") if c["id"] == claim_id)
    assert item["claim"] == claim
    doc_id = int(next(iter(item["evidence"])))
    doc = next(d for d in read_jsonl(SCIFACT / "corpus.jsonl") if d["doc_id"] == doc_id)
    document = {"id": str(doc_id), "title": doc["title"], "abstract": doc["abstract"]}
    said = verify(claim, documents=[document], preset="fast", max_claims=0)
    reversed_ = verify(swapped, documents=[document], preset="fast", max_claims=0)
    assert (said.verdict, reversed_.verdict) == ("SUPPORT", "CONTRADICT"), (said.answer, reversed_.answer)
    assert said.tier and reversed_.tier and not said.abstained and not reversed_.abstained
