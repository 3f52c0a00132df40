"""`sparkit index build` is idempotent (issue 46, item 3): on a current index it does nothing and says so in one line;
`--force` rebuilds; a changed corpus is updated, encoding only its new and edited records, and the line says so."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pytest

from agent.cli import main
from agent.config import sparkit_home
from agent.tools.index import local_index
from agent.tools.index.local_index import LocalIndex, default_index_dir
from agent.tools.models.encoder import DIM


class RecordingEncoder:
    """Stands in for MiniLM (no model load): hashed bag of words, L2-normalised; remembers every text it encoded."""

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        self.encoded.extend(texts)
        if on_progress is not None:
            on_progress(len(texts))
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                vectors[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def prime(self, texts, vectors):
        pass


@pytest.fixture
def encoder(monkeypatch):
    fake = RecordingEncoder()
    monkeypatch.setattr(local_index, "shared_encoder", lambda: fake)
    return fake


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _rows(n):
    return [{"doc_id": i, "title": f"study {i}", "abstract": [f"finding number {i} about cells."]} for i in range(n)]


def _build(capsys, *args):
    code = main(["index", "build", *args, "-q"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out.strip().splitlines()


def test_a_second_build_of_a_current_index_does_nothing_and_says_so(tmp_path, encoder, capsys):
    corpus = _write(tmp_path / "corpus.jsonl", _rows(40))
    target = tmp_path / "index"
    _build(capsys, str(corpus), "--index-dir", str(target))
    assert len(encoder.encoded) == 40
    before = (target / "embeddings.npy").stat().st_mtime_ns
    encoder.encoded.clear()
    lines = _build(capsys, str(corpus), "--index-dir", str(target))
    assert len(lines) == 1 and lines[0].startswith(f"index up to date: {target} (40 documents; ")
    assert "corpus digest, encoder and tokeniser match" in lines[0] and "--force rebuilds" in lines[0]
    assert encoder.encoded == [] and (target / "embeddings.npy").stat().st_mtime_ns == before
    (forced,) = _build(capsys, str(corpus), "--index-dir", str(target), "--force")
    assert forced.startswith("rebuilt the index (--force): 40 documents") and len(encoder.encoded) == 40


def test_a_changed_corpus_is_updated_encoding_only_its_new_and_edited_records(tmp_path, encoder, capsys):
    rows = _rows(30)
    corpus = _write(tmp_path / "corpus.jsonl", rows)
    _build(capsys, str(corpus))
    first = default_index_dir(corpus, sparkit_home())
    assert first.is_dir()
    encoder.encoded.clear()
    rows[3]["abstract"] = ["an edited finding about neurons."]
    del rows[7]
    rows += [{"doc_id": 100 + i, "title": f"new study {i}", "abstract": [f"new result {i} on mice."]} for i in range(2)]
    _write(corpus, rows)
    (line,) = _build(capsys, str(corpus))
    second = default_index_dir(corpus, sparkit_home())
    assert line.startswith(f"updated the index from {first}: 2 new, 1 edited, 1 removed record(s); 28 unchanged")
    assert line.endswith(f"31 documents in {line.split(' documents in ')[1].split(' s:')[0]} s: {second}")
    assert not first.exists()  # the index of the corpus's previous contents is replaced
    index = LocalIndex.load(second)
    assert sorted(encoder.encoded) == sorted(index.by_id[i].text for i in ("3", "100", "101"))
    assert [r.id for r in index.records] == [str(r["doc_id"]) for r in rows]
    assert index.search("edited finding neurons", 1)[0][0].id == "3"
    assert index.manifest["corpus_sha256"] == local_index.file_digest(corpus)
    encoder.encoded.clear()
    (again,) = _build(capsys, str(corpus))
    assert again.startswith("index up to date: ") and encoder.encoded == []


def test_an_index_without_a_recorded_tokeniser_is_updated_without_encoding(tmp_path, encoder, capsys):
    """An index written before the manifest named its tokeniser is not current, but its vectors still serve."""
    corpus = _write(tmp_path / "corpus.jsonl", _rows(12))
    target = tmp_path / "index"
    _build(capsys, str(corpus), "--index-dir", str(target))
    manifest = json.loads((target / "manifest.json").read_text())
    del manifest["tokeniser"]
    (target / "manifest.json").write_text(json.dumps(manifest))
    encoder.encoded.clear()
    (line,) = _build(capsys, str(corpus), "--index-dir", str(target))
    assert line.startswith("updated the index: 0 new, 0 edited, 0 removed record(s); 12 unchanged")
    assert encoder.encoded == []
    assert _build(capsys, str(corpus), "--index-dir", str(target))[0].startswith("index up to date: ")
