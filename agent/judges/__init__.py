"""Offline stance judges: (statement, passage) -> SUPPORT / CONTRADICT / NEUTRAL with a confidence.

`TrainedStanceJudge` (packaged MLP over MiniLM pair features) is the default offline judge;
`HeuristicStanceJudge` is the fallback when its weights are absent and the ablation baseline.
"""

from __future__ import annotations

from typing import Literal

from agent.errors import ConfigurationError
from agent.interfaces import StanceJudge
from agent.judges.heuristic import HeuristicStanceJudge
from agent.judges.trained import TrainedStanceJudge, default_weights_path

__all__ = ["HeuristicStanceJudge", "TrainedStanceJudge", "offline_stance_judge"]


def offline_stance_judge(kind: Literal["auto", "trained", "heuristic"] = "auto") -> StanceJudge:
    """The offline judge for a `Context.stance_model` value.

    'trained' loads the weights now, so a missing or stale file fails at start-up with a ConfigurationError
    rather than mid-run; 'auto' uses them when the file is present and otherwise falls back to the heuristic.
    """
    if kind == "heuristic":
        return HeuristicStanceJudge()
    if kind == "auto" and not default_weights_path().is_file():
        return HeuristicStanceJudge()
    if kind not in ("auto", "trained"):
        raise ConfigurationError(f"unknown offline stance judge {kind!r}: use 'auto', 'trained' or 'heuristic'")
    judge = TrainedStanceJudge()
    _ = judge.model
    return judge
