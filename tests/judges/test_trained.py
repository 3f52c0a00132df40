"""The trained stance judge: packaged weights load, held-out SciFact rationales are judged, errors are clear."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agent.errors import ConfigurationError
from agent.judges import offline_stance_judge, trained
from agent.judges.features import FEATURE_NAMES
from agent.judges.trained import StanceMLP, TrainedStanceJudge
from benchmarks.splits import scifact_splits
from tests.judges.conftest import DATA, assert_held_out_floors, assert_well_formed, needs_data
from training.dataset import load_scifact

# Held-out rationale sentences (claim id, evidence doc id, sentence index, gold label) the model must get right.
CLEAR_EXAMPLES = [
    (85, 22406695, 1, "SUPPORT"),  # "...most adult tissue macrophages originate during embryonic development..."
    (258, 22080671, 4, "SUPPORT"),  # cholesterol-treated SMCs and KLF4 targets
    (265, 2033917, 2, "SUPPORT"),  # "...clathrin stabilizes fibres of the mitotic spindle..."
]
# Regression floors on the 132-pair held-out sample below (measured: recall S 0.41, C 0.07, N 0.73; see
# evals/HISTORY.md: the model rarely predicts CONTRADICT on SciFact, so only S, N and the balance are guarded).
MIN_SUPPORT_RECALL = 0.3
MIN_NEUTRAL_RECALL = 0.6
MIN_BALANCED_ACCURACY = 0.36  # chance is 1/3


@pytest.fixture(scope="module")
def judge() -> TrainedStanceJudge:
    return TrainedStanceJudge()


@needs_data
def test_held_out_split_never_reaches_training():
    _, claims = load_scifact(DATA)
    splits = scifact_splits(claims)
    assert all(splits[c["id"]] == "heldout" for c in claims if c["id"] % 5 == 0)
    held_docs = {d for c in claims if splits[c["id"]] == "heldout" for d in c["cited_doc_ids"]}
    train_docs = {d for c in claims if splits[c["id"]] != "heldout" for d in c["cited_doc_ids"]}
    assert not held_docs & train_docs


@needs_data
async def test_labels_clear_held_out_rationales(judge):
    corpus, claims = load_scifact(DATA)
    by_id = {c["id"]: c for c in claims}
    for claim_id, doc_id, index, gold in CLEAR_EXAMPLES:
        claim = by_id[claim_id]
        assert scifact_splits(claims)[claim_id] == "heldout"
        assert any(index in r["sentences"] and r["label"] == gold for r in claim["evidence"].get(str(doc_id), []))
        [result] = await judge.judge([(claim["claim"], corpus[doc_id]["abstract"][index])])
        assert result.stance == gold, (claim["claim"], result)


@needs_data
@pytest.mark.slow
async def test_held_out_sample_quality(judge, held_out):
    await assert_held_out_floors(
        judge, held_out, {"SUPPORT": MIN_SUPPORT_RECALL, "NEUTRAL": MIN_NEUTRAL_RECALL}, MIN_BALANCED_ACCURACY
    )


async def test_output_schema(judge):
    statement = "Exercise improves insulin sensitivity in adults with type 2 diabetes."
    results = await judge.judge(
        [
            (statement, "Aerobic training improved insulin sensitivity in patients with type 2 diabetes."),
            (statement, "The galaxy cluster emits X-rays."),
        ]
    )
    assert_well_formed(results, 2)
    assert results[1].stance == "NEUTRAL"
    assert await judge.judge([]) == []


async def test_hundreds_of_pairs_are_cheap_once_encoded(judge):
    statements = [f"Drug {i} reduces blood pressure in adults." for i in range(4)]
    passages = [f"In trial {j}, the drug lowered systolic blood pressure by {j} mmHg." for j in range(50)]
    pairs = [(s, p) for s in statements for p in passages]
    await judge.judge(pairs)  # encodes the 54 texts once; later calls hit the encoder's LRU cache
    started = time.perf_counter()
    results = await judge.judge(pairs)
    assert len(results) == 200 and time.perf_counter() - started < 1.0


async def test_missing_weights_raise_configuration_error(tmp_path, monkeypatch):
    missing = tmp_path / "stance_mlp.npz"
    with pytest.raises(ConfigurationError, match="weights not found"):
        await TrainedStanceJudge(weights=missing).judge([("a", "b")])
    monkeypatch.setattr(trained, "default_weights_path", lambda: missing)
    with pytest.raises(ConfigurationError, match="weights not found"):
        await TrainedStanceJudge().judge([("a", "b")])


def test_auto_falls_back_to_the_mlp_then_the_heuristic_without_weights(tmp_path, monkeypatch):
    monkeypatch.setattr("agent.judges.default_cross_weights_path", lambda: tmp_path / "none.npz")
    assert offline_stance_judge("auto").name == "trained"
    monkeypatch.setattr("agent.judges.default_weights_path", lambda: tmp_path / "none.npz")
    assert offline_stance_judge("auto").name == "heuristic"
    assert offline_stance_judge("heuristic").name == "heuristic"


def test_packaged_weights_load_and_are_small():
    path = trained.default_weights_path()
    assert path.is_file() and path.stat().st_size <= 20 * 1024 * 1024
    model = StanceMLP(path)
    assert model.weights[0].shape[0] == len(FEATURE_NAMES)
    assert offline_stance_judge("trained").name == "trained"


def test_stale_weights_raise(tmp_path):
    with np.load(trained.default_weights_path(), allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    arrays["feature_names"] = np.array(list(FEATURE_NAMES[:-1]) + ["renamed"])
    stale = tmp_path / "stale.npz"
    np.savez(stale, **arrays)
    with pytest.raises(ConfigurationError, match="other features"):
        StanceMLP(stale)
