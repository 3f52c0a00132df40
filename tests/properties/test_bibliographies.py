"""Properties of the bibliography importers (agent/library/importers.py, agent/library/zotero.py): any file gives
items or a BadFileError of one line; N works written in a format give N documents with their title, authors, year,
DOI and abstract; and a document imported, exported in its format and imported again is the same document."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import bibtexparser
import rispy
from bibtexparser.model import Entry, Field
from hypothesis import example, given
from hypothesis import strategies as st

from agent.library.importers import read
from agent.library.models import BadFileError, LibraryDocument
from tests.library.zotero_tables import ZOTERO_TABLES
from tests.properties.checks import result_or_typed_error

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéøαβ0123456789", min_size=1, max_size=10)
NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé", min_size=1, max_size=8).map(str.capitalize)
PUNCTUATION = st.sampled_from(["", ".", ",", ":", "?", "!", ";"])
work = st.fixed_dictionaries(
    {
        "title": st.lists(st.tuples(WORD, PUNCTUATION).map("".join), min_size=1, max_size=8).map(" ".join),
        "authors": st.lists(st.tuples(NAME, NAME), max_size=3),
        "year": st.integers(1500, 2099),
        "doi": st.from_regex(r"10\.[0-9]{4}/[a-z0-9.]{1,12}", fullmatch=True) | st.none(),
        "abstract": st.lists(WORD, max_size=20).map(" ".join),
    }
)
works = st.lists(work, min_size=1, max_size=5)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=10,
)


def _said(result: Any) -> Any:
    """A file read says what became of it: an item or a skipped entry with its reason (never silently nothing)."""
    if result is not None:
        assert result.items or result.skipped, result
    return result


def _read(name: str, content: str | bytes) -> Any:
    """The importer's result for a file of this name and content (in a fresh temporary folder)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        return read(path)


def _fields(document: LibraryDocument) -> tuple[Any, ...]:
    return document.title, document.authors, document.year, document.doi, document.abstract


def _expected(work: dict[str, Any]) -> tuple[Any, ...]:
    authors = [f"{first} {last}" for first, last in work["authors"]]
    return work["title"], authors, work["year"], work["doi"], work["abstract"]


def _documents(name: str, content: str) -> list[LibraryDocument]:
    result = _read(name, content)
    assert not result.skipped, result.skipped
    return [item.document for item in result.items]


# ---------------------------------------------------------------------------------------------- BibTeX
def bibtex(works: list[dict[str, Any]]) -> str:
    """The works as BibTeX, written by bibtexparser's writer."""
    library = bibtexparser.Library()
    for n, w in enumerate(works):
        fields = {
            "title": w["title"],
            "author": " and ".join(f"{last}, {first}" for first, last in w["authors"]),
            "year": str(w["year"]),
            "doi": w["doi"] or "",
            "abstract": w["abstract"],
        }
        library.add(Entry("article", f"key{n}", [Field(k, "{" + v + "}") for k, v in fields.items() if v]))
    return str(bibtexparser.write_string(library))


def bibtex_of(documents: list[LibraryDocument]) -> str:
    return bibtex(
        [{**d.model_dump(), "authors": [tuple(a.rsplit(" ", 1)) for a in d.authors], "doi": d.doi} for d in documents]
    )


@given(text=st.text(max_size=300) | st.sampled_from(["@article{x,", "@article{x, title={a}}", "@comment{", "}{"]))
@example(text="@article{k, title = {A}, year = {2001}")
def test_any_bibtex_gives_items_or_one_line(text):
    _said(result_or_typed_error(lambda: _read("refs.bib", text), BadFileError))


@given(works=works)
def test_bibtex_keeps_every_work_and_round_trips(works):
    documents = _documents("refs.bib", bibtex(works))
    assert [_fields(d) for d in documents] == [_expected(w) for w in works]
    assert [_fields(d) for d in _documents("again.bib", bibtex_of(documents))] == [_fields(d) for d in documents]


# ---------------------------------------------------------------------------------------------- RIS
def ris(works: list[dict[str, Any]]) -> str:
    """The works as RIS, written by rispy's writer."""
    entries = [
        {
            "type_of_reference": "JOUR",
            "title": w["title"],
            "authors": [f"{last}, {first}" for first, last in w["authors"]],
            "year": str(w["year"]),
            **({"doi": w["doi"]} if w["doi"] else {}),
            **({"abstract": w["abstract"]} if w["abstract"] else {}),
        }
        for w in works
    ]
    return str(rispy.dumps(entries))


@given(text=st.text(max_size=300) | st.sampled_from(["TY  - JOUR\n", "ER  - \n", "TY  - JOUR\nTI  - x\nER  - \n"]))
def test_any_ris_gives_items_or_one_line(text):
    _said(result_or_typed_error(lambda: _read("refs.ris", text), BadFileError))


@given(works=works)
def test_ris_keeps_every_work_and_round_trips(works):
    documents = _documents("refs.ris", ris(works))
    assert [_fields(d) for d in documents] == [_expected(w) for w in works]
    again = ris([{**d.model_dump(), "authors": [tuple(a.rsplit(" ", 1)) for a in d.authors]} for d in documents])
    assert [_fields(d) for d in _documents("again.ris", again)] == [_fields(d) for d in documents]


