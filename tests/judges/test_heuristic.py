"""The heuristic judge: relatedness from MiniLM cosine, support vs contradiction from negation/antonym cues."""

from __future__ import annotations

import math

import pytest

from agent.interfaces import StanceResult
from agent.judges.heuristic import HeuristicStanceJudge, heuristic_probabilities
from agent.records import STANCE_LABELS as LABELS

CLAIM = "Aspirin increases the risk of gastrointestinal bleeding."


@pytest.fixture(scope="module")
def judge() -> HeuristicStanceJudge:
    return HeuristicStanceJudge()


async def test_support_contradiction_and_neutral(judge):
    pairs = [
        (CLAIM, "Low-dose aspirin use was associated with an increased risk of gastrointestinal bleeding."),
        (CLAIM, "Aspirin did not increase the risk of gastrointestinal bleeding in this cohort."),
        (CLAIM, "Aspirin use reduced the risk of gastrointestinal bleeding compared with placebo."),
        (CLAIM, "The telescope recorded a supernova in the Andromeda galaxy."),
    ]
    stances = [r.stance for r in await judge.judge(pairs)]
    assert stances == ["SUPPORT", "CONTRADICT", "CONTRADICT", "NEUTRAL"]


async def test_associated_versus_not_associated(judge):
    claim = "Vitamin D deficiency is associated with severe COVID-19."
    results = await judge.judge(
        [
            (claim, "Vitamin D deficiency was associated with severe COVID-19 in hospitalised patients."),
            (claim, "Vitamin D deficiency was not associated with severe COVID-19 in hospitalised patients."),
        ]
    )
    assert [r.stance for r in results] == ["SUPPORT", "CONTRADICT"]


async def test_negated_claim_is_supported_by_null_result(judge):
    claim = "Folic acid supplementation does not slow the progression of chronic kidney disease."
    passage = "Folic acid supplementation had no significant effect on the progression of chronic kidney disease."
    [result] = await judge.judge([(claim, passage)])
    assert result.stance == "SUPPORT"


async def test_output_schema(judge):
    results = await judge.judge([(CLAIM, CLAIM), (CLAIM, "Unrelated text about galaxies.")])
    assert len(results) == 2
    for result in results:
        assert isinstance(result, StanceResult)
        assert set(result.probabilities) == set(LABELS)
        assert math.isclose(sum(result.probabilities.values()), 1.0, abs_tol=1e-6)
        assert result.confidence == pytest.approx(result.probabilities[result.stance])
    assert await judge.judge([]) == []


def test_probabilities_follow_cosine():
    low = heuristic_probabilities(CLAIM, CLAIM, cosine=0.1)
    high = heuristic_probabilities(CLAIM, CLAIM, cosine=0.95)
    assert low["NEUTRAL"] > 0.9 and high["SUPPORT"] > 0.9
