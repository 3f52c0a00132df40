"""The contrast edits give the label a careful reader would give, and leave pairs alone where it is not determined."""

import random

from training.contrast import (
    change_subject,
    contrast_pairs,
    hedge_evidence,
    null_evidence,
    reverse_comparison,
    swap_evidence_direction,
)
from training.dataset import StancePair


def pair(statement: str, passage: str, label: str = "SUPPORT", split: str = "train") -> StancePair:
    return StancePair(statement=statement, passage=passage, label=label, kind="rationale", group="1", split=split)  # type: ignore[arg-type]


def test_a_supporting_sentence_with_its_direction_swapped_contradicts():
    edited = swap_evidence_direction(
        pair("Statins reduce the risk of stroke.", "Statin users had a lower incidence of stroke (HR 0.8).")
    )
    assert edited is not None
    assert edited.passage == "Statin users had a higher incidence of stroke (HR 0.8)."
    assert edited.label == "CONTRADICT" and edited.kind == "contrast:direction"


def test_a_contradicting_sentence_of_the_opposite_direction_swapped_supports_and_the_article_agrees():
    edited = swap_evidence_direction(
        pair(
            "Exercise decreases insulin sensitivity.", "Training led to a increased insulin sensitivity.", "CONTRADICT"
        )
    )
    assert edited is not None and edited.label == "SUPPORT"
    assert "a decreased insulin sensitivity" in edited.passage
    # a contradiction that is not about direction has no determined flip
    assert (
        swap_evidence_direction(
            pair(
                "Exercise decreases insulin sensitivity.",
                "Insulin sensitivity was increased in 3 of 5 trials and decreased in 2.",
                "CONTRADICT",
            )
        )
        is None
    )


def test_negated_texts_are_not_direction_swapped():
    assert (
        swap_evidence_direction(
            pair("Statins reduce stroke.", "Statins did not lower the incidence of stroke.", "CONTRADICT")
        )
        is None
    )


def test_a_significant_effect_made_non_significant_contradicts_and_adjectives_are_left_alone():
    edited = null_evidence(pair("Aspirin reduces fever.", "Aspirin significantly reduced body temperature."))
    assert (
        edited is not None
        and edited.passage == "Aspirin did not significantly reduce body temperature."
        and edited.label == "CONTRADICT"
    )
    passive = null_evidence(pair("Aspirin reduces fever.", "Body temperature was significantly reduced by aspirin."))
    assert passive is not None and passive.passage == "Body temperature was not significantly reduced by aspirin."
    assert (
        null_evidence(pair("Aspirin reduces fever.", "The analysis revealed significantly reduced temperature."))
        is None
    )


def test_a_hedged_finding_is_neutral_without_its_section_label_or_lead_in():
    edited = hedge_evidence(
        pair("Aspirin reduces fever.", "RESULTS Here we show that aspirin reduced fever in adults.", "CONTRADICT"),
        random.Random(0),
    )
    assert edited is not None and edited.label == "NEUTRAL"
    assert (
        "RESULTS" not in edited.passage
        and "we show" not in edited.passage
        and "aspirin reduced fever in adults" in edited.passage
    )


def test_a_supported_comparison_reversed_is_contradicted():
    edited = reverse_comparison(
        pair("Varenicline is more effective than nicotine patch.", "Varenicline beat the patch (OR 1.5).")
    )
    assert (
        edited is not None
        and edited.statement == "Nicotine patch is more effective than varenicline."
        and edited.label == "CONTRADICT"
    )
    assert (
        reverse_comparison(pair("Varenicline is more effective than nicotine patch.", "No difference.", "CONTRADICT"))
        is None
    )


def test_the_absence_of_a_supported_subject_is_contradicted():
    edited = change_subject(
        pair("Smoking increases the risk of lung cancer.", "Smokers had more lung cancer."), random.Random(0)
    )
    assert edited is not None and edited.label == "CONTRADICT"
    assert edited.statement.endswith("of smoking increases the risk of lung cancer.")


def test_heldout_and_neutral_pairs_are_never_edited():
    pairs = [
        pair("Statins reduce stroke.", "Statins lowered stroke.", split="heldout"),
        pair("Statins reduce stroke.", "Statins lowered stroke.", "NEUTRAL"),
    ]
    assert contrast_pairs(pairs, hedge_share=1.0) == []
    made = contrast_pairs(
        [pair("Statins reduce stroke.", "Statins lowered the incidence of stroke in adults.")], hedge_share=1.0
    )
    assert {p.kind for p in made} == {"contrast:direction", "contrast:hedge"} and all(
        p.source == "contrast" for p in made
    )
