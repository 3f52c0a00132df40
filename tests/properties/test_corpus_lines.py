"""Properties of a corpus's JSONL lines (agent/tools/index/corpus_records.py over agent/common/jsonl.py, and the
library's JSONL import): any file gives records or a CorpusError of one line naming the line; N records with distinct
ids in any of the three formats give N records in order, with their fields; a record written to an index's records.jsonl
and read back is the same record."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from agent.errors import CorpusError
from agent.library.importers import read
from agent.library.models import BadFileError
from agent.literature import Record, normalize_doi
from agent.tools.index.corpus_records import load_corpus, records_from_dicts
from tests.properties.checks import result_or_typed_error

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
FIELDS = ["doc_id", "_id", "id", "title", "abstract", "text", "year", "doi", "authors", "references", "venue"]
FIELDS += ["citation_count"]
corpus_objects = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), json_values, max_size=6)


def _load(content: bytes) -> list[Record]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.jsonl"
        path.write_bytes(content)
        return load_corpus(path)


@given(lines=st.lists(st.builds(json.dumps, corpus_objects | json_values) | st.text(max_size=40), max_size=5))
@example(lines=['{"id": "a", "year": 1e400}'])
@example(lines=['{"id": "a", "citation_count": Infinity}'])
@example(lines=['{"id": "a", "abstract": [{"x": 1}]}'])
def test_any_lines_give_records_or_one_line_naming_the_line(lines):
    found = result_or_typed_error(lambda: _load("\n".join(lines).encode("utf-8", "surrogatepass")), CorpusError)
    if found is not None:
        assert 1 <= len(found) <= len(lines) and len({r.id for r in found}) == len(found)


@given(content=st.binary(max_size=200))
@example(content=b"\xff\xfe{}")
def test_any_bytes_give_records_or_one_line(content):
    result_or_typed_error(lambda: _load(content), CorpusError)


@given(objects=st.lists(corpus_objects, max_size=4))
def test_any_caller_documents_give_records_or_one_line(objects):
    found = result_or_typed_error(lambda: records_from_dicts(objects), CorpusError)
    assert found is None or len(found) == len(objects)


TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=1, max_size=30)
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz .,", min_size=1, max_size=40).filter(str.strip)
record_line = st.one_of(
    st.fixed_dictionaries({"doc_id": st.integers(0, 10**9), "title": TEXT, "abstract": st.lists(WORDS, max_size=4)}),
    st.fixed_dictionaries({"_id": TEXT.filter(str.strip), "title": TEXT, "text": WORDS}),
    st.fixed_dictionaries(
        {"id": TEXT.filter(str.strip), "title": TEXT, "abstract": WORDS},
        optional={
            "year": st.integers(1500, 2100),
            "doi": TEXT,
            "authors": st.lists(TEXT, max_size=3),
            "references": st.lists(TEXT, max_size=3),
            "venue": TEXT,
            "citation_count": st.integers(0, 10**6),
        },
    ),
)


def _id(line: dict[str, Any]) -> str:
    return str(line.get("doc_id", line.get("_id", line.get("id"))))


@given(lines=st.lists(record_line, min_size=1, max_size=6, unique_by=_id), blank=st.booleans())
@example(
    lines=[{"doc_id": 1, "title": "T", "abstract": []}, {"doc_id": 2, "title": "T", "abstract": [" "]}], blank=False
)
def test_n_records_in_give_n_records_out_and_round_trip(lines, blank):
    text = ("\n\n" if blank else "\n").join(json.dumps(line) for line in lines) + "\n"
    records = _load(text.encode())
    assert [r.id for r in records] == [_id(line) for line in lines]
    for record, line in zip(records, lines):
        assert record.title == line["title"]
        sentences = [s.strip() for s in line["abstract"] if s.strip()] if isinstance(line.get("abstract"), list) else []
        assert record.abstract == (" ".join(sentences) if "doc_id" in line else line.get("abstract", line.get("text")))
        expected = (line.get("year"), normalize_doi(line.get("doi")), line.get("authors", []))
        assert (record.year, record.doi, record.authors) == expected
    written = [record.model_dump_json(exclude_defaults=True) for record in records]  # as LocalIndex.save writes them
    assert [Record.model_validate_json(line) for line in written] == records
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "corpus.jsonl").write_text(text, encoding="utf-8")
        items = result_or_typed_error(lambda: read(Path(folder) / "corpus.jsonl"), BadFileError)
    assert items is not None and [i.document.id for i in items.items] == [r.id for r in records]
