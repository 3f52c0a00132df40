"""The judge's stages on a lent GPU: the general NLI pairs, the encoder packed to travel, the NLI stage, the driver."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from tests.training.test_train_judge import _tiny_pool
from training.dataset import default_data_dir
from training.nli import FILES, load_nli

NLI_DIR = default_data_dir() / "nli"


@pytest.mark.skipif(not NLI_DIR.is_dir(), reason="../shared/data/nli is not beside the checkout")
def test_the_nli_stage_reads_only_commercially_usable_sets_with_the_claim_as_the_statement():
    pairs = load_nli()
    assert {p.source for p in pairs} == {"nli_mnli", "nli_snli", "nli_snli_cad", "nli_scinli", "nli_fever_symmetric"}
    assert {p.label for p in pairs if p.source == "nli_scinli"} == {
        "SUPPORT",
        "NEUTRAL",
    }  # discourse relations left out
    assert {p.split for p in pairs if p.source == "nli_fever_symmetric"} == {"val"}
    mnli = [p for p in pairs if p.source == "nli_mnli"]
    assert 0.08 < sum(p.split == "val" for p in mnli) / len(mnli) < 0.12
    with gzip.open(NLI_DIR / "mnli" / "dev_matched.jsonl.gz", "rt", encoding="utf-8") as handle:
        first = json.loads(handle.readline())
    mine = next(p for p in mnli if p.group == f"mnli:{first['id']}")
    assert (mine.statement, mine.passage) == (first["hypothesis"], first["premise"])


def test_a_folder_named_for_the_encoder_must_hold_one(tmp_path, monkeypatch):
    from agent.errors import ConfigurationError
    from agent.tools.models.encoder import ENCODER_DIR_VARIABLE, packaged_model_path

    monkeypatch.setenv(ENCODER_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(ConfigurationError, match="not an all-MiniLM-L6-v2 folder"):
        packaged_model_path()
    (tmp_path / "config.json").write_text("{}")
    assert packaged_model_path() == str(tmp_path)


@pytest.mark.slow
def test_the_packed_encoder_unpacks_to_the_package_where_it_was_kept_and_refuses_a_token_left_out(
    tmp_path, monkeypatch
):
    import torch
    from safetensors.numpy import load_file

    from agent.judges.cross import build_network, load_tokenizer, tokenize
    from agent.tools.models.encoder import ENCODER_DIR_VARIABLE, packaged_model_path
    from training.encoder_pack import WORD_EMBEDDINGS, guard_rows, pack, unpack

    package = Path(packaged_model_path())
    sizes = pack(package, tmp_path / "pack", ["Aspirin lowers fever.", "Fever fell after aspirin."])
    assert sizes["vocab_kept"] < 0.01  # the special tokens and these words only
    rows = unpack(tmp_path / "pack", tmp_path / "minilm")
    original, unpacked = (
        load_file(str(package / "model.safetensors")),
        load_file(str(tmp_path / "minilm" / "model.safetensors")),
    )
    assert np.allclose(
        unpacked[WORD_EMBEDDINGS][rows], original[WORD_EMBEDDINGS][rows], atol=1e-3
    )  # frozen: exact to fp16
    others = np.setdiff1d(np.arange(original[WORD_EMBEDDINGS].shape[0]), rows)
    assert not unpacked[WORD_EMBEDDINGS][others].any()
    name = "encoder.layer.0.attention.self.query.weight"
    step = np.abs(original[name]).max(axis=1, keepdims=True) / 127
    assert (np.abs(unpacked[name] - original[name]) <= step / 2 + 1e-6).all()  # trained: int8 is enough to start from
    monkeypatch.setenv(ENCODER_DIR_VARIABLE, str(tmp_path / "minilm"))
    network, tokenizer = build_network(), load_tokenizer()
    guard_rows(network, rows)
    known = tokenize(tokenizer, [("Aspirin lowers fever.", "Fever fell after aspirin.")])
    with torch.inference_mode():
        assert network(known["input_ids"], known["attention_mask"], known["token_type_ids"]).shape == (1, 3)
        unknown = tokenize(tokenizer, [("Statins lower cholesterol.", "Fever fell after aspirin.")])
        with pytest.raises(RuntimeError, match="no packed embedding row"):
            network(unknown["input_ids"], unknown["attention_mask"], unknown["token_type_ids"])


def _tiny_data(root: Path) -> None:
    """A pool file and an nli/ folder with two pairs per file (the loader reads every file the stage uses)."""
    rows = [
        {
            "id": "a",
            "premise": "Fever fell after aspirin.",
            "hypothesis": "Aspirin lowers fever",
            "label": "entailment",
        },
        {
            "id": "b",
            "premise": "Fever rose after aspirin.",
            "hypothesis": "Aspirin lowers fever",
            "label": "contradiction",
        },
    ]
    for folder, name, _, _ in FILES:
        path = root / "nli" / folder / f"{name}.jsonl.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = (
            rows
            if folder != "fever_symmetric"
            else [{**r, "label": r["label"].replace("entailment", "SUPPORTS")} for r in rows[:1]]
        )
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.writelines(json.dumps({**r, "id": f"{folder}-{r['id']}"}) + "\n" for r in kept)
    _tiny_pool(root / "pool.jsonl.gz")


@pytest.mark.slow
def test_the_nli_stage_runs_before_the_pool_and_is_reported(tmp_path):
    from training.train_judge import main

    _tiny_data(tmp_path)
    report = tmp_path / "report.json"
    argv = [
        "--pool-file",
        str(tmp_path / "pool.jsonl.gz"),
        "--data-dir",
        str(tmp_path),
        "--nli-epochs",
        "1",
        "--epochs",
        "1",
        "--max-len",
        "32",
        "--skip-heldout",
        "--out",
        str(tmp_path / "j.npz"),
        "--report",
        str(report),
    ]
    assert main(argv) == 0
    history = json.loads(report.read_text())["history"]
    assert [h["stage"] for h in history] == ["nli", "nli", "pooled"]
    assert set(history[1]["nli_val"]) == {
        "nli_mnli",
        "nli_fever_symmetric",
    }  # "mnli-a" hashes into MNLI's held-out tenth


@pytest.mark.slow
def test_the_driver_trains_each_configuration_and_reports_it_with_its_reading_check(tmp_path, monkeypatch):
    from agent.tools.models.encoder import packaged_model_path
    from training import gpu_stages
    from training.encoder_pack import pack

    _tiny_data(tmp_path)
    texts = [line for line in gpu_stages.READING_CHECK.read_text().splitlines() if line]
    rows = [json.loads(line) for line in texts]
    pack(
        Path(packaged_model_path()),
        tmp_path / "pack",
        ["Aspirin lowers fever", "Fever fell after aspirin.", "Fever rose after aspirin."]
        + [r["statement"] for r in rows]
        + [r["passage"] for r in rows],
    )
    monkeypatch.setattr(gpu_stages, "COMMON", ("--max-len", "32", "--skip-heldout"))
    out = tmp_path / "out"
    assert (
        gpu_stages.main(
            [
                "--pack",
                str(tmp_path / "pack"),
                "--pool-file",
                str(tmp_path / "pool.jsonl.gz"),
                "--data-dir",
                str(tmp_path),
                "--out",
                str(out),
                "--device",
                "cpu",
                "--configs",
                "pool,nli_pool_contrast_indomain",
                "--max-train",
                "4",
                "--work-dir",
                str(tmp_path / "work"),
            ]
        )
        == 0
    )
    assert (tmp_path / "work" / "checkpoints" / "pool").is_dir()  # scratch stays under --work-dir
    merged = json.loads((out / "reports.json").read_text())
    assert set(merged["runs"]) == {"pool"}
    assert merged["skipped"] == [
        "nli_pool_contrast_indomain"
    ]  # it continues its parent's best epoch, which did not run
    pool = merged["runs"]["pool"]
    assert 0 <= pool["reading_check_cross_alone"]["overall"] <= 1 and "ratio" in pool["reading_check_cross_alone"]
    assert (out / "pool.npz").is_file()
