"""Offline stance judges: (statement, passage) -> SUPPORT / CONTRADICT / NEUTRAL with a confidence.

`TrainedStanceJudge` (MLP over frozen MiniLM pair features) is the default offline judge: it scores best end
to end (evals/README.md). `CrossStanceJudge` (packaged MiniLM cross-encoder, top layers fine-tuned) is better on
held-out sentence pairs but worse through the court, so it is opt-in (`stance_model="cross"`).
`HeuristicStanceJudge` is the fallback when no weights are present and the ablation baseline.
"""

from __future__ import annotations

from typing import Literal

from agent.errors import ConfigurationError
from agent.interfaces import StanceJudge
from agent.judges.cross import CrossStanceJudge
from agent.judges.ensemble import MeanStanceJudge
from agent.judges.heuristic import HeuristicStanceJudge
from agent.judges.trained import TrainedStanceJudge, default_weights_path

__all__ = ["CrossStanceJudge", "HeuristicStanceJudge", "MeanStanceJudge", "TrainedStanceJudge", "offline_stance_judge"]

OfflineKind = Literal["auto", "cross", "trained", "ensemble", "heuristic"]


def offline_stance_judge(kind: OfflineKind = "auto") -> StanceJudge:
    """The offline judge for a `Context.stance_model` value.

    'cross' and 'trained' load their weights now, so a missing or stale file fails at start-up with a
    ConfigurationError rather than mid-run; 'auto' is 'trained' when its weights are present, else the heuristic.
    """
    if kind == "heuristic":
        return HeuristicStanceJudge()
    if kind == "auto":
        if not default_weights_path().is_file():
            return HeuristicStanceJudge()
        kind = "trained"
    if kind == "ensemble":
        members = [offline_stance_judge("trained"), offline_stance_judge("cross")]
        return MeanStanceJudge(members)
    if kind == "cross":
        judge: CrossStanceJudge | TrainedStanceJudge = CrossStanceJudge()
    elif kind == "trained":
        judge = TrainedStanceJudge()
    else:
        raise ConfigurationError(f"unknown offline stance judge {kind!r}: use 'auto', 'cross', 'trained', 'ensemble' or 'heuristic'")
    _ = judge.model
    return judge
