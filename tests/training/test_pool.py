"""The pooled stance training set: label mapping per source, exclusions, splits and de-duplication."""

from __future__ import annotations

import pytest

from tests.conftest import DATA
from training.dataset import StancePair
from training.pool import (
    CHECK_COVID_STRICT,
    check_covid_source,
    clinifact_source,
    deduplicate,
    ei_claim,
    evidence_inference_source,
    healthver_source,
)

pytestmark = pytest.mark.skipif(
    not (DATA / "stance" / "check_covid").exists(), reason="../shared/data/stance not present"
)


def test_ei_claims_say_what_the_direction_says():
    assert ei_claim("increase", "Aspirin", "placebo", "bleeding") == "Aspirin increases bleeding compared with placebo"
    assert ei_claim("decrease", "Aspirin", "placebo", "bleeding") == "Aspirin decreases bleeding compared with placebo"
    assert (
        ei_claim("none", "Aspirin", "placebo", "bleeding")
        == "There is no significant difference in bleeding between Aspirin and placebo"
    )


def test_evidence_inference_pairs_support_the_matching_direction_only():
    pairs = evidence_inference_source(DATA)
    by_span: dict[str, list[StancePair]] = {}
    for p in pairs:
        by_span.setdefault(p.passage, []).append(p)
    _span, group = next((s, g) for s, g in by_span.items() if {p.kind for p in g} >= {"ei_match", "ei_opposite"})
    match = next(p for p in group if p.kind == "ei_match")
    opposite = next(p for p in group if p.kind == "ei_opposite")
    assert match.label == "SUPPORT" and opposite.label == "CONTRADICT" and match.statement != opposite.statement
    assert {p.split for p in pairs} == {"train", "val", "heldout"}  # the ev2 article split
    assert all(p.source == "evidence_inference" and p.weight == 0.7 for p in pairs)


def test_healthver_leaves_out_the_test_claim_and_uses_dev_for_validation():
    pairs = healthver_source(DATA)
    assert not any(p.group in ("hv234", "hv988") for p in pairs)
    val = [p for p in pairs if p.split == "val"]
    assert len(val) == 1917 and {p.label for p in val} == {"SUPPORT", "CONTRADICT", "NEUTRAL"}
    assert {p.split for p in pairs} == {"train", "val"}


def test_check_covid_strict_exclusion_and_splits():
    pairs = check_covid_source(DATA)
    import json

    shared_claims = {
        json.loads(line)["claim"].strip()
        for name in ("train/covidCheck_train_composed+extracted.json", "dev/covidCheck_dev_composed+extracted.json")
        for line in (DATA / "stance" / "check_covid" / name).read_text().splitlines()
        if json.loads(line)["cord_id"] in CHECK_COVID_STRICT
    }
    assert shared_claims and not any(p.statement in shared_claims for p in pairs)
    assert {p.split for p in pairs} == {"train", "val"}


def test_clinifact_drops_the_scifact_dev_abstract():
    pairs = clinifact_source(DATA)
    assert not any(p.group == "cf23532866" for p in pairs)
    assert {p.label for p in pairs} == {"SUPPORT", "CONTRADICT", "NEUTRAL"}


def test_deduplicate_keeps_one_copy_drops_conflicts_and_evaluated_statements():
    def pair(statement, passage, label, split="train"):
        return StancePair(statement, passage, label, "k", "g", split, "s", 1.0)

    pairs = [
        pair("A lowers B.", "B fell.", "SUPPORT"),
        pair("a lowers b", "B fell", "SUPPORT"),  # same after normalising
        pair("C raises D.", "D rose.", "SUPPORT"),
        pair("C raises D.", "D rose.", "CONTRADICT"),  # disagreeing copy
        pair("E is safe.", "No harm.", "SUPPORT"),
        pair("E is safe.", "Some harm.", "CONTRADICT", split="val"),  # an evaluated statement
    ]
    kept, removed = deduplicate(pairs)
    assert [p.statement for p in kept] == ["A lowers B.", "E is safe."]
    assert kept[1].split == "val"
    assert removed == {"duplicate": 1, "conflicting label": 2, "statement also evaluated": 1}
