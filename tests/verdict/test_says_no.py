"""A claim whose evidence says no is told no, with the sentence that says it: the real offline backend (packaged
judge, packaged class-balanced verdict model) over a slice of the SciFact corpus holding the abstracts that reverse the
claims. Three SciFact validation claims (a training part): the previous verdict model, fitted to the plain log-loss,
leant SUPPORT on the first two (Ly49Q, radioiodine) and CONTRADICT on the third (DUSP4)."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.config import Context
from agent.graph import compile_graph
from agent.records import Status
from tests.verdict.corpus_slice import write_slice

pytestmark = pytest.mark.slow
CASES = {
    "Active Ly49Q prevents neutrophil polarization.": "5531479",
    "Radioiodine treatment of non-toxic multinodular goitre increases thyroid volume.": "9745001",
    "DUSP4 decreases apoptosis.": "7821634",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_slice(tmp_path_factory.mktemp("says-no"), {int(d) for d in CASES.values()}, seed=56)


def _verify(claim: str, corpus, **settings):
    path, index = corpus
    app = compile_graph(InMemorySaver())
    config = {"configurable": {"thread_id": f"says-no-{abs(hash(claim))}"}, "recursion_limit": 80}
    context = Context(
        corpus_path=str(path), index_dir=str(index), preset="fast", max_claims=0, max_wall_time_s=900, **settings
    )
    state = {"question": claim, "options": [], "mode": "verify"}
    return asyncio.run(app.ainvoke(state, config, context=context))["answer"]


@pytest.mark.parametrize("claim", sorted(CASES))
def test_a_claim_the_abstract_reverses_is_answered_no_with_the_sentence_that_says_so(claim, corpus):
    answer = _verify(claim, corpus)
    assert answer.status == Status.LEANING and answer.verdict == "CONTRADICT", answer.answer
    assert answer.answer.startswith("The evidence leans against the claim")
    assert CASES[claim] in {c.id for c in answer.citations}
