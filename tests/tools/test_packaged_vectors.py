"""The default corpus's vectors ship with the package (issue 51, item 2): a build of that corpus loads them instead of
encoding; any other corpus is encoded as before; a damaged vectors file is reported in one line and the corpus is
encoded instead, so an answer never comes from vectors that are not its corpus's."""

from __future__ import annotations

import fnmatch
import json
import tomllib

import numpy as np
import pytest

from agent.backend.corpus import SCIFACT_SHA256
from agent.tools.index import local_index, packaged_vectors
from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.local_index import LocalIndex, file_digest
from agent.tools.index.packaged_vectors import MANIFEST, MODELS, quantised, read_manifest, restored
from agent.tools.models.encoder import DIM
from tests.conftest import DATA, REPO
from tests.tools.test_index_build_progress import _corpus
from training.pack_corpus_vectors import pack


class CountingEncoder:
    """Stands in for MiniLM and counts the texts it is asked to encode."""

    encoded = 0

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        CountingEncoder.encoded += len(texts)
        if on_progress is not None:
            on_progress(len(texts))
        vectors = np.ones((len(texts), DIM), dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def prime(self, texts, vectors):
        pass


def _unit(rows: int, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """Vectors packed for a small corpus into a stand-in for agent/models, and an encoder that counts."""
    folder = tmp_path / "models"
    folder.mkdir()
    corpus = _corpus(tmp_path, 5)
    vectors = _unit(5)
    manifest = pack(vectors, corpus, [r.text for r in load_corpus(corpus)], "int8", folder)
    monkeypatch.setattr(packaged_vectors, "MODELS", folder)
    CountingEncoder.encoded = 0
    monkeypatch.setattr(local_index, "shared_encoder", CountingEncoder)
    return corpus, folder, manifest, vectors


@pytest.mark.parametrize(("dtype", "floor"), [("int8", 0.9995), ("bf16", 0.99999)])
def test_stored_vectors_come_back_close_to_the_fp32_ones(dtype, floor):
    vectors = _unit(200)
    back = restored(quantised(vectors, dtype), dtype)
    assert back.dtype == np.float32 and back.shape == vectors.shape
    assert np.einsum("ij,ij->i", back, vectors).min() > floor
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-5)


def test_a_build_of_the_corpus_the_vectors_were_made_for_loads_them_and_encodes_nothing(
    shipped, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("SPARKIT_PROGRESS", raising=False)
    corpus, _, _, vectors = shipped
    index = LocalIndex.build(corpus, tmp_path / "index")
    assert CountingEncoder.encoded == 0
    assert np.einsum("ij,ij->i", index.embeddings, vectors).min() > 0.999
    assert "from the vectors shipped for it" in capsys.readouterr().err
    assert np.array_equal(LocalIndex.load(tmp_path / "index").embeddings, index.embeddings)  # saved as any index


def test_any_other_corpus_is_encoded_as_before(shipped, tmp_path, capsys):
    (tmp_path / "other").mkdir()
    other = _corpus(tmp_path / "other", 6)  # another file: another sha256
    index = LocalIndex.build(other, tmp_path / "index")
    assert CountingEncoder.encoded == 6
    assert np.allclose(index.embeddings, CountingEncoder().encode(["x"] * 6))
    assert "warning" not in capsys.readouterr().err


def test_the_same_file_read_into_other_texts_is_encoded(shipped, tmp_path):
    """The corpus's digest matches but this code reads other texts from it (a changed reader): its own vectors."""
    corpus, folder, manifest, _ = shipped
    (folder / MANIFEST).write_text(json.dumps({**manifest, "texts_sha256": "0" * 64}), encoding="utf-8")
    LocalIndex.build(corpus, tmp_path / "index")
    assert CountingEncoder.encoded == 5


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: data[:-100], "bytes, expected"),  # truncated
        (lambda data: data[:200] + bytes([data[200] ^ 0xFF]) + data[201:], "sha256 mismatch"),  # a flipped byte
        (lambda data: b"", "bytes, expected"),
    ],
)
def test_a_damaged_vectors_file_warns_in_one_line_and_the_corpus_is_encoded(shipped, tmp_path, capsys, damage, reason):
    corpus, folder, manifest, _ = shipped
    path = folder / manifest["file"]
    path.write_bytes(damage(path.read_bytes()))
    index = LocalIndex.build(corpus, tmp_path / "index")
    assert CountingEncoder.encoded == 5
    assert np.allclose(index.embeddings, CountingEncoder().encode(["x"] * 5))
    (warning,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert manifest["file"] in warning and reason in warning and "encoding the corpus instead" in warning


def test_a_missing_vectors_file_or_a_wrong_shape_is_damage_too(shipped, tmp_path, capsys):
    corpus, folder, manifest, _ = shipped
    (folder / MANIFEST).write_text(json.dumps({**manifest, "shape": [4, DIM]}), encoding="utf-8")
    LocalIndex.build(corpus, tmp_path / "a")
    assert "shape" in capsys.readouterr().err
    (folder / manifest["file"]).unlink()
    LocalIndex.build(corpus, tmp_path / "b")
    assert "(missing)" in capsys.readouterr().err
    assert CountingEncoder.encoded == 10


def test_the_shipped_manifest_is_the_default_corpus_and_its_file_ships_in_the_wheel():
    manifest = read_manifest(MODELS)
    assert manifest is not None and manifest["corpus_sha256"] == SCIFACT_SHA256
    assert manifest["shape"] == [5183, DIM] and manifest["dtype"] in ("int8", "bf16")
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["agent"]
    for name in (MANIFEST, manifest["file"]):
        assert any(fnmatch.fnmatch(f"models/{name}", pattern) for pattern in patterns), name


def test_the_packaged_models_stay_within_their_budget():
    """All packaged model files within the package's ~60 MB: 30 MB of them were kept for a larger reader that pays out
    of fold, which the MPNet decider's 25 MB adapter now takes (agent/models/MODEL_CARD.md)."""
    assert sum(p.stat().st_size for p in MODELS.iterdir() if p.is_file()) < 60_000_000


@pytest.mark.skipif(not (DATA / "scifact" / "corpus.jsonl").is_file(), reason="needs ../shared/data/scifact")
def test_the_shipped_vectors_apply_to_the_scifact_corpus_as_this_code_reads_it():
    corpus = DATA / "scifact" / "corpus.jsonl"
    assert file_digest(corpus) == SCIFACT_SHA256
    vectors = packaged_vectors.packaged_vectors(SCIFACT_SHA256, [r.text for r in load_corpus(corpus)])
    assert vectors is not None and vectors.shape == (5183, DIM)
