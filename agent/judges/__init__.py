"""Offline stance judges: (statement, passage) -> SUPPORT / CONTRADICT / NEUTRAL with a confidence.

The default offline judge is `MeanStanceJudge` over `HeuristicStanceJudge` (MiniLM cosine + negation and
direction cues) and `CrossStanceJudge` (packaged MiniLM cross-encoder, top layers fine-tuned): with the court
weighing evidence by record rank (`relevance_decay`) it scored best on the SciFact validation claims, ahead of
either member alone and of the MLP (evals/HISTORY.md). Which side a passage takes is then decided by the packaged
direction reader (`DirectionFromJudge`, agent/models/stance_direction.npz) voting with the two members: the
three together read SUPPORT against CONTRADICT right more often than the ensemble on every validation source of
the pooled stance data, and as often as it on plain sentences, which the reader beside the cross-encoder alone
turned against. `TrainedStanceJudge` (MLP over frozen MiniLM pair features) is opt-in and the fallback when the
cross-encoder's weights are absent; the heuristic alone is the last fallback and the ablation baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from agent.errors import ConfigurationError
from agent.interfaces import StanceJudge
from agent.judges.cross import CrossStanceJudge, default_cross_weights_path, default_direction_weights_path
from agent.judges.ensemble import DirectionFromJudge, MeanStanceJudge
from agent.judges.heuristic import HeuristicStanceJudge
from agent.judges.trained import TrainedStanceJudge, default_weights_path

__all__ = [
    "CrossStanceJudge",
    "DirectionFromJudge",
    "HeuristicStanceJudge",
    "MeanStanceJudge",
    "TrainedStanceJudge",
    "offline_stance_judge",
]

OfflineKind = Literal["auto", "cross", "trained", "ensemble", "heuristic"]


def offline_stance_judge(
    kind: OfflineKind = "auto",
    cross_weights: Path | None = None,
    direction_weights: Path | None = None,
    readers: list[Path] | None = None,
) -> StanceJudge:
    """The offline judge for a `Context.stance_model` value.

    'cross' and 'trained' load their weights now, so a missing or stale file fails at start-up with a
    ConfigurationError rather than mid-run; 'auto' is 'ensemble' (heuristic + cross-encoder) when the
    cross-encoder's weights are present, else 'trained' when the MLP's are, else the heuristic. `cross_weights`
    replaces the packaged cross-encoder file (for judges trained with training/train_judge.py); `direction_weights`
    adds a second cross-encoder that votes with the heuristic and the cross-encoder on the ensemble's direction
    (DirectionFromJudge). The packaged reader goes with the ensemble alone: another judge runs without it, while a
    reader file named for another judge is an error. `readers` are more cross-encoders of the ensemble: each joins
    both its mean (whether a passage takes a side) and the direction vote (which side); for another judge they are
    an error.
    """
    if kind == "auto":
        kind = (
            "ensemble"
            if (cross_weights or default_cross_weights_path()).is_file()
            else "trained"
            if default_weights_path().is_file()
            else "heuristic"
        )
    if (
        direction_weights is not None
        and kind != "ensemble"
        and direction_weights.resolve() == default_direction_weights_path().resolve()
    ):
        direction_weights = None
    if direction_weights is not None and kind != "ensemble":
        raise ConfigurationError(
            f"stance_direction_weights decides the direction of the ensemble judge, not of {kind!r}: use "
            "stance_model 'ensemble'"
        )
    readers = readers or []
    if readers and kind != "ensemble":
        raise ConfigurationError(
            f"stance_readers read beside the cross-encoder of the ensemble judge, not of {kind!r}: use stance_model "
            "'ensemble'"
        )
    if kind == "heuristic":
        return HeuristicStanceJudge()
    if kind == "ensemble":
        heuristic, cross = HeuristicStanceJudge(), offline_stance_judge("cross", cross_weights)
        more = [offline_stance_judge("cross", path) for path in readers]
        ensemble = MeanStanceJudge([heuristic, cross, *more])
        if direction_weights is None:
            return ensemble
        # the side is the readers' vote: the direction reader alone, or beside the cross-encoder only, turns plain
        # supporting sentences against (evals/data/plain_pairs.jsonl); the heuristic's cues read them
        return DirectionFromJudge(
            ensemble, MeanStanceJudge([heuristic, cross, offline_stance_judge("cross", direction_weights), *more])
        )
    if kind == "cross":
        judge: CrossStanceJudge | TrainedStanceJudge = CrossStanceJudge(cross_weights)
    elif kind == "trained":
        judge = TrainedStanceJudge()
    else:
        raise ConfigurationError(
            f"unknown offline stance judge {kind!r}: use 'auto', 'cross', 'trained', 'ensemble' or 'heuristic'"
        )
    _ = judge.model
    return judge
