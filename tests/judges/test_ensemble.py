"""The averaging judge: mean of its members' probabilities, argmax as the stance."""

from __future__ import annotations

import pytest

from agent.interfaces import StanceResult
from agent.judges import MeanStanceJudge, offline_stance_judge
from agent.records import STANCE_LABELS as LABELS
from tests.judges.conftest import assert_well_formed


class FixedJudge:
    """A judge that gives every pair the same probabilities (LABELS order)."""

    def __init__(self, name: str, probabilities: list[float]):
        self.name, self.probabilities = name, probabilities
        self.calls: list[list[tuple[str, str]]] = []

    async def judge(self, pairs):
        self.calls.append(pairs)
        return [StanceResult.from_probabilities(LABELS, self.probabilities) for _ in pairs]


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
