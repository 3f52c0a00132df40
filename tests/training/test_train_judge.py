"""The training script's portable parts: the pool file a run on another machine trains from, and device choice."""

from __future__ import annotations

import pytest

from training.dataset import StancePair
from training.train_judge import read_pool, resolve_device, with_labels, write_pool


def test_a_pool_file_gives_back_exactly_the_pool_and_its_counts(tmp_path):
    pool = [StancePair("Aspirin reduces pain", "Pain fell with aspirin (p<0.01).", "SUPPORT", "rationale", "c1", "train", "scifact", 1.0),
            StancePair("Zinc cures colds", "No effect of zinc on cold duration — ñ.", "CONTRADICT", "healthver", "t7", "val", "healthver", 0.8)]
    path = tmp_path / "pool.jsonl.gz"
    write_pool(path, pool, {"duplicate": 3})
    assert read_pool(path) == (pool, {"duplicate": 3})


def test_cpu_is_always_available_and_cuda_without_a_gpu_is_refused(monkeypatch):
    import torch

    assert resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    with pytest.raises(SystemExit, match="no GPU"):
        resolve_device("cuda")


def test_a_direction_reader_trains_only_on_pairs_that_take_a_side():
    pairs = [StancePair("A lowers B", "B fell.", "SUPPORT", "rationale", "1", "train", "scifact", 1.0),
             StancePair("A lowers B", "B rose.", "CONTRADICT", "rationale", "1", "train", "scifact", 1.0),
             StancePair("A lowers B", "Methods were approved.", "NEUTRAL", "cited", "1", "train", "scifact", 1.0)]
    assert [p.label for p in with_labels(pairs, "support, CONTRADICT")] == ["SUPPORT", "CONTRADICT"]
    assert with_labels(pairs, "SUPPORT,CONTRADICT,NEUTRAL") == pairs
    with pytest.raises(SystemExit, match="expected some of"):
        with_labels(pairs, "SUPPORTS")
