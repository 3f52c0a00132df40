"""The cross-encoder stance judge: packaged layers load onto the packaged MiniLM, held-out SciFact is judged
well above the MLP's floors, and missing or mismatched weights fail with a clear ConfigurationError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.errors import ConfigurationError
from agent.judges import cross, offline_stance_judge
from agent.judges.cross import CrossStanceJudge, CrossStanceModel
from agent.judges.packaged import read_weights
from tests.judges.conftest import assert_held_out_floors, assert_well_formed, needs_data

# Regression floors on the held-out sample of conftest.held_out. Measured with the shipped weights: recall
# S 0.67, C 0.17, N 0.91, balanced 0.59 (the MLP: S 0.41, C 0.07, N 0.73, balanced 0.40). See evals/HISTORY.md
# "Stance model".
MIN_RECALL = {"SUPPORT": 0.55, "CONTRADICT": 0.1, "NEUTRAL": 0.8}
MIN_BALANCED_ACCURACY = 0.5  # chance is 1/3


@pytest.fixture(scope="module")
def judge() -> CrossStanceJudge:
    return CrossStanceJudge()


def test_packaged_weights_are_small_and_the_default():
    path = cross.default_cross_weights_path()
    assert path.is_file() and path.stat().st_size <= 20 * 1024 * 1024
    assert offline_stance_judge("cross").name == "cross"
    assert (
        offline_stance_judge("auto").name == "ensemble(heuristic+cross)"
    )  # best end to end on validation claims (evals/HISTORY.md)


@needs_data
@pytest.mark.slow
async def test_held_out_sample_quality(judge, held_out):
    await assert_held_out_floors(judge, held_out, MIN_RECALL, MIN_BALANCED_ACCURACY)


async def test_output_schema_and_obvious_cases(judge):
    statement = "Regular aerobic exercise improves insulin sensitivity in adults with type 2 diabetes."
    results = await judge.judge(
        [
            (
                statement,
                "Twelve weeks of aerobic training significantly improved insulin sensitivity in adults with type 2 "
                "diabetes.",
            ),
            (
                statement,
                "Twelve weeks of aerobic training did not change insulin sensitivity in adults with type 2 diabetes.",
            ),
            (statement, "The galaxy cluster emits X-rays detected by the Chandra observatory."),
        ]
    )
    assert_well_formed(results, 3)
    agree, refute, unrelated = (r.probabilities for r in results)
    # Measured P(S) 0.47 / 0.47 / 0.08 and P(C) 0.08 / 0.20 / 0.01: "did not change" is told apart from "improved"
    # by its contradiction probability, so the guard is on net support, not on P(S) alone.
    assert agree["SUPPORT"] - agree["CONTRADICT"] > refute["SUPPORT"] - refute["CONTRADICT"], results
    assert refute["CONTRADICT"] > agree["CONTRADICT"] > unrelated["CONTRADICT"], results
    assert results[0].stance == "SUPPORT" and results[2].stance == "NEUTRAL"
    assert await judge.judge([]) == []


async def test_a_statement_longer_than_the_token_budget_is_judged(judge):
    statement = " ".join(["Long-term supplementation with vitamin D3 reduces fracture risk in elderly women"] * 20)
    results = await judge.judge([(statement, "Vitamin D3 reduced hip fractures by 43% in elderly women.")])
    assert_well_formed(results, 1)


async def test_missing_weights_raise_configuration_error(tmp_path, monkeypatch):
    missing = tmp_path / "stance_cross.npz"
    with pytest.raises(ConfigurationError, match="weights not found"):
        await CrossStanceJudge(weights=missing).judge([("a", "b")])
    monkeypatch.setattr(cross, "default_cross_weights_path", lambda: missing)
    with pytest.raises(ConfigurationError, match="weights not found"):
        offline_stance_judge("cross")


def _packaged_arrays() -> dict[str, np.ndarray]:
    return read_weights(
        cross.default_cross_weights_path(), "cross-encoder stance", "python -m training.train_cross_stance"
    )


def test_mismatched_weights_raise(tmp_path):
    arrays = _packaged_arrays()
    arrays["labels"] = np.array(["SUPPORT", "NEUTRAL", "CONTRADICT"])
    relabelled = tmp_path / "relabelled.npz"
    np.savez(relabelled, **arrays)
    with pytest.raises(ConfigurationError, match="labels"):
        CrossStanceModel(relabelled)
    arrays = _packaged_arrays()
    arrays["encoder.encoder.layer.9.output.dense.weight"] = np.zeros((2, 2), dtype=np.float16)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, **arrays)
    with pytest.raises(ConfigurationError, match="do not fit"):
        CrossStanceModel(foreign)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not an npz")
    with pytest.raises(ConfigurationError, match="unreadable"):
        CrossStanceModel(garbage)


def test_stance_weights_setting_loads_another_judge(tmp_path):
    """`stance_weights` swaps the cross-encoder file: the judge is named after it (so the packaged calibration is not
    applied to it), two settings never share a cached backend, and a missing file is refused when the judge is built."""
    import shutil

    from agent.api import stance_judge
    from agent.backend import backend_key
    from agent.config import Context

    trained = tmp_path / "my_judge.npz"
    shutil.copy(cross.default_cross_weights_path(), trained)
    context = Context(stance_model="cross", stance_weights=str(trained))
    assert stance_judge(context).name == "cross(my_judge)+structure"
    assert (
        stance_judge(stance_model="ensemble", stance_weights=str(trained)).name
        == "ensemble(heuristic+cross(my_judge))/direction(ensemble(heuristic+cross(my_judge)+direction))+structure"
    )
    assert (
        stance_judge(stance_model="ensemble", stance_weights=str(trained), stance_direction_weights="off").name
        == "ensemble(heuristic+cross(my_judge))+structure"
    )
    assert backend_key(context) != backend_key(Context(stance_model="cross"))
    with pytest.raises(ConfigurationError):
        stance_judge(stance_model="cross", stance_weights=str(tmp_path / "absent.npz"))


def test_pairs_read_again_are_not_recomputed():
    """The direction reader's mean re-reads the ensemble's pairs with the same cross-encoder: one pass, not two."""
    asked: list[list[tuple[str, str]]] = []

    class Counting:
        def predict_proba(self, pairs):
            asked.append(list(pairs))
            return np.array([[0.7, 0.1, 0.2] if "fell" in p else [0.1, 0.2, 0.7] for _, p in pairs])

    judge = CrossStanceJudge()
    judge._model = Counting()
    first = judge.probabilities([("A lowers B", "B fell."), ("A lowers B", "Methods.")])
    again = judge.probabilities([("A lowers B", "Methods."), ("A lowers B", "B fell."), ("A lowers B", "B rose.")])
    assert asked == [[("A lowers B", "B fell."), ("A lowers B", "Methods.")], [("A lowers B", "B rose.")]]
    assert np.allclose(again[:2], first[::-1]) and np.allclose(again[2], [0.1, 0.2, 0.7])


@pytest.mark.slow
def test_the_packaged_direction_reader_loads_over_the_packaged_judge_and_is_the_default():
    from agent.backend.judging_parts import offline_stance
    from agent.config import Context

    direction = cross.default_direction_weights_path()
    assert direction.is_file() and direction.stat().st_size <= 8 * 1024 * 1024
    model, packaged = CrossStanceModel(direction), CrossStanceModel(cross.default_cross_weights_path())
    state, below = model.network.state_dict(), packaged.network.state_dict()
    assert (
        state["encoder.encoder.layer.1.output.dense.weight"] == below["encoder.encoder.layer.1.output.dense.weight"]
    ).all()
    assert not (
        state["encoder.encoder.layer.5.output.dense.weight"] == below["encoder.encoder.layer.5.output.dense.weight"]
    ).all()
    assert (
        offline_stance(Context().judges)[0].name
        == "ensemble(heuristic+cross)/direction(ensemble(heuristic+cross+direction))+structure"
    )
    assert (
        offline_stance(Context(stance_direction_weights="off").judges)[0].name == "ensemble(heuristic+cross)+structure"
    )
    # the packaged reader goes with the ensemble: another judge runs without it, a reader named for one is refused
    assert offline_stance(Context(stance_model="heuristic").judges)[0].name == "heuristic+structure"
    with pytest.raises(ConfigurationError, match="ensemble judge"):
        offline_stance(
            Context(stance_model="heuristic", stance_direction_weights=str(cross.default_cross_weights_path())).judges
        )


@pytest.mark.slow
async def test_the_default_judge_reads_plain_sentences_on_both_sides():
    """A floor under the direction on short, plain sentences (evals/data/plain_pairs.jsonl, written for it): the
    direction reader beside the cross-encoder alone read 0.57 of them right (supporting ones 0.45: "Fever fell after
    aspirin" against "Aspirin lowers fever"); with the heuristic's vote the default reads 0.85, each side 0.85."""
    from agent.backend.judging_parts import offline_stance
    from agent.config import Context
    from benchmarks.formats import read_pairs

    _, pairs = read_pairs(Path(__file__).resolve().parents[2] / "evals" / "data" / "plain_pairs.jsonl")
    sided = [p for p in pairs if p.label != "NEUTRAL"]
    results = await offline_stance(Context().judges)[0].judge([(p.statement, p.passage) for p in sided])
    right = {
        label: [
            (r.probabilities["SUPPORT"] > r.probabilities["CONTRADICT"]) == (p.label == "SUPPORT")
            for p, r in zip(sided, results, strict=True)
            if p.label == label
        ]
        for label in ("SUPPORT", "CONTRADICT")
    }
    assert all(len(r) == 20 for r in right.values())
    assert sum(map(sum, right.values())) >= 32, right  # 0.80 of 40
    assert min(sum(r) for r in right.values()) >= 15, right  # 0.75 of each side


async def test_stance_readers_join_the_ensembles_mean_and_its_direction_vote(tmp_path):
    """A reader (`stance_readers`) is one more member of the ensemble's mean and of the direction vote, loaded once
    for both; it is named, so another setting never shares a cached backend or the calibration, and it is refused
    for a judge other than the ensemble."""
    import shutil

    from agent.backend import backend_key
    from agent.backend.judging_parts import offline_stance
    from agent.config import Context

    reader_file = tmp_path / "my_reader.npz"
    shutil.copy(cross.default_cross_weights_path(), reader_file)
    judge = offline_stance(Context(stance_readers=[str(reader_file)]).judges)[0].base
    assert judge.name == (
        "ensemble(heuristic+cross+cross(my_reader))/direction(ensemble(heuristic+cross+direction+cross(my_reader)))"
    )
    reader = judge.base.judges[-1]
    assert judge.direction.judges[-1] is reader

    class Contradicting:
        def predict_proba(self, pairs):
            return np.array([[0.0, 1.0, 0.0] for _ in pairs])

    reader._model = Contradicting()
    pair = [("Aspirin lowers fever.", "Fever fell after aspirin in 40 adults.")]
    labels = ("SUPPORT", "CONTRADICT", "NEUTRAL")
    members = [(await member.judge(pair))[0] for member in judge.base.judges]
    mean = np.mean([[m.probabilities[label] for label in labels] for m in members], axis=0)
    (read,) = await judge.base.judge(pair)
    assert np.allclose([read.probabilities[label] for label in labels], mean, atol=1e-4)
    assert members[-1].probabilities["CONTRADICT"] == pytest.approx(1.0)
    assert backend_key(Context(stance_readers=[str(reader_file)])) != backend_key(Context(stance_readers=[]))
    with pytest.raises(ConfigurationError, match="ensemble judge"):
        offline_stance_judge("heuristic", readers=[reader_file])
