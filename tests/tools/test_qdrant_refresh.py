"""The Qdrant build is idempotent (issue 46, item 3): a complete collection of the same corpus is left alone, a changed
corpus updates it in place (new and edited records encoded, removed ones deleted), `force` builds it again."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("qdrant_client")

from agent.tools.index import local_index, qdrant_build, qdrant_index
from agent.tools.index.qdrant_build import build_qdrant_index
from agent.tools.index.qdrant_index import QdrantIndex, QdrantLocation
from tests.tools.test_qdrant_index import HashingEncoder


@pytest.fixture
def encoder(monkeypatch):
    fake = HashingEncoder()
    for module in (qdrant_index, qdrant_build, local_index):
        monkeypatch.setattr(module, "shared_encoder", lambda: fake)
    return fake


@pytest.fixture(autouse=True)
def fresh_clients():
    yield
    qdrant_index._close_local_clients()


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _rows(n):
    return [{"doc_id": i, "title": f"study {i}", "abstract": [f"finding number {i} about cells."]} for i in range(n)]


def _build(corpus, tmp_path, **options):
    report = build_qdrant_index(
        corpus, QdrantLocation(collection="c", path=str(tmp_path / "qdrant")), batch_size=8, progress=False, **options
    )
    qdrant_index._close_local_clients()  # as a new process would
    return report


def test_a_second_build_of_a_current_collection_reads_and_encodes_nothing(tmp_path, encoder):
    corpus = _write(tmp_path / "corpus.jsonl", _rows(20))
    assert _build(corpus, tmp_path).added == 20
    encoder.encoded.clear()
    again = _build(corpus, tmp_path)
    assert again.up_to_date and (again.documents, again.added) == (20, 0) and encoder.encoded == []
    assert "is up to date (20 documents; corpus digest, encoder and tokeniser match): nothing to do" in again.line()
    forced = _build(corpus, tmp_path, force=True)
    assert not forced.up_to_date and (forced.documents, forced.added, forced.skipped) == (20, 20, 0)
    assert len(encoder.encoded) == 20


def test_a_changed_corpus_updates_the_collection_in_place(tmp_path, encoder):
    rows = _rows(20)
    corpus = _write(tmp_path / "corpus.jsonl", rows)
    _build(corpus, tmp_path)
    encoder.encoded.clear()
    rows[3]["abstract"] = ["an edited finding about neurons."]
    del rows[7]
    rows += [{"doc_id": 100 + i, "title": f"new study {i}", "abstract": [f"new result {i} on mice."]} for i in range(2)]
    _write(corpus, rows)
    report = _build(corpus, tmp_path)
    assert report.updated and (report.added, report.edited, report.removed, report.skipped) == (2, 1, 1, 18)
    assert report.documents == 21 and len(encoder.encoded) == 3
    assert (
        report.line().startswith("updated collection c (") and "2 new, 1 edited, 1 removed record(s)" in report.line()
    )
    index = QdrantIndex.open(QdrantLocation(collection="c", path=str(tmp_path / "qdrant")))
    assert index.documents == 21 and index.search_scored("edited finding neurons", 1)[0][0].id == "3"
    assert "7" not in {r.id for r, _ in index.search_scored("finding number 7 about cells", 21)}
    qdrant_index._close_local_clients()
    encoder.encoded.clear()
    assert _build(corpus, tmp_path).up_to_date and encoder.encoded == []
