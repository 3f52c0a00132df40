"""An embedded index build that stops midway resumes its encoding: the chunks saved before the stop are loaded, not
encoded again, and the index equals one built without a stop."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent.tools.index import local_index
from agent.tools.index.encode_checkpoint import encode_resumable, work_folder
from agent.tools.index.local_index import LocalIndex
from agent.tools.models.encoder import DIM


class CountingEncoder:
    """A deterministic stand-in for MiniLM that counts what it encodes and can stop after `stop_after` calls."""

    def __init__(self, stop_after: int | None = None):
        self.encoded: list[str] = []
        self.calls = 0
        self.stop_after = stop_after

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        if self.stop_after is not None and self.calls >= self.stop_after:
            raise KeyboardInterrupt
        self.calls += 1
        self.encoded.extend(texts)
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row, sum(map(ord, text)) % DIM] = 1.0
        if on_progress is not None:
            on_progress(len(texts))
        return vectors

    def prime(self, texts, vectors):
        pass


def test_a_stopped_encoding_resumes_from_its_saved_chunks(tmp_path, capsys):
    texts = [f"abstract number {i}" for i in range(10)]
    work = tmp_path / ".encoding-x"
    with pytest.raises(KeyboardInterrupt):
        encode_resumable(texts, work, CountingEncoder(stop_after=2), chunk=3)
    assert len(list(work.glob("chunk-*.npy"))) == 2  # what was done before the stop is on disk
    resumed = CountingEncoder()
    vectors = encode_resumable(texts, work, resumed, chunk=3)
    assert resumed.encoded == texts[6:]  # only the chunks not saved are encoded
    assert "resuming: 6 of 10 records were encoded by an earlier build" in capsys.readouterr().err
    assert np.array_equal(vectors, CountingEncoder().encode(texts))


def test_a_changed_text_is_encoded_again_and_a_small_corpus_saves_nothing(tmp_path):
    texts = [f"abstract {i}" for i in range(6)]
    work = tmp_path / ".encoding-y"
    encode_resumable(texts, work, CountingEncoder(), chunk=3, announce=False)
    changed = ["edited abstract", *texts[1:]]
    again = CountingEncoder()
    encode_resumable(changed, work, again, chunk=3, announce=False)
    assert again.encoded == changed[:3]  # the chunk whose texts changed; the other is reused
    encode_resumable(texts[:2], tmp_path / ".encoding-z", CountingEncoder(), chunk=3)
    assert not (tmp_path / ".encoding-z").exists()


def test_an_index_build_stopped_midway_resumes_and_cleans_up(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": str(i), "title": f"T{i}", "abstract": f"word{i} text {i}"}) + "\n" for i in range(9)),
        encoding="utf-8",
    )
    monkeypatch.setattr(local_index, "encode_resumable", _encode_resumable_in_fours)  # a small chunk
    target = tmp_path / "index" / "corpus-abc"
    monkeypatch.setattr(local_index, "shared_encoder", lambda: CountingEncoder(stop_after=1))
    with pytest.raises(KeyboardInterrupt):
        LocalIndex.build(corpus, target, progress=False)
    assert not target.exists() and len(list(work_folder(target).glob("chunk-*.npy"))) == 1
    finishing = CountingEncoder()
    monkeypatch.setattr(local_index, "shared_encoder", lambda: finishing)
    built = LocalIndex.build(corpus, target, progress=False)
    assert len(finishing.encoded) == 5 and len(built.records) == 9  # the first 4 were loaded
    assert not work_folder(target).exists()  # the chunks go once the index is saved
    fresh = LocalIndex.build(corpus, tmp_path / "index" / "other", progress=False)
    assert np.array_equal(built.embeddings, fresh.embeddings)


def _encode_resumable_in_fours(texts, work, encoder, **options):
    return encode_resumable(texts, work, encoder, **{**options, "chunk": 4})
