"""The lexical cues both judges rely on: negation scope, direction, null results, numbers."""

from __future__ import annotations

from agent.judges.cues import cues, numbers, pair_cues
from training.dataset import negate_statement


def test_negation_flips_direction_within_scope():
    plain = cues("Metformin increases insulin sensitivity.")
    negated = cues("Metformin does not increase insulin sensitivity.")
    assert plain.polarity == 1 and not plain.negated
    assert negated.polarity == -1 and negated.negated and negated.null_result


def test_direction_conflict_between_increase_and_reduce():
    pc = pair_cues(cues("Statins increase LDL cholesterol."), cues("Statin therapy reduced LDL cholesterol by 30%."))
    assert pc.direction_conflict and not pc.direction_agree


def test_association_versus_no_association():
    pc = pair_cues(
        cues("Smoking is associated with lung cancer."), cues("Smoking was not associated with lung cancer.")
    )
    assert pc.negation_mismatch and pc.null_mismatch


def test_without_negates_an_effect_not_the_people_studied():
    """Seen in an answer: "In patients without established cardiovascular disease ..., statin use was associated with
    significantly improved survival" was quoted as contradicting "Statins reduce mortality" (the heuristic: CONTRADICT
    0.93, from the 'without' alone)."""
    population = cues(
        "In patients without established cardiovascular disease, statin use was associated with improved survival."
    )
    assert not population.negated
    assert not pair_cues(cues("Statin use is associated with improved survival."), population).negation_mismatch
    assert not cues("Outcomes were compared with those without.").negated
    assert cues("Statins lowered cholesterol without affecting survival.").negated
    assert cues("Aspirin was given without any benefit on fever.").negated


def test_null_result_phrases():
    assert cues("There was no significant difference in mortality.").null_result
    assert cues("Non-significant changes were seen.").null_result
    assert not cues("Mortality fell sharply.").null_result


def test_numbers_ignore_p_values_and_normalise_units():
    assert numbers("Reduced by 32 percent (p < 0.05), 1,5-fold") == {"32%", "1.5"}
    pc = pair_cues(cues("1 in 5 million people are affected."), cues("About 1 in 2000 people are affected."))
    assert pc.number_overlap == 0.5 and not pc.number_conflict


def test_negate_statement_rules():
    assert negate_statement("Aspirin does not prevent stroke.") == ("Aspirin does prevent stroke.", "negation")
    assert negate_statement("Exercise increases bone density.") == ("Exercise decreases bone density.", "antonym")
    assert negate_statement("Obesity is a risk factor for gout.") == (
        "Obesity is not a risk factor for gout.",
        "negation",
    )
    assert negate_statement("Gout arthritis") is None
