"""The offline reranker on real SciFact abstracts: the cited abstract of a real claim ranks first among
the hybrid index's top candidates for it, including cases where the first stage ranked it lower."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from agent.literature import Record
from agent.tools.index.corpus_records import records_from_dicts
from agent.tools.index.local_index import LocalIndex
from agent.tools.index.offline_rerank import SIGNALS, HybridReranker, SentenceStore, bm25_scores, zscores
from agent.tools.models.encoder import shared_encoder

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
CORPUS = DATA / "scifact" / "corpus.jsonl"

# Real SciFact train claims, the abstract each cites, and the local index's hybrid top 5 for the claim.
CASES = [
    (
        "7-day-old adult Caenorhabditis elegans exhibit approximately 5% of the learning capacity seen in "
        "1-day old adults.",
        "3202143",
        ["13072113", "3202143", "16267205", "21232018", "7042304"],
    ),
    (
        "A low percentage of hematopoietic progenitor cells are susceptible to HIV-1 infection ex vivo.",
        "7224723",
        ["5398179", "7224723", "8563659", "37444589", "40234452"],
    ),
    (
        "Active H. pylori urease has a polymeric structure consisting of five distinct subunits.",
        "4387784",
        ["13965483", "36233757", "4387784", "37768883", "25657127"],
    ),
]
LEXICAL_CASE = (
    "A breast cancer patient's capacity to metabolize tamoxifen influences treatment outcome.",
    "24341590",
    ["13069283", "24341590", "20454006", "12438901", "4886637"],
)

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason="shared SciFact corpus not present")


def load_records(doc_ids: list[str]) -> list[Record]:
    """The given SciFact abstracts, parsed as the local index parses them."""
    wanted = set(doc_ids)
    found: dict[str, dict] = {}
    with CORPUS.open(encoding="utf-8") as handle:
        for line in handle:
            obj = json.loads(line)
            if str(obj["doc_id"]) in wanted:
                found[str(obj["doc_id"])] = obj
                if len(found) == len(wanted):
                    break
    return records_from_dicts([found[d] for d in doc_ids])


def top(reranker: HybridReranker, claim: str, records: list[Record]) -> str:
    scores = asyncio.run(reranker.rerank(claim, [r.text for r in records]))
    assert len(scores) == len(records) and all(isinstance(s, float) for s in scores)
    return records[int(np.argmax(scores))].id


@pytest.mark.slow
@pytest.mark.parametrize(("claim", "relevant", "candidates"), CASES, ids=["c-elegans", "hiv-progenitors", "urease"])
def test_cited_abstract_ranks_first(claim: str, relevant: str, candidates: list[str]) -> None:
    records = load_records(candidates)
    assert records[0].id != relevant  # the first stage had it lower
    assert top(HybridReranker(max_new_sentences=500), claim, records) == relevant


def test_lexical_only_mode_needs_no_model() -> None:
    claim, relevant, candidates = LEXICAL_CASE
    records = load_records(candidates)
    reranker = HybridReranker(semantic=False)
    assert set(reranker.signals(claim, [r.text for r in records])) == {"bm25"}
    assert top(reranker, claim, records) == relevant


@pytest.mark.slow
def test_sentence_store_round_trip_and_use(tmp_path: Path) -> None:
    claim, relevant, candidates = CASES[2]
    index = LocalIndex.from_records(load_records(candidates))
    path = tmp_path / "sentences.npz"
    built = SentenceStore.build(index, path)
    loaded = SentenceStore.load(index, path)
    assert loaded is not None and len(loaded) == len(candidates)
    record = index.records[2]
    stored = loaded.get(record.text)
    assert stored is not None and stored.shape == (1 + len(record.sentences), 384)  # the title, then each sentence
    np.testing.assert_allclose(stored, shared_encoder().encode([record.title, *record.sentences]), atol=2e-3)
    np.testing.assert_array_equal(built.starts, loaded.starts)
    # With the store, the sentence signal costs no encoding at all (budget 0) and still applies.
    reranker = HybridReranker(sentences=loaded, max_new_sentences=0)
    assert set(reranker.signals(claim, [r.text for r in index.records])) == set(SIGNALS)
    assert top(reranker, claim, index.records) == relevant


@pytest.mark.slow
def test_store_from_other_sentences_is_rejected(tmp_path: Path) -> None:
    records = load_records(CASES[0][2])
    path = tmp_path / "sentences.npz"
    SentenceStore.build(LocalIndex.from_records(records), path)
    other = LocalIndex.from_records(load_records(CASES[1][2]))
    assert SentenceStore.load(other, path) is None


@pytest.mark.slow
def test_sentence_signal_dropped_for_the_whole_call_when_over_budget() -> None:
    claim, _, candidates = CASES[0]
    texts = [r.text for r in load_records(candidates)]
    assert set(HybridReranker(max_new_sentences=0).signals(claim, texts)) == {"bm25", "dense"}
    assert set(HybridReranker(max_new_sentences=500).signals(claim, texts)) == set(SIGNALS)


def test_zscores_and_edge_cases() -> None:
    np.testing.assert_allclose(zscores(np.array([1.0, 2.0, 3.0])), [-1.2247449, 0.0, 1.2247449], rtol=1e-6)
    assert zscores(np.array([5.0, 5.0])).tolist() == [0.0, 0.0]
    assert zscores(np.array([7.0])).tolist() == [0.0]
    assert asyncio.run(HybridReranker().rerank("anything", [])) == []
    assert bm25_scores("the of and", ["a document", "another one"]).tolist() == [0.0, 0.0]
