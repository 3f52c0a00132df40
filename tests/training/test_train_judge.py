"""The training script's portable parts: the pool file a run on another machine trains from, and device choice."""

from __future__ import annotations

import pytest

from training.dataset import StancePair
from training.train_judge import read_pool, resolve_device, with_labels, write_pool


def test_a_pool_file_gives_back_exactly_the_pool_and_its_counts(tmp_path):
    pool = [
        StancePair(
            "Aspirin reduces pain",
            "Pain fell with aspirin (p<0.01).",
            "SUPPORT",
            "rationale",
            "c1",
            "train",
            "scifact",
            1.0,
        ),
        StancePair(
            "Zinc cures colds",
            "No effect of zinc on cold duration — ñ.",
            "CONTRADICT",
            "healthver",
            "t7",
            "val",
            "healthver",
            0.8,
        ),
    ]
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
    pairs = [
        StancePair("A lowers B", "B fell.", "SUPPORT", "rationale", "1", "train", "scifact", 1.0),
        StancePair("A lowers B", "B rose.", "CONTRADICT", "rationale", "1", "train", "scifact", 1.0),
        StancePair("A lowers B", "Methods were approved.", "NEUTRAL", "cited", "1", "train", "scifact", 1.0),
    ]
    assert [p.label for p in with_labels(pairs, "support, CONTRADICT")] == ["SUPPORT", "CONTRADICT"]
    assert with_labels(pairs, "SUPPORT,CONTRADICT,NEUTRAL") == pairs
    with pytest.raises(SystemExit, match="expected some of"):
        with_labels(pairs, "SUPPORTS")


def _tiny_pool(path):
    pairs = []
    for split in ("train", "train", "val", "heldout"):
        pairs += [
            StancePair(
                "Aspirin lowers fever", "Fever fell after aspirin.", "SUPPORT", "rationale", "1", split, "scifact", 1.0
            ),
            StancePair(
                "Aspirin lowers fever",
                "Fever rose after aspirin.",
                "CONTRADICT",
                "rationale",
                "1",
                split,
                "scifact",
                1.0,
            ),
        ]
    write_pool(path, pairs, {})


@pytest.mark.slow
@pytest.mark.parametrize("int8", [False, True])
def test_training_only_the_top_layers_ships_them_alone_read_over_the_init_file(tmp_path, int8):
    import numpy as np

    from agent.errors import ConfigurationError
    from agent.judges.cross import CrossStanceModel, default_cross_weights_path
    from training.train_judge import main

    _tiny_pool(tmp_path / "pool.jsonl.gz")
    init = tmp_path / "init.npz"
    init.write_bytes(default_cross_weights_path().read_bytes())
    out = tmp_path / "top.npz"
    assert (
        main(
            [
                "--pool-file",
                str(tmp_path / "pool.jsonl.gz"),
                "--init",
                str(init),
                "--train-layers",
                "1",
                "--epochs",
                "1",
                "--labels",
                "SUPPORT,CONTRADICT",
                "--max-len",
                "32",
                "--out",
                str(out),
            ]
            + (["--int8"] if int8 else [])
        )
        == 0
    )
    with np.load(out) as shipped:
        layers = {k.split(".")[3] for k in shipped.files if k.startswith("encoder.encoder.layer.")}
        assert layers == {"5"} and "head.weight" in shipped.files
        assert shipped["encoder.encoder.layer.5.output.dense.weight"].dtype == (np.int8 if int8 else np.float16)
    model, packaged = CrossStanceModel(out), CrossStanceModel(init)
    below, top = "encoder.encoder.layer.4.output.dense.weight", "encoder.encoder.layer.5.output.dense.weight"
    state, init_state = model.network.state_dict(), packaged.network.state_dict()
    assert (state[below] == init_state[below]).all()  # read from the init file, not the bare base model
    assert not (state[top] == init_state[top]).all()  # trained
    init.write_bytes(init.read_bytes() + b"\0")  # another file under the same name
    with pytest.raises(ConfigurationError, match=r"train only the top layers over init.npz"):
        CrossStanceModel(out)


def test_training_top_layers_needs_the_weights_below_them(tmp_path):
    from training.train_judge import main

    _tiny_pool(tmp_path / "pool.jsonl.gz")
    with pytest.raises(SystemExit, match="needs --init"):
        main(["--pool-file", str(tmp_path / "pool.jsonl.gz"), "--train-layers", "2", "--epochs", "1", "--no-write"])


def test_int8_weights_load_back_within_half_a_step_of_each_row():
    import numpy as np

    from agent.errors import ConfigurationError
    from agent.judges.cross import SCALE_SUFFIX, dequantized
    from training.train_judge import quantized

    rng = np.random.default_rng(0)
    weight, bias = rng.normal(0, 0.05, (6, 8)).astype(np.float32), rng.normal(0, 1, 8).astype(np.float32)
    weight[2] *= 40  # rows of very different size keep their own scale
    stored = {**quantized("w", weight), **quantized("b", bias)}
    assert stored["w"].dtype == np.int8 and stored["b"].dtype == np.float16 and "b" + SCALE_SUFFIX not in stored
    back = dequantized(stored)
    assert set(back) == {"w", "b"}
    step = np.abs(weight).max(axis=1, keepdims=True) / 127
    assert (np.abs(back["w"] - weight) <= step / 2 + 1e-3 * step).all()
    assert np.allclose(back["b"], bias, atol=1e-2)
    with pytest.raises(ConfigurationError, match="without their scales"):
        dequantized({"w": stored["w"]})
