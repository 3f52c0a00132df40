"""The Qdrant index in a folder, on Qdrant Edge (the default: the server's engine in-process) and in qdrant-client's
local mode (the client calls a server gets): the same hybrid ranking as the embedded index, a build that resumes where
it stopped, and a collection built with another embedder or tokeniser refused with the reason."""

from __future__ import annotations

import hashlib
import itertools
import json
import re

import numpy as np
import pytest

pytest.importorskip("qdrant_client")

from agent.cli import main
from agent.errors import ConfigurationError, CorpusError
from agent.tools.index import local_index, qdrant_build, qdrant_index
from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.local_index import LocalIndex
from agent.tools.index.qdrant_build import build_qdrant_index
from agent.tools.index.qdrant_index import META_KEY, QdrantIndex, QdrantLocation
from agent.tools.models.encoder import DIM
from tests.conftest import DATA, REPO

SCIFACT = DATA / "scifact" / "corpus.jsonl"
PUBMED_SAMPLE = REPO / "tests" / "data" / "pubmed_sample.xml.gz"


class HashingEncoder:
    """Stands in for MiniLM (no model load): a bag of hashed lower-case words, L2-normalised, so texts sharing words
    are close. Counts what it encodes."""

    def __init__(self):
        self.encoded: list[str] = []

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        self.encoded.extend(texts)
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                vectors[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
        norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors / norms

    def prime(self, texts, vectors):
        pass


@pytest.fixture
def encoder(monkeypatch):
    fake = HashingEncoder()
    monkeypatch.setattr(qdrant_index, "shared_encoder", lambda: fake)
    monkeypatch.setattr(qdrant_build, "shared_encoder", lambda: fake)
    monkeypatch.setattr(local_index, "shared_encoder", lambda: fake)
    return fake


@pytest.fixture
def scifact_sample(tmp_path):
    """The first 200 SciFact abstracts as a corpus file."""
    if not SCIFACT.exists():
        pytest.skip("the shared SciFact corpus is absent")
    path = tmp_path / "scifact-200.jsonl"
    path.write_text("".join(itertools.islice(SCIFACT.open(encoding="utf-8"), 200)), encoding="utf-8")
    return path


LOCAL = {"engine": "edge"}


@pytest.fixture(autouse=True, params=["edge", "client"])
def local_engine(request):
    """Every test on Qdrant Edge and on qdrant-client's local mode (the calls a server gets)."""
    if request.param == "edge":
        pytest.importorskip("qdrant_edge")
    LOCAL["engine"] = request.param
    yield request.param
    LOCAL["engine"] = "edge"


def _location(tmp_path, name="test"):
    return QdrantLocation(collection=name, path=str(tmp_path / "qdrant"), local=LOCAL["engine"])


def _forget_clients():
    """As a new process would: the next connect opens the folder again from disk."""
    qdrant_index._close_local_clients()


@pytest.fixture(autouse=True)
def fresh_clients():
    yield
    _forget_clients()


def test_hybrid_search_ranks_and_scores_as_the_embedded_index(tmp_path, encoder, scifact_sample):
    report = build_qdrant_index(scifact_sample, _location(tmp_path), batch_size=64, progress=False)
    assert (report.documents, report.added, report.skipped) == (200, 200, 0)
    index = QdrantIndex.open(_location(tmp_path))
    embedded = LocalIndex.from_records(load_corpus(scifact_sample))
    queries = [embedded.records[17].title, "dementia risk in older adults", "the of and"]  # the last: stopwords only
    for query in queries:
        ours, theirs = index.search_scored(query, 20), embedded.search_scored(query, 20)
        assert [r.id for r, _ in ours] == [r.id for r, _ in theirs], query
        for (_, a), (_, b) in zip(ours, theirs, strict=True):
            assert a["rank"] == b["rank"] and a["fused"] == pytest.approx(b["fused"], abs=1e-6)
            assert a["bm25"] == pytest.approx(b["bm25"], abs=2e-3) and a["dense"] == pytest.approx(b["dense"], abs=2e-4)
        assert [r for r, _ in ours] == [r for r, _ in theirs]  # whole records come back, every field
    assert index.search_scored(embedded.records[17].title, 5)[0][0].id == embedded.records[17].id
    assert index.word_counts() == local_index.word_counts(embedded.records)
    assert index.manifest["documents"] == 200 and index.manifest["corpus_sha256"] == local_index.file_digest(
        scifact_sample
    )


def test_an_interrupted_build_resumes_without_encoding_what_is_stored(tmp_path, encoder, scifact_sample, capsys):
    calls = []
    real = encoder.encode

    def interrupted(texts, **kwargs):
        calls.append(len(texts))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(texts, **kwargs)

    encoder.encode = interrupted
    with pytest.raises(KeyboardInterrupt):
        build_qdrant_index(scifact_sample, _location(tmp_path), batch_size=50, progress=True)
    assert "interrupted: 100 records are in collection 'test'" in capsys.readouterr().err
    _forget_clients()
    with pytest.raises(CorpusError, match=r"incomplete.*resume"):
        QdrantIndex.open(_location(tmp_path))
    _forget_clients()
    encoder.encode, encoder.encoded = real, []
    report = build_qdrant_index(scifact_sample, _location(tmp_path), batch_size=50, progress=True)
    assert "resuming: 100 records are already in" in capsys.readouterr().err
    done = {r.text for r in itertools.islice(load_corpus(scifact_sample), 100)}
    assert len(encoder.encoded) == 100 and not done & set(encoder.encoded)
    assert (report.documents, report.added, report.skipped) == (200, 100, 100)
    index = QdrantIndex.open(_location(tmp_path))
    assert index.documents == 200 and index.word_counts() == local_index.word_counts(load_corpus(scifact_sample))


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("embedder", "bge-small-en-v1.5", "embedder 'bge-small-en-v1.5'"),
        ("tokeniser", "whitespace/v0", "tokeniser 'whitespace/v0'"),
        ("dim", 768, "vector size 768"),
    ],
)
def test_a_collection_built_with_another_embedder_or_tokeniser_is_refused(tmp_path, encoder, key, value, reason):
    build_qdrant_index(PUBMED_SAMPLE, _location(tmp_path), progress=False)
    client = qdrant_index.connect(_location(tmp_path))
    meta = client.get_collection("test").config.metadata[META_KEY]
    client.update_collection("test", metadata={META_KEY: {**meta, key: value}})
    with pytest.raises(CorpusError, match=f"refused: it was built with {re.escape(reason)}"):
        QdrantIndex.open(_location(tmp_path))
    encoder.encoded = []
    with pytest.raises(CorpusError, match=f"refused: it was built with {re.escape(reason)}"):
        build_qdrant_index(PUBMED_SAMPLE, _location(tmp_path), progress=False)
    assert encoder.encoded == []  # refused before anything was encoded or written


