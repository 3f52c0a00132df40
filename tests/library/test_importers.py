"""Each bibliography format read into documents; broken entries and files skipped with one-line reasons."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agent.library.importers import expand, read
from agent.library.models import BadFileError
from tests.library.zotero_tables import ZOTERO_TABLES

BIB = r"""
@article{smith2020metformin,
  title = {Metformin and {Insulin} Sensitivity in Older Adults},
  author = {Smith, Jane and M{\"u}ller, Karl},
  year = {2020},
  journal = {Journal of Test Papers},
  doi = {https://doi.org/10.5555/SPARKIT.1},
  abstract = {Metformin improved insulin sensitivity.},
  file = {papers/smith.pdf}
}
@misc{lee2021,
  title = {A Preprint on Statins},
  author = {Lee, A.},
  eprint = {2101.01234v2},
  archivePrefix = {arXiv},
  year = 2021
}
@article{broken, title = {Unclosed, year = 2020
@article{notitle, author = {Nobody, N.}, year = {2019}}
"""


def test_bibtex_entries_attachments_and_broken_entries(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(BIB)
    result = read(path)
    docs = {item.key: item for item in result.items}
    assert set(docs) == {"smith2020metformin", "lee2021"}
    smith = docs["smith2020metformin"].document
    assert smith.title == "Metformin and Insulin Sensitivity in Older Adults" and smith.authors == [
        "Jane Smith",
        "Karl Müller",
    ]
    assert (
        smith.doi == "10.5555/sparkit.1"
        and smith.year == 2020
        and smith.abstract == "Metformin improved insulin sensitivity."
    )
    assert docs["smith2020metformin"].attachments == [tmp_path / "papers" / "smith.pdf"]
    assert docs["lee2021"].document.arxiv_id == "2101.01234"
    reasons = sorted(s.reason for s in result.skipped)
    assert reasons == [
        "BibTeX entry 'notitle' has no title",
        "broken BibTeX entry (unbalanced braces or a missing comma?)",
    ]


def test_bibtex_with_nothing_readable_is_a_bad_file(tmp_path):
    path = tmp_path / "bad.bib"
    path.write_text("@article{x, title = {never closed\n")
    with pytest.raises(BadFileError, match="broken BibTeX"):
        read(path)
    (tmp_path / "empty.bib").write_text("% only a comment\n")
    with pytest.raises(BadFileError, match="no BibTeX entries"):
        read(tmp_path / "empty.bib")


def test_ris(tmp_path):
    path = tmp_path / "export.ris"
    path.write_text(
        "TY  - JOUR\nTI  - Statins and LDL cholesterol\nAU  - Doe, Jane\nPY  - 2019\nDO  - 10.5555/ris.1\n"
        "AB  - Statins lower LDL.\nL1  - statins.pdf\nER  - \n\nTY  - JOUR\nAU  - Untitled, U\nER  - \n"
    )
    result = read(path)
    [item] = result.items
    assert (item.document.title, item.document.authors, item.document.year, item.document.doi) == (
        "Statins and LDL cholesterol",
        ["Jane Doe"],
        2019,
        "10.5555/ris.1",
    )
    assert item.attachments == [tmp_path / "statins.pdf"] and result.skipped[0].reason == "RIS record has no title"


def test_better_bibtex_and_csl_json(tmp_path):
    bbt = {
        "items": [
            {
                "itemType": "journalArticle",
                "title": "Aspirin and colorectal cancer",
                "citationKey": "chan2012aspirin",
                "date": "2012-05-01",
                "creators": [{"firstName": "Andrew", "lastName": "Chan"}],
                "DOI": "10.5555/bbt.1",
                "abstractNote": "Aspirin lowered risk.",
                "attachments": [{"path": "/nowhere/chan.pdf"}],
                "extra": "arXiv: 1205.00001",
            },
            {"itemType": "note", "title": "a note"},
        ]
    }
    (tmp_path / "bbt.json").write_text(json.dumps(bbt))
    [item] = read(tmp_path / "bbt.json").items
    assert item.key == "chan2012aspirin" and item.document.authors == ["Andrew Chan"] and item.document.year == 2012
    assert item.document.arxiv_id == "1205.00001" and [str(a) for a in item.attachments] == ["/nowhere/chan.pdf"]
    csl = [
        {
            "id": "x1",
            "title": "Vitamin D and fractures",
            "author": [{"given": "B", "family": "Lee"}],
            "issued": {"date-parts": [[2018, 3]]},
            "DOI": "10.5555/csl.1",
            "abstract": "No effect.",
        }
    ]
    (tmp_path / "csl.json").write_text(json.dumps(csl))
    [item] = read(tmp_path / "csl.json").items
    assert (item.document.kind, item.document.year, item.document.authors) == ("csl-json", 2018, ["B Lee"])
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(BadFileError, match="neither a Better BibTeX export"):
        read(tmp_path / "other.json")
    (tmp_path / "broken.json").write_text('{"items": [')
    with pytest.raises(BadFileError, match="not valid JSON"):
        read(tmp_path / "broken.json")


def make_zotero(folder, pdf_bytes: bytes | None = None):
    """A Zotero data folder with the tables the reader uses: one paper with a stored PDF, a note, a trashed item."""
    folder.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(folder / "zotero.sqlite")
    conn.executescript(
        ZOTERO_TABLES
        + """
    INSERT INTO itemTypes VALUES (1, 'journalArticle'), (2, 'attachment'), (3, 'note');
    INSERT INTO items VALUES (1, 1, 'AAAA1111'), (2, 2, 'BBBB2222'), (3, 3, 'CCCC3333'), (4, 1, 'DDDD4444');
    INSERT INTO fields VALUES (1, 'title'), (2, 'date'), (3, 'DOI'), (4, 'abstractNote'), (5, 'publicationTitle');
    INSERT INTO itemDataValues VALUES (1, 'Zotero paper on sleep and memory'), (2, '2017-00-00 2017'), (3,
    '10.5555/zotero.1'),
        (4, 'Sleep consolidates memory.'), (5, 'Trashed paper title here');
    INSERT INTO itemData VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (4, 1, 5);
    INSERT INTO creators VALUES (1, 'Rosa', 'Diaz');
    INSERT INTO itemCreators VALUES (1, 1, 1, 0);
    INSERT INTO itemAttachments VALUES (2, 1, 0, 'application/pdf', 'storage:paper.pdf');
    INSERT INTO deletedItems VALUES (4);
    """
    )
    conn.commit()
    conn.close()
    if pdf_bytes is not None:
        (folder / "storage" / "BBBB2222").mkdir(parents=True, exist_ok=True)
        (folder / "storage" / "BBBB2222" / "paper.pdf").write_bytes(pdf_bytes)
    return folder


def test_zotero_folder_read_only(tmp_path):
    folder = make_zotero(tmp_path / "Zotero", b"%PDF-1.4 placeholder")
    before = (folder / "zotero.sqlite").read_bytes()
    files, skipped = expand([folder])
    assert files == [folder / "zotero.sqlite"] and not skipped
    [item] = read(files[0]).items
    assert (item.document.title, item.document.year, item.document.doi, item.document.authors) == (
        "Zotero paper on sleep and memory",
        2017,
        "10.5555/zotero.1",
        ["Rosa Diaz"],
    )
    assert item.attachments == [folder / "storage" / "BBBB2222" / "paper.pdf"]
    assert (folder / "zotero.sqlite").read_bytes() == before and not (folder / "zotero.sqlite-wal").exists()
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "zotero.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(BadFileError, match="not a readable Zotero database"):
        read(tmp_path / "fake" / "zotero.sqlite")


def test_jsonl_keeps_corpus_ids(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        json.dumps({"doc_id": 7, "title": "T one", "abstract": ["First sentence.", "Second."]})
        + "\n"
        + json.dumps({"id": "b", "title": "T two", "abstract": "Text.", "references": ["7"]})
        + "\n"
    )
    items = read(path).items
    assert [i.document.id for i in items] == ["7", "b"] and items[0].record.sentences == ["First sentence.", "Second."]
    assert items[1].document.references == ["7"]
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    with pytest.raises(BadFileError, match="not valid JSON"):
        read(tmp_path / "bad.jsonl")


def test_expand_orders_bibliographies_first_and_names_unsupported_files(tmp_path):
    (tmp_path / "a.pdf").write_bytes(b"%PDF-")
    (tmp_path / "z.bib").write_text(BIB)
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "b.pdf").write_bytes(b"%PDF-")
    files, skipped = expand([tmp_path, tmp_path / "notes.txt", tmp_path / "missing.pdf"])
    assert [f.name for f in files] == ["z.bib", "a.pdf"]
    assert [s.reason.split(" (")[0].split(":")[0] for s in skipped] == [
        "unsupported file type '.txt'",
        "no such file or folder",
    ]
