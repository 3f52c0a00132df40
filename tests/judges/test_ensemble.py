"""The averaging judge: mean of its members' probabilities, argmax as the stance."""

from __future__ import annotations

import pytest

from agent.judges import MeanStanceJudge, offline_stance_judge
from tests.fakes import FixedStance as FixedJudge
from tests.judges.conftest import assert_well_formed


async def test_mean_of_members_decides():
    supportive = FixedJudge("a", [0.6, 0.0, 0.4])
    sceptical = FixedJudge("b", [0.1, 0.1, 0.8])
    judge = MeanStanceJudge([supportive, sceptical])
    results = await judge.judge([("claim", "passage one"), ("claim", "passage two")])
    assert_well_formed(results, 2)
    assert results[0].stance == "NEUTRAL"
    assert results[0].probabilities == pytest.approx({"SUPPORT": 0.35, "CONTRADICT": 0.05, "NEUTRAL": 0.6})
    assert supportive.calls == sceptical.calls == [[("claim", "passage one"), ("claim", "passage two")]]
    assert judge.name == "ensemble(a+b)"
    assert await judge.judge([]) == []


def test_needs_members_and_builds_from_config():
    with pytest.raises(ValueError):
        MeanStanceJudge([])
    assert offline_stance_judge("ensemble").name == "ensemble(heuristic+cross)"


async def test_a_second_reader_decides_the_direction_and_nothing_else():
    from agent.judges import DirectionFromJudge

    base = FixedJudge("base", [0.6, 0.1, 0.3])  # takes a side: SUPPORT 0.6
    contradicting = FixedJudge("reader", [0.2, 0.5, 0.3])
    judge = DirectionFromJudge(base, contradicting)
    [result] = await judge.judge([("Risedronate increases fractures", "Risedronate decreased new fractures by 41%.")])
    assert result.stance == "CONTRADICT" and result.confidence == pytest.approx(
        0.6
    )  # the base's confidence, the reader's side
    assert result.probabilities["NEUTRAL"] == pytest.approx(0.3)
    [agreed] = await DirectionFromJudge(base, FixedJudge("r", [0.4, 0.1, 0.5])).judge([("c", "p")])
    assert agreed.stance == "SUPPORT" and agreed.probabilities == pytest.approx(
        {"SUPPORT": 0.6, "CONTRADICT": 0.1, "NEUTRAL": 0.3}
    )
    neutral = await DirectionFromJudge(FixedJudge("n", [0.1, 0.05, 0.85]), contradicting).judge([("c", "p")])
    assert neutral[0].stance == "NEUTRAL"  # the reader never makes a side where the base took none
    assert judge.name == "base/direction(reader)" and await judge.judge([]) == []


def test_a_direction_reader_needs_the_ensemble(tmp_path):
    from agent.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="ensemble"):
        offline_stance_judge("heuristic", direction_weights=tmp_path / "j3.npz")
