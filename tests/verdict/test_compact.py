"""The compact verdict inputs (agent/verdict/compact.py): the deciding sentence, the strongest reading on each side,
the records' sides, and the rule readers that hear a null result against a claim of an effect."""

from __future__ import annotations

import pytest

from agent.verdict.compact import compact_claim_features, rule_readings
from tests.verdict.test_readings import _row


def test_a_null_result_reads_against_a_claim_of_an_effect_and_for_a_claim_of_none():
    null = ["There was no significant difference in mortality between the groups (p = 0.41)."]
    effect = rule_readings("Aspirin reduces mortality in patients with sepsis.", null)
    assert effect["rule_null_against"] == 1.0 and effect["rule_null_for"] == 0.0
    assert effect["rule_non_significant"] == 1.0
    none = rule_readings("Aspirin has no effect on mortality in sepsis.", null)
    assert none["rule_null_for"] == 1.0 and none["rule_null_against"] == 0.0


def test_a_reversed_direction_is_a_conflict_and_a_kept_one_agrees():
    reversed_ = rule_readings("Exercise increases bone density.", ["Exercise decreased bone density in the cohort."])
    kept = rule_readings("Exercise increases bone density.", ["Exercise increased bone density in the cohort."])
    assert reversed_["rule_direction_conflict"] == 1.0 and reversed_["rule_direction_agree"] == 0.0
    assert kept["rule_direction_agree"] == 1.0 and kept["rule_direction_conflict"] == 0.0


def test_without_findings_the_rules_read_nothing():
    assert set(rule_readings("X increases Y.", []).values()) == {0.0}


def test_the_deciding_sentence_the_strongest_sides_and_the_records_sides():
    rows = [
        _row([0.8, 0.1, 0.1], passage=0, readers={"cross": [0.7, 0.2, 0.1], "direction": [0.9, 0.1, 0.0]}),
        _row([0.1, 0.6, 0.3], passage=1, text="Y was not associated with X (p = 0.3)."),
        _row([0.3, 0.1, 0.6], passage=2, finding=False),
    ]
    f = compact_claim_features(rows, "X increases Y", polar=False, relevance=0.8)
    assert f["c_deciding_support"] == pytest.approx(0.8) and f["c_deciding_direction_lean"] == pytest.approx(0.8)
    assert f["c_strongest_contradict"] == pytest.approx(0.6) and f["c_strongest_support"] == pytest.approx(0.8)
    assert f["c_records_share_for"] == 0.5 and f["c_records_share_against"] == 0.5
    assert f["c_relevance"] == 0.8 and f["c_polar_question"] == 0.0
    assert f["c_log_eligible"] == pytest.approx(__import__("math").log(3))


def test_no_readings_give_zeros_not_errors():
    f = compact_claim_features([], "X increases Y", polar=True, relevance=None)
    assert f["c_deciding_support"] == 0.0 and f["c_records_share_against"] == 0.0 and f["c_relevance"] == 1.0


def test_a_confidence_map_that_falls_with_the_probability_is_refused_in_one_line(tmp_path):
    import json

    from agent.errors import ConfigurationError
    from agent.verdict.model import read_model

    shipped = json.loads(
        (__import__("pathlib").Path(__file__).resolve().parents[2] / "agent/models/verdict.json").read_text()
    )
    shipped["claim"]["corpus"]["confidence_map"] = [-1.0, 0.0]
    path = tmp_path / "verdict.json"
    path.write_text(json.dumps(shipped))
    with pytest.raises(ConfigurationError, match="confidence map must increase"):
        read_model(path)
    shipped["claim"]["corpus"]["confidence_map"] = [2.0, -0.5]
    path.write_text(json.dumps(shipped))
    linear = read_model(path).claim_model("corpus")
    assert linear.confidence(0.5) == pytest.approx(1 / (1 + __import__("math").exp(0.5)))
    assert linear.confidence(0.4) < linear.confidence(0.7)


def test_a_replicated_significant_effect_and_a_robustness_check_are_not_null_results():
    from agent.scoring.significance import states_null_result

    assert not states_null_result("Results were not attenuated when membership length was added to the model.")
    assert not states_null_result("Results were similar, with a fully adjusted HR of 2.36 (95% CI, 1.57-3.55).")
    assert states_null_result("Treatment did not improve survival at one year.")
    assert states_null_result("Outcomes were similar between the two groups (p = 0.48).")
