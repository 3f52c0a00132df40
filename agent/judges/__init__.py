"""Offline stance judges: (statement, passage) -> SUPPORT / CONTRADICT / NEUTRAL with a confidence.

The default offline judge is `MeanStanceJudge` over `HeuristicStanceJudge` (MiniLM cosine + negation and
direction cues) and `CrossStanceJudge` (packaged MiniLM cross-encoder, top layers fine-tuned): with the court
weighing evidence by record rank (`relevance_decay`) it scored best on the SciFact validation claims, ahead of
either member alone and of the MLP (evals/README.md). `TrainedStanceJudge` (MLP over frozen MiniLM pair
features) is opt-in and the fallback when the cross-encoder's weights are absent; the heuristic alone is the
last fallback and the ablation baseline.
"""

from __future__ import annotations

from typing import Literal, get_args

from agent.config import OfflineJudge
from agent.errors import ConfigurationError
from agent.interfaces import StanceJudge
from agent.judges.cross import CrossStanceJudge, default_cross_weights_path
from agent.judges.ensemble import MeanStanceJudge
from agent.judges.heuristic import HeuristicStanceJudge
from agent.judges.trained import TrainedStanceJudge, default_weights_path

__all__ = ["CrossStanceJudge", "HeuristicStanceJudge", "MeanStanceJudge", "TrainedStanceJudge", "offline_stance_judge"]

OfflineKind = Literal["auto", OfflineJudge]


def offline_stance_judge(kind: OfflineKind = "auto") -> StanceJudge:
    """The offline judge for a `Context.stance_model` value.

    'cross' and 'trained' load their weights now, so a missing or stale file fails at start-up with a
    ConfigurationError rather than mid-run; 'auto' is 'ensemble' (heuristic + cross-encoder) when the
    cross-encoder's weights are present, else 'trained' when the MLP's are, else the heuristic.
    """
    if kind == "auto":
        kind = "ensemble" if default_cross_weights_path().is_file() else "trained" if default_weights_path().is_file() else "heuristic"
    if kind == "heuristic":
        return HeuristicStanceJudge()
    if kind == "ensemble":
        members = [HeuristicStanceJudge(), offline_stance_judge("cross")]
        return MeanStanceJudge(members)
    if kind == "cross":
        judge: CrossStanceJudge | TrainedStanceJudge = CrossStanceJudge()
    elif kind == "trained":
        judge = TrainedStanceJudge()
    else:
        raise ConfigurationError(f"unknown offline stance judge {kind!r}: use one of {', '.join(get_args(OfflineKind))}")
    _ = judge.model
    return judge
