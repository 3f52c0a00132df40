"""End to end on the real offline backend (issue 39, item 5): over a slice of the SciFact corpus, a misspelled
question gets the same answer as its correct spelling, with a line saying how it was read. Seen: "Does asprin reduce
the risk of colorectal cancer?" retrieved the aspirin trials and abstained, the aspect check wanting "asprin"."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.config import Context
from agent.english.spelling import read_as_sentence
from agent.graph import compile_graph
from tests.conftest import DATA
from tests.english.test_spelling import MISSPELLED

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DATA / "scifact" / "corpus.jsonl").exists(), reason=f"SciFact not found under {DATA}"),
]

SUBSET = [
    item
    for item in MISSPELLED
    if item["question"]
    in (
        "Does asprin reduce the risk of colorectal cancer?",
        "Dose metfromin reduse the risk of cancr in diabetis?",
        "Does hypoglycemia increase the risk of dementa?",
        "Do statins lower cholestrol?",
    )
]
TOPICS = ("aspirin", "metformin", "hypoglycemia", "statin")


@pytest.fixture(scope="module")
def scifact_slice(tmp_path_factory):
    """The records that name a subset question's topic, and 150 others."""
    corpus = [json.loads(line) for line in (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8")]
    topical = [d for d in corpus if any(t in (d["title"] + " ".join(d["abstract"])).lower() for t in TOPICS)]
    rest = [d for d in corpus if d not in topical]
    keep = topical + random.Random(7).sample(rest, 150)
    folder = tmp_path_factory.mktemp("scifact-spelling")
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in keep), encoding="utf-8")
    return path, folder / "index"


def _answer(question: str, corpus, index_dir):
    app = compile_graph(InMemorySaver())
    config = {"configurable": {"thread_id": f"t-{abs(hash(question))}"}, "recursion_limit": 80}
    context = Context(corpus_path=str(corpus), index_dir=str(index_dir), max_claims=0)
    return asyncio.run(app.ainvoke({"question": question}, config, context=context))["answer"]


def test_a_misspelled_question_gets_the_answer_of_its_correct_spelling(scifact_slice):
    corpus, index_dir = scifact_slice
    assert len(SUBSET) == 4
    for item in SUBSET:
        right, typo = _answer(item["intended"], corpus, index_dir), _answer(item["question"], corpus, index_dir)
        assert typo.corrections and typo.question == right.question == item["intended"]
        assert typo.answer == f"{right.answer} {read_as_sentence(typo.corrections)}", item["question"]
        assert (typo.status, typo.verdict, typo.task) == (right.status, right.verdict, right.task)
        assert [c.id for c in typo.citations] == [c.id for c in right.citations]
    assert (index_dir / "words.json").exists()  # the corpus's word counts are kept with its index
