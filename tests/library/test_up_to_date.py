"""`sparkit library add` on input already in the library does nothing and says so in one line (issue 46, item 3):
nothing is encoded or written, and an indexed JSONL corpus's vectors are not even loaded."""

from __future__ import annotations

import json

from agent.cli import main
from agent.library import store
from tests.library.conftest import SMALL_CORPUS


def test_a_second_add_of_the_same_input_indexes_nothing_and_says_so(tmp_path, encoder, capsys, monkeypatch):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(doc) + "\n" for doc in SMALL_CORPUS), encoding="utf-8")
    library = tmp_path / "library"
    assert main(["index", "build", str(corpus), "-q"]) == 0  # an indexed corpus, whose vectors an add may reuse
    capsys.readouterr()
    assert main(["library", "add", str(corpus), "--library", str(library), "-q"]) == 0
    assert capsys.readouterr().out.startswith("added 3 document(s)")
    reused: list[object] = []
    real = store._reuse_corpus_vectors
    monkeypatch.setattr(store, "_reuse_corpus_vectors", lambda path: reused.append(path) or real(path))
    manifest = (library / "manifest.json").stat().st_mtime_ns
    encoder.encoded.clear()
    assert main(["library", "add", str(corpus), "--library", str(library), "-q"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "the library is up to date: the 3 document(s) given are already in it; nothing to index ("
    )
    assert lines[0].endswith("the library has 3 document(s))")
    assert encoder.encoded == [] and reused == [] and (library / "manifest.json").stat().st_mtime_ns == manifest
    extra = tmp_path / "more.jsonl"
    extra.write_text(json.dumps({"doc_id": 904, "title": "Tidal locking", "abstract": ["Moons lock."]}) + "\n")
    assert main(["library", "add", str(corpus), str(extra), "--library", str(library), "-q"]) == 0
    assert capsys.readouterr().out.startswith("added 1 document(s), updated 0, 3 already in the library")
    assert encoder.encoded and reused == [corpus, extra]