def test_a_collection_not_built_by_sparkit_is_refused(tmp_path):
    from qdrant_client.http import models

    client = qdrant_index.connect(_location(tmp_path))
    client.create_collection("test", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE))
    with pytest.raises(CorpusError, match="no SPARKIT metadata"):
        QdrantIndex.open(_location(tmp_path))
    with pytest.raises(CorpusError, match="does not exist: build it with `sparkit index build --engine qdrant`"):
        QdrantIndex.open(_location(tmp_path, "absent"))


def test_pubmed_xml_builds_with_citations(tmp_path, encoder):
    report = build_qdrant_index(PUBMED_SAMPLE, _location(tmp_path), progress=False)
    assert report.documents == 3  # the letter without an abstract is left out
    index = QdrantIndex.open(_location(tmp_path))
    assert index.has_citations
    top = index.search_scored("Does hypoglycemia increase the risk of dementia?", 3)[0][0]
    assert top.id == "90000001" and top.doi == "10.1000/example.1" and top.year == 2019
    assert [r.id for r in index.neighbours("90000001")] == ["90000002", "90000004"]  # cited, then citing


def test_the_offline_backend_searches_the_collection_when_settings_say_qdrant(tmp_path, encoder):
    from agent.backend.search_parts import offline_indexes
    from agent.settings.sources import CorpusSettings

    build_qdrant_index(PUBMED_SAMPLE, _location(tmp_path, "pubmed"), progress=False)
    settings = CorpusSettings(
        index="qdrant", qdrant_path=str(tmp_path / "qdrant"), qdrant_collection="pubmed", use_library="off"
    )
    if LOCAL["engine"] == "client":  # settings open a folder with Qdrant Edge: a local-mode folder is named, not read
        _forget_clients()
        with pytest.raises(ConfigurationError, match="holds collection 'pubmed' in qdrant-client's local mode"):
            offline_indexes(settings, None)
        return
    indexes, labels = offline_indexes(settings, None)
    assert isinstance(indexes[0], QdrantIndex) and labels == ["pubmed_sample.xml.gz (3 records)"]
    with pytest.raises(CorpusError, match=r"'elsewhere'.*does not exist"):
        offline_indexes(settings.model_copy(update={"qdrant_collection": "elsewhere"}), None)


