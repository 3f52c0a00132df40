"""The base-encoder trial (training/trial_base.py): its per-source sample, and a run that trains only the top layers
and reports direction accuracy per split and source. Run on the packaged MiniLM folder, the trial's small base."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from training.dataset import StancePair
from training.train_judge import write_pool
from training.trial_base import parse_quota, sample_training_pairs


def _pair(label: str, split: str, source: str, passage: str = "Fever fell after aspirin.") -> StancePair:
    return StancePair("Aspirin lowers fever", passage, label, "rationale", "1", split, source, 1.0)


def test_the_quota_takes_every_pair_or_a_sample_of_each_source_and_only_pairs_that_take_a_side():
    pool = (
        [_pair("SUPPORT", "train", "scifact")] * 3
        + [_pair("CONTRADICT", "train", "healthver")] * 5
        + [
            _pair("NEUTRAL", "train", "scifact"),
            _pair("SUPPORT", "val", "scifact"),
            _pair("SUPPORT", "train", "nli4ct"),
        ]
    )
    chosen = sample_training_pairs(pool, parse_quota("scifact=all, healthver=2"), random.Random(0))
    assert sorted(p.source for p in chosen) == ["healthver", "healthver", "scifact", "scifact", "scifact"]
    assert all(p.split == "train" and p.label != "NEUTRAL" for p in chosen)
    assert parse_quota("a=all,b=10") == {"a": None, "b": 10}
    with pytest.raises(SystemExit, match="SOURCE=N"):
        parse_quota("scifact=half")


def _tiny_trial(tmp_path, pairs: list[StancePair]) -> list[str]:
    """A pool of `pairs` written beside the test, and the trial's arguments for the packaged MiniLM's top layer."""
    from agent.tools.models.encoder import packaged_model_path

    write_pool(tmp_path / "pool.jsonl.gz", pairs, {})
    return ["--base", str(packaged_model_path()), "--pool-file", str(tmp_path / "pool.jsonl.gz"), "--quota",
            "scifact=all", "--top", "1", "--max-len", "32", "--batch", "2"]  # fmt: skip


@pytest.mark.slow
def test_a_trial_trains_the_top_layers_and_reports_direction_accuracy_per_split_and_source(tmp_path):
    import torch

    from agent.tools.models.encoder import packaged_model_path
    from training.trial_base import main

    pairs = []
    for split in ("train", "train", "val", "heldout"):
        pairs += [
            _pair("SUPPORT", split, "scifact"),
            _pair("CONTRADICT", split, "scifact", "Fever rose after aspirin."),
            _pair("SUPPORT", split, "climate_fever"),
        ]
    out = tmp_path / "trial"
    assert main([*_tiny_trial(tmp_path, pairs), "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["train_pairs"] == 4 and report["train_pairs_by_source"] == {"scifact": 4}
    assert set(report["direction_accuracy"]) == {"val scifact", "heldout scifact"}  # climate_fever left out by default
    assert np.load(out / "probs.npy").shape == (4, 2)
    state = torch.load(out / "top.pt")
    assert {k.split(".")[2] for k in state["layers"]} == {"5"} and set(state["head"]) == {"weight", "bias"}
    with pytest.raises(SystemExit, match="between 1 and 6"):
        main(
            [
                "--base",
                str(packaged_model_path()),
                "--pool-file",
                str(tmp_path / "pool.jsonl.gz"),
                "--top",
                "7",
                "--out",
                str(out),
            ]
        )


@pytest.mark.slow
def test_a_trial_saves_its_state_while_training_and_a_rerun_goes_on_from_the_saved_step(tmp_path, capsys):
    import torch

    from training.trial_base import main

    pairs = [_pair("SUPPORT", "train", "scifact"), _pair("CONTRADICT", "train", "scifact", "Fever rose.")] * 3
    pairs += [_pair("SUPPORT", "val", "scifact")]
    checkpoint = tmp_path / "state" / "trial.pt"
    args = [*_tiny_trial(tmp_path, pairs), "--checkpoint", str(checkpoint)]
    assert main([*args, "--checkpoint-every-s", "0", "--out", str(tmp_path / "a")]) == 0
    saved = torch.load(checkpoint)
    assert saved["step"] == 3 and set(saved["model"]["head"]) == {"weight", "bias"}  # every step saved (3 of 3)
    assert main([*args, "--out", str(tmp_path / "b")]) == 0  # the saved run is complete: nothing left to train
    assert f"resumed from {checkpoint} at step 3" in capsys.readouterr().out
    first, again = np.load(tmp_path / "a" / "probs.npy"), np.load(tmp_path / "b" / "probs.npy")
    assert np.allclose(first, again, atol=1e-5)  # the resumed model is the saved one
