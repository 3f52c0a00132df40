"""'Why this record': each query the run sent is in the trace with the records it brought in and their scores,
shown as a child run of the node that sent it (HTML and text views)."""

from __future__ import annotations

import pytest

from agent.literature import Provenance
from agent.tracing.render_html import render_html
from agent.tracing.render_text import render_show
from agent.tracing.view import load_view
from tests.fakes import ListSource
from tests.tracing.helpers import DOCS, kinds, scripted_backend, traced_run


class ScoringSource(ListSource):
    """A source that says why it returned each hit, as the local index does (a provenance entry without a query)."""

    async def search(self, query, *, limit):
        hits = await super().search(query, limit=limit)
        return [
            h.model_copy(
                update={
                    "provenance": [
                        *h.provenance,
                        Provenance(
                            source=self.name, scores={"rank": i + 1, "bm25": 9.5 - i, "dense": 0.8, "fused": 0.03}
                        ),
                    ]
                }
            )
            for i, h in enumerate(hits)
        ]


def test_each_query_is_traced_with_its_hits_and_their_scores():
    answer, records = traced_run(backend=scripted_backend([ScoringSource(DOCS)]))
    queries = kinds(records, "query")
    first = [q for q in queries if q["round"] == 1 and q["node"] == "retrieve"]
    assert first and all(q["hits"] for q in first)
    hit = first[0]["hits"][0]
    assert hit["rank"] == 1 and hit["bm25"] == 9.5 and hit["dense"] == 0.8 and "rerank" in hit  # ranked at the end
    view = load_view(answer.run_id)
    retrieve = next(n for n in view.node_runs() if n.name == "retrieve")
    assert view.queries_of(retrieve) == first  # hung under the node run that sent them
    page = render_html(view)
    assert page.count('data-run-type="query"') == len(queries) and "<th class=num>BM25</th>" in page
    assert "bm25   9.50" in render_show(view)


def test_a_source_without_scores_still_shows_its_hits():
    _answer, records = traced_run()
    assert all(q["hits"] and "bm25" not in q["hits"][0] for q in kinds(records, "query"))


@pytest.mark.slow
def test_the_local_index_says_why_it_returned_a_record():
    import asyncio

    from agent.tools.index.corpus_records import records_from_dicts
    from agent.tools.index.local_index import LocalIndex, LocalSource

    index = LocalIndex.from_records(
        records_from_dicts(
            [
                {
                    "id": "a",
                    "title": "Vitamin D and fractures",
                    "abstract": "Vitamin D supplementation reduced hip fractures in older adults.",
                },
                {"id": "b", "title": "Coral reefs", "abstract": "Ocean warming bleaches coral reefs."},
            ]
        )
    )
    (best, *_) = asyncio.run(LocalSource(index).search("vitamin D fractures", limit=2))
    scores = best.provenance[-1].scores
    assert (
        best.id == "a"
        and scores["rank"] == 1
        and scores["bm25"] > 0
        and 0 < scores["dense"] <= 1
        and scores["fused"] > 0
    )
