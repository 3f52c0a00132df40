"""The library: adds that grow the index without a rebuild, dedupe, removal, references, and commits that an
interruption cannot corrupt. Vectors come from the counting encoder (conftest), which records what it encodes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from agent.config import Context
from agent.errors import CorpusError, InputError
from agent.library import store as store_module
from agent.library.searched import library_index
from agent.library.store import Library, LibraryIndex
from agent.tools.index.local_index import LocalIndex


def _folder(tmp_path, pdfs, papers, keys, *, bib: list | None = None, extra: dict | None = None):
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    for key in keys:
        shutil.copy(pdfs[key], folder / f"{key}.pdf")
    if bib is not None:
        (folder / "refs.bib").write_text("".join(p.bibtex() for p in bib) + "@article{broken, title = {never closed\n")
    for name, data in (extra or {}).items():
        (folder / name).write_bytes(data)
    return folder


def _consistent(index: LocalIndex) -> None:
    """BM25 and dense indexes cover exactly the records, row for row."""
    assert index.embeddings.shape == (len(index.records), 384)
    assert int(index.bm25.scores["num_docs"]) == len(index.records)
    for row in (0, len(index.records) - 1):
        record = index.records[row]
        assert index.lexical(record.abstract, 1)[0][0] == row
        assert index.dense(index.embeddings[row], 1)[0][0] == row


def test_add_folder_reads_pdfs_and_bib_and_skips_bad_files(tmp_path, pdfs, papers, encoder):
    folder = _folder(
        tmp_path,
        pdfs,
        papers,
        ["okafor2010", "lindqvist2011"],
        bib=[papers[0], papers[2]],
        extra={"encrypted.pdf": pdfs["encrypted"].read_bytes(), "notes.pdf": b"plain text", "zero.pdf": b""},
    )
    library = Library(tmp_path / "lib")
    report = library.add([folder])
    assert sorted(report.added) == ["lindqvisttreatment", "moreau2012", "okafor2010"]
    reasons = {s.path.rsplit("/", 1)[-1].split(":")[0]: s.reason for s in report.skipped}
    assert reasons == {
        "refs.bib": "broken BibTeX entry (unbalanced braces or a missing comma?)",
        "encrypted.pdf": "encrypted PDF: it needs a password (remove the protection and add it again)",
        "notes.pdf": "not a PDF (no %PDF header)",
        "zero.pdf": "empty file",
    }
    docs = {d.id: d for d in library.documents()}
    okafor = docs["okafor2010"]
    assert okafor.full_text and okafor.year == 2010 and okafor.doi == papers[0].doi and okafor.pages == 2
    assert not docs["moreau2012"].full_text and docs["moreau2012"].passages == 1
    index = library.index()
    passages = [r for r in index.records if r.location.document_id == "okafor2010"]
    assert len(passages) == okafor.passages >= 5
    assert all(r.id == f"okafor2010#p{r.location.page}.{r.id.rsplit('.', 1)[1]}" for r in passages)
    assert {r.location.section for r in passages} >= {"Abstract", "Introduction", "Results", "Discussion"}
    results = next(r for r in passages if r.location.section == "Results")
    assert papers[0].sections[2][1][0][0][:60] in results.abstract and results.title == papers[0].title
    _consistent(index)


def test_references_resolve_for_the_citation_hop(tmp_path, pdfs, papers, encoder):
    library = Library(tmp_path / "lib")
    library.add([_folder(tmp_path, pdfs, papers, ["okafor2010"], bib=[papers[2]])])
    index = library.index()
    assert index.neighbours(index.records[0].id, 5) == []  # okafor cites lindqvist, who is not in the library yet
    library.add([pdfs["lindqvist2011"]])  # cites moreau (the .bib entry) by title and DOI
    index = library.index()
    assert isinstance(index, LibraryIndex) and index.has_citations
    okafor = next(
        r
        for r in index.records
        if r.location.document_id == "okaforantihypertensive" and r.location.section == "Results"
    )
    cited = index.neighbours(okafor.id, 5)
    assert [r.location.document_id for r in cited] == ["lindqvisttreatment"] and cited[0].location.section == "Abstract"
    assert [r.location.document_id for r in index.neighbours(cited[0].id, 5)] == [
        "moreau2012",
        "okaforantihypertensive",
    ]


def test_incremental_add_encodes_only_new_passages_and_keeps_old_vectors(tmp_path, pdfs, papers, encoder):
    library = Library(tmp_path / "lib")
    library.add([pdfs["okafor2010"], pdfs["lindqvist2011"]])
    before = library.index()
    kept = {r.id: before.embeddings[i].copy() for i, r in enumerate(before.records)}
    encoder.encoded.clear()
    report = library.add([pdfs["moreau2012"]])
    after = library.index()
    new = [r for r in after.records if r.location.document_id == report.added[0]]
    assert sorted(encoder.encoded) == sorted(r.text for r in new) and report.passages_added == len(new)
    for i, record in enumerate(after.records):
        if record.id in kept:
            assert np.array_equal(after.embeddings[i], kept[record.id])
    assert len(after.records) == len(before.records) + len(new)
    _consistent(after)
    assert after.lexical(new[0].abstract, 1)[0][0] == after.records.index(new[0])


def test_readding_is_a_no_op_and_a_pdf_upgrades_its_bibliography_entry(tmp_path, pdfs, papers, encoder):
    library = Library(tmp_path / "lib")
    (tmp_path / "refs.bib").write_text(papers[1].bibtex())
    assert library.add([tmp_path / "refs.bib"]).added == ["lindqvist2011"]
    stamp = library.stamp()
    again = library.add([tmp_path / "refs.bib"])
    assert again.added == [] and again.duplicates == ["lindqvist2011"] and library.stamp() == stamp
    upgrade = library.add([pdfs["lindqvist2011"]])
    assert upgrade.added == [] and upgrade.updated == ["lindqvist2011"]
    [doc] = library.documents()
    assert doc.full_text and doc.kind == "bibtex" and doc.passages > 1 and len(doc.files) == 2
    assert all(r.id.startswith("lindqvist2011#p") for r in library.index().records)
    assert library.add([pdfs["lindqvist2011"]]).duplicates == [
        "lindqvist2011"
    ]  # same file: known by checksum, not parsed again


def test_a_shared_generic_title_does_not_merge_different_works(tmp_path, encoder):
    first = " ".join(f"alpha{i}" for i in range(30))
    second = " ".join(f"beta{i}" for i in range(30))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"doc_id": i, "title": "Corresponding author:", "abstract": [text]}) + "\n"
            for i, text in ((1, first), (2, second), (3, first + " gamma"))
        )
    )
    report = Library(tmp_path / "lib").add([corpus])
    assert report.added == ["1", "2"] and report.duplicates == ["1"]  # 3 repeats 1's abstract: the same work


def test_a_corpus_indexed_before_is_added_without_encoding_it_again(tmp_path, monkeypatch):
    from agent.config import sparkit_home
    from agent.tools.index.local_index import default_index_dir
    from agent.tools.models import encoder as encoder_module
    from tests.library.conftest import CountingEncoder

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"doc_id": i, "title": f"Title number {i} of the corpus", "abstract": [f"Sentence {i}."]}) + "\n"
            for i in range(5)
        )
    )
    monkeypatch.setattr(encoder_module, "_shared", CountingEncoder())
    LocalIndex.build(corpus, default_index_dir(corpus, sparkit_home()))  # what `sparkit index build` leaves behind
    fresh = CountingEncoder()  # a new process: nothing cached
    monkeypatch.setattr(encoder_module, "_shared", fresh)
    assert len(Library(tmp_path / "lib").add([corpus]).added) == 5
    assert fresh.encoded == []


def test_remove_keeps_indexes_consistent(tmp_path, pdfs, papers, encoder):
    library = Library(tmp_path / "lib")
    library.add([pdfs["okafor2010"], pdfs["lindqvist2011"]])
    assert library.remove([papers[1].doi]) == ["lindqvisttreatment"]
    index = library.index()
    assert {r.location.document_id for r in index.records} == {"okaforantihypertensive"}
    _consistent(index)
    with pytest.raises(InputError, match="not in the library: nope"):
        library.remove(["nope"])
    library.remove(["okaforantihypertensive"])
    assert not library.exists() and library.index() is None and library.stats()["documents"] == 0


@pytest.mark.parametrize("stage", ["encode", "save", "manifest"])
def test_an_interrupted_add_loses_nothing(tmp_path, pdfs, papers, encoder, monkeypatch, stage):
    library = Library(tmp_path / "lib")
    library.add([pdfs["okafor2010"]])
    manifest_before = library.manifest_path.read_bytes()
    records_before = [r.id for r in library.index().records]

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    original = LocalIndex.save
    # the interruption is undone alone: the fixture's fake encoder stays (an undo of every patch brought back the real
    # model, loaded for the third add: 23 s of a fast-loop run)
    with monkeypatch.context() as patch:
        if stage == "encode":
            patch.setattr(encoder, "encode", interrupt)
        elif stage == "save":

            def half_save(self, index_dir):  # dies after writing part of the new index
                index_dir.mkdir(parents=True)
                (index_dir / "records.jsonl").write_text("partial")
                raise KeyboardInterrupt

            patch.setattr(LocalIndex, "save", half_save)
        else:
            patch.setattr(store_module, "write_json_atomic", interrupt)
        with pytest.raises(KeyboardInterrupt):
            library.add([pdfs["lindqvist2011"]])
    assert library.manifest_path.read_bytes() == manifest_before
    assert [r.id for r in Library(tmp_path / "lib").index().records] == records_before
    report = library.add([pdfs["lindqvist2011"]])  # the next add cleans the leftovers and succeeds
    assert report.added == ["lindqvisttreatment"]
    leftovers = sorted(p.name for p in library.root.iterdir() if p.name != ".lock")
    assert leftovers == sorted([json.loads(library.manifest_path.read_text())["index"], "manifest.json"])
    if stage == "save":
        assert original is LocalIndex.save


def test_the_backend_answers_from_the_library_only_when_asked_or_by_default(tmp_path, pdfs, encoder, monkeypatch):
    settings = Context().corpus
    assert library_index(settings) is None  # no library yet: the configured corpus is used
    with pytest.raises(CorpusError, match=r"library .* is empty"):
        library_index(Context(use_library="on").corpus)
    Library().add([pdfs["okafor2010"]])
    assert isinstance(library_index(settings), LibraryIndex)
    assert library_index(Context(use_library="off").corpus) is None
    assert library_index(Context(corpus_path=str(tmp_path / "c.jsonl")).corpus) is None
    monkeypatch.setenv("SPARKIT_CORPUS", str(tmp_path / "c.jsonl"))
    assert library_index(settings) is None and isinstance(library_index(Context(use_library="on").corpus), LibraryIndex)
    other = tmp_path / "elsewhere"
    Library(other).add([pdfs["lindqvist2011"]])
    index = library_index(Context(use_library="on", library_dir=str(other)).corpus)
    assert {r.location.document_id for r in index.records} == {"lindqvisttreatment"}


def test_backend_cache_sees_a_grown_library(tmp_path, pdfs, encoder, monkeypatch):
    from agent import backend as backend_module

    built = []
    monkeypatch.setitem(backend_module._factories, "offline", lambda settings, documents: built.append(1) or object())
    backend_module.clear_backend_cache()
    Library().add([pdfs["okafor2010"]])
    first = backend_module.backend_for(Context())
    assert backend_module.backend_for(Context()) is first and len(built) == 1
    Library().add([pdfs["lindqvist2011"]])
    assert backend_module.backend_for(Context()) is not first and len(built) == 2
    backend_module.clear_backend_cache()