# ---------------------------------------------------------------------------------------------- JSON
def csl_json(works: list[dict[str, Any]]) -> str:
    return json.dumps(
        [
            {
                "id": f"key{n}",
                "title": w["title"],
                "author": [{"given": first, "family": last} for first, last in w["authors"]],
                "issued": {"date-parts": [[w["year"]]]},
                "DOI": w["doi"],
                "abstract": w["abstract"],
            }
            for n, w in enumerate(works)
        ]
    )


def better_bibtex(works: list[dict[str, Any]]) -> str:
    items = [
        {
            "itemType": "journalArticle",
            "citationKey": f"key{n}",
            "title": w["title"],
            "creators": [{"firstName": first, "lastName": last} for first, last in w["authors"]],
            "date": str(w["year"]),
            "DOI": w["doi"],
            "abstractNote": w["abstract"],
        }
        for n, w in enumerate(works)
    ]
    return json.dumps({"items": items})


@given(
    value=json_values | st.fixed_dictionaries({"items": st.lists(json_values, max_size=3)}),
    text=st.none() | st.text(max_size=30),
)
@example(value={"items": [1]}, text=None)
@example(value=[{"title": 3}], text=None)
@example(value=[{"title": "T", "issued": []}], text=None)
@example(value={"items": [{"title": "T", "creators": ["Ann Lee"]}]}, text=None)
@example(value=None, text="{")
def test_any_json_gives_items_or_one_line(value, text):
    content = json.dumps(value) if text is None else text
    _said(result_or_typed_error(lambda: _read("refs.json", content), BadFileError))


@given(works=works, writer=st.sampled_from([csl_json, better_bibtex]))
def test_json_exports_keep_every_work_and_round_trip(works, writer):
    documents = _documents("refs.json", writer(works))
    assert [_fields(d) for d in documents] == [_expected(w) for w in works]
    again = writer([{**d.model_dump(), "authors": [tuple(a.rsplit(" ", 1)) for a in d.authors]} for d in documents])
    assert [_fields(d) for d in _documents("again.json", again)] == [_fields(d) for d in documents]


# ---------------------------------------------------------------------------------------------- Zotero
KINDS_AND_FIELDS = """
INSERT INTO itemTypes VALUES (1, 'journalArticle'), (2, 'note');
INSERT INTO fields VALUES (1, 'title'), (2, 'date'), (3, 'DOI'), (4, 'abstractNote');
"""


def zotero(works: list[dict[str, Any]], values: list[Any] | None = None) -> bytes:
    """A zotero.sqlite with the tables the reader uses holding the works (and a note per work, left out); `values`
    puts raw values of any type in place of the titles."""
    with tempfile.TemporaryDirectory() as folder:
        conn = sqlite3.connect(Path(folder) / "zotero.sqlite")
        conn.executescript("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;" + ZOTERO_TABLES + KINDS_AND_FIELDS)
        for n, w in enumerate(works, 1):
            conn.execute("INSERT INTO items VALUES (?, 1, ?)", (n, f"K{n}"))
            conn.execute("INSERT INTO items VALUES (?, 2, ?)", (1000 + n, f"N{n}"))
            title = values[n - 1] if values and n <= len(values) else w["title"]
            for field_id, value in ((1, title), (2, str(w["year"])), (3, w["doi"]), (4, w["abstract"])):
                if value is not None:
                    conn.execute("INSERT INTO itemDataValues (value) VALUES (?)", (value,))
                    conn.execute("INSERT INTO itemData VALUES (?, ?, last_insert_rowid())", (n, field_id))
            for order, (first, last) in enumerate(w["authors"]):
                conn.execute("INSERT INTO creators (firstName, lastName) VALUES (?, ?)", (first, last))
                conn.execute("INSERT INTO itemCreators VALUES (?, last_insert_rowid(), 1, ?)", (n, order))
        conn.commit()
        conn.close()
        return (Path(folder) / "zotero.sqlite").read_bytes()


@given(works=works)
def test_zotero_keeps_every_work(works):
    documents = _documents("zotero.sqlite", zotero(works))  # type: ignore[arg-type]
    assert [_fields(d) for d in documents] == [_expected(w) for w in works]


@given(
    data=st.binary(max_size=200) | st.sampled_from([b"SQLite format 3\x00" + b"\x00" * 100]),
    values=st.lists(
        st.integers(-(2**63), 2**63 - 1) | st.floats() | st.binary(max_size=8) | st.text(max_size=8), max_size=2
    ),
)
@example(data=b"", values=[b"\xff"])
def test_any_zotero_database_gives_items_or_one_line(data, values):
    _said(result_or_typed_error(lambda: _read("zotero.sqlite", data), BadFileError))
    _said(result_or_typed_error(lambda: _read("zotero.sqlite", zotero([])), BadFileError))
    database = zotero([{**WORK, "title": "x"}] * 2, values)
    _said(result_or_typed_error(lambda: _read("zotero.sqlite", database), BadFileError))


WORK = {"title": "A title", "authors": [("Ann", "Lee")], "year": 2001, "doi": None, "abstract": ""}