def test_cli_builds_a_collection_from_pubmed_xml(tmp_path, encoder, capsys):
    target = str(tmp_path / "qdrant")
    code = main(
        [
            "index",
            "build",
            str(PUBMED_SAMPLE),
            "--engine",
            "qdrant",
            "--qdrant-path",
            target,
            "--collection",
            "pm",
            "-q",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "indexed 3 documents (3 added, 0 already there): collection pm" in out
    _forget_clients()
    assert (
        main(
            [
                "index",
                "build",
                str(PUBMED_SAMPLE),
                "--engine",
                "qdrant",
                "--qdrant-path",
                target,
                "--collection",
                "pm",
                "-q",
            ]
        )
        == 0
    )
    assert "collection pm (Qdrant Edge at " in (out := capsys.readouterr().out) and "is up to date (3 documents" in out


def test_cli_bad_input_and_an_unreachable_server_are_one_line_exit_2(tmp_path, encoder, capsys):
    assert main(["index", "build", str(PUBMED_SAMPLE), "--engine", "qdrant", "--batch-size", "0"]) == 2
    assert "must be 1 or more" in capsys.readouterr().err
    bad = tmp_path / "corpus.txt"
    bad.write_text("x", encoding="utf-8")
    assert main(["index", "build", str(bad), "--engine", "qdrant", "-q"]) == 2
    assert "not a corpus file" in capsys.readouterr().err
    code = main(
        ["index", "build", str(PUBMED_SAMPLE), "--engine", "qdrant", "--qdrant-url", "http://127.0.0.1:9", "-q"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        code == 2
        and len(err) == 1
        and "Qdrant at http://127.0.0.1:9 is unreachable" in err[0]
        and "start the server" in err[0]
    )


def test_a_local_folder_another_process_holds_is_refused_with_the_reason(tmp_path):
    import fcntl

    folder = tmp_path / "qdrant"
    folder.mkdir()
    (folder / ".lock").write_text("held")
    with (folder / ".lock").open("r+") as held:  # what another process's client holds: an exclusive flock on .lock
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ConfigurationError, match=r"cannot be opened .*one process at a time: run a Qdrant server"):
            qdrant_index.connect(QdrantLocation(collection="x", path=str(folder), local=LOCAL["engine"]))


def test_pubmed_reader_fields_and_faults(tmp_path):
    import gzip

    from agent.tools.index.corpus_stream import count_records, iter_records

    records = list(iter_records(PUBMED_SAMPLE))
    assert count_records(PUBMED_SAMPLE) == 4 and [r.id for r in records] == ["90000001", "90000002", "90000004"]
    first = records[0]
    assert first.sentences[0].startswith("BACKGROUND: Hypoglycemic") and first.authors == [
        "Ada Okafor",
        "Example Study Group",
    ]
    assert records[1].abstract == "Vitamin D supplementation reduced hip fracture risk by 18% in adults over 65."
    assert records[1].year == 2015 and records[2].references == ["90000001"]
    broken = tmp_path / "broken.xml.gz"
    broken.write_bytes(gzip.compress(b"<PubmedArticleSet><PubmedArticle><MedlineCitation>"))
    with pytest.raises(CorpusError, match=r"broken.xml.gz is not PubMed XML"):
        list(iter_records(broken))
    bomb = tmp_path / "bomb.xml"
    entities = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'  # entity expansion, refused
    bomb.write_text(f'<?xml version="1.0"?>{entities}<PubmedArticleSet>&b;</PubmedArticleSet>')
    with pytest.raises(CorpusError, match="not PubMed XML"):
        list(iter_records(bomb))
    folder = tmp_path / "baseline"
    folder.mkdir()
    (folder / "pubmed25n0001.xml.gz").write_bytes(PUBMED_SAMPLE.read_bytes())
    (folder / "notes.txt").write_text("ignored")
    assert [r.id for r in iter_records(folder)] == ["90000001", "90000002", "90000004"]


def test_a_jsonl_corpus_streams_as_the_embedded_index_reads_it(tmp_path):
    from agent.tools.index.corpus_stream import iter_records

    path = tmp_path / "c.jsonl"
    path.write_text(
        "\n".join(json.dumps(o) for o in [{"doc_id": 1, "title": "A", "abstract": ["x y."]}, {"_id": "b", "text": "z"}])
    )
    assert list(iter_records(path)) == load_corpus(path)
    path.write_text('{"doc_id": 1}\nnot json\n')
    with pytest.raises(CorpusError, match=r"c.jsonl line 2 is not valid JSON"):
        list(iter_records(path))
