"""End to end on the real offline backend: a slice of the SciFact corpus, the packaged encoder, the
trained stance model. Asserts statuses, that every citation is a record this run retrieved, and that
the gold abstract is cited for most claims."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.config import Context
from agent.graph import compile_graph
from agent.records import Status
from tests.conftest import DATA

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def scifact_slice(tmp_path_factory):
    corpus = {}
    with (DATA / "scifact" / "corpus.jsonl").open() as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[doc["doc_id"]] = doc
    claims = [json.loads(line) for line in (DATA / "scifact" / "claims_train.jsonl").open()]
    labelled = [c for c in claims if c["evidence"] and len(c["claim"]) > 40][:40:8][:5]
    keep = {int(d) for c in labelled for d in c["evidence"]}
    rng = random.Random(7)
    keep |= set(rng.sample(sorted(corpus), 150))
    folder = tmp_path_factory.mktemp("scifact-slice")
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(corpus[d]) + "\n" for d in sorted(keep)))
    return path, folder / "index", labelled, {str(d) for d in keep}


def _run(question: str, mode: str, corpus, index_dir):
    app = compile_graph(InMemorySaver())
    config = {"configurable": {"thread_id": f"t-{abs(hash(question))}"}, "recursion_limit": 80}
    context = Context(corpus_path=str(corpus), index_dir=str(index_dir), max_claims=3)
    out = asyncio.run(app.ainvoke({"question": question, "mode": mode}, config, context=context))
    return out["answer"], app.get_state(config).values["pool"]


def test_claims_are_answered_with_retrieved_citations(scifact_slice):
    corpus, index_dir, claims, slice_ids = scifact_slice
    gold_cited = 0
    for claim in claims:
        answer, pool = _run(claim["claim"], "verify", corpus, index_dir)
        assert answer.status in (Status.ANSWERED, Status.INSUFFICIENT_EVIDENCE)
        assert answer.run_id and answer.stop_reason
        ids = {c.id for c in answer.citations}
        assert ids <= set(pool) and ids <= slice_ids, "a citation is not a record this run retrieved"
        for sentence in answer.sentences:
            assert sentence["citations"] and set(sentence["citations"]) <= set(pool)
        gold = set(claim["evidence"])
        gold_cited += bool(ids & gold)
        assert answer.verdict in ("SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO")
    assert gold_cited >= (len(claims) + 1) // 2, f"gold abstract cited for only {gold_cited}/{len(claims)} claims"


def test_open_question_and_mcq(scifact_slice):
    corpus, index_dir, claims, _ = scifact_slice
    answer, pool = _run("What happens to insulin sensitivity with aging?", "ask", corpus, index_dir)
    assert answer.task == "open" and answer.status in (Status.ANSWERED, Status.INSUFFICIENT_EVIDENCE)
    assert {c.id for c in answer.citations} <= set(pool)
    app_answer, pool = _run_mcq(claims[0]["claim"], corpus, index_dir)
    assert app_answer.task == "mcq"
    assert app_answer.selected_option in (0, 1, None)
    assert app_answer.abstained == (app_answer.selected_option is None)


def _run_mcq(claim: str, corpus, index_dir):
    app = compile_graph(InMemorySaver())
    config = {"configurable": {"thread_id": "mcq"}, "recursion_limit": 80}
    context = Context(corpus_path=str(corpus), index_dir=str(index_dir), max_claims=2)
    question = "Which statement is supported by the literature?"
    options = [claim, f"It is not true that {claim[0].lower()}{claim[1:]}"]
    out = asyncio.run(app.ainvoke({"question": question, "options": options}, config, context=context))
    return out["answer"], app.get_state(config).values["pool"]
