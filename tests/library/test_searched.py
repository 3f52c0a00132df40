"""Adding to the library never drops what was searched before: the library is searched beside the default corpus
(seen: after `library add` of three PDFs the README's question came back INSUFFICIENT_EVIDENCE with a krill paper as
its best match, SciFact silently no longer searched), the library alone only when asked (`--library-only`,
use_corpus=false), and every answer names what was searched. Vectors come from the counting encoder (conftest)."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.backend.corpus import SCIFACT_SHA256, corpus_label
from agent.backend.search_parts import offline_indexes
from agent.config import Context
from agent.errors import CorpusError
from agent.library.store import Library
from agent.tools.local_index import LocalSource

MINE = [
    {
        "id": "krill1",
        "title": "Antarctic krill swarms",
        "abstract": "Krill swarms feed on phytoplankton under sea ice.",
    },
    {"id": "krill2", "title": "Krill and whales", "abstract": "Baleen whales follow krill swarms along the ice edge."},
]


@pytest.fixture
def library_of_two(tmp_path, encoder, small_default_corpus):
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps(doc) + "\n" for doc in MINE))
    assert Library().add([mine]).added
    return small_default_corpus


def labels(**settings) -> list[str]:
    return offline_indexes(Context(**settings).corpus, None)[1]


def test_the_library_is_searched_beside_the_default_corpus(library_of_two):
    indexes, searched = offline_indexes(Context().corpus, None)
    assert searched == ["small-corpus.jsonl (3 records)", "your library (2 abstracts)"]
    hits = asyncio.run(LocalSource(*indexes).search("coral bleaching ocean warming", limit=2))
    ids = [r.id for r in hits]
    assert "901" in ids and {"krill1", "krill2"} & set(ids)  # each index's best hits: the corpus's are not displaced


def test_library_only_and_library_off(library_of_two, tmp_path):
    assert labels(use_corpus=False) == ["your library (2 abstracts)"]
    assert labels(use_library="off") == ["small-corpus.jsonl (3 records)"]
    assert labels(corpus_path=str(library_of_two)) == ["small-corpus.jsonl (3 records)"]  # a corpus named for the run
    with pytest.raises(CorpusError, match="nothing would be searched"):
        labels(use_corpus=False, use_library="off")


def test_library_only_with_an_empty_library_says_so(tmp_path, encoder, small_default_corpus):
    assert labels() == ["small-corpus.jsonl (3 records)"]  # no library yet: the corpus alone
    with pytest.raises(CorpusError, match=r"the library alone is searched .* is empty"):
        labels(use_corpus=False)


def test_the_callers_documents_are_searched_alone(library_of_two):
    indexes, searched = offline_indexes(
        Context().corpus,
        [
            {
                "id": "d1",
                "title": "Vitamin D and fractures",
                "abstract": "Vitamin D reduced hip fracture risk in older adults.",
            }
        ],
    )
    assert searched == ["your documents (1)"] and len(indexes) == 1


def test_labels_name_scifact_and_pdfs(tmp_path, pdfs, papers, encoder, small_default_corpus):
    from pathlib import Path

    assert corpus_label(Path("corpus.jsonl"), SCIFACT_SHA256, 5183) == "SciFact (5,183 abstracts)"
    assert corpus_label(Path("mine.jsonl"), "0" * 64, 1) == "mine.jsonl (1 record)"
    Library().add([pdfs["okafor2010"], pdfs["lindqvist2011"]])
    indexes, searched = offline_indexes(Context().corpus, None)
    assert searched == ["small-corpus.jsonl (3 records)", "your library (2 PDFs)"]
    source = LocalSource(*indexes)  # the citation hop follows the library's references beside the corpus
    okafor = next(r for r in indexes[1].records if r.id.startswith("okafor"))  # it cites lindqvist's paper
    assert source.supports_citations and [r.id for r in asyncio.run(source.neighbours(okafor, limit=3))] == [
        indexes[1].first_record["lindqvisttreatment"]
    ]


def test_the_cli_shows_what_was_searched_and_takes_library_only():
    from agent.answer.text import render
    from agent.cli import build_parser
    from agent.cli.run import _settings_overrides
    from agent.records import Answer, Status

    args = build_parser().parse_args(["ask", "Q?", "--library-only"])
    assert _settings_overrides(args)["use_corpus"] is False
    answer = Answer(
        status=Status.ANSWERED,
        task="open",
        question="Q?",
        answer="A.",
        confidence=0.5,
        searched="SciFact (5,183 abstracts) + your library (3 PDFs)",
    )
    assert render(answer).splitlines()[1] == "Searched: SciFact (5,183 abstracts) + your library (3 PDFs)"
    assert json.loads(answer.model_dump_json())["searched"] == "SciFact (5,183 abstracts) + your library (3 PDFs)"
