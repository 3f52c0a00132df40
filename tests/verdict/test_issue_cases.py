"""The cases of issue 44, each on the real offline backend (packaged judge, packaged verdict model) over a slice of the
SciFact corpus that holds their abstracts: a comparative question answered from the abstract that decides it, the
deciding sentence quoted first, and an MCQ whose quotes never compare its options says so."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.config import Context
from agent.graph import compile_graph
from agent.records import Status
from tests.verdict.corpus_slice import write_slice

pytestmark = pytest.mark.slow
DOCS = {27768226, 23557241, 17450673, 21557614, 22420524, 7454794}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_slice(tmp_path_factory.mktemp("issue-44"), DOCS, seed=44)


def _ask(question: str, corpus, options: list[str] | None = None, **settings):
    path, index = corpus
    app = compile_graph(InMemorySaver())
    config = {"configurable": {"thread_id": f"t-{abs(hash(question))}"}, "recursion_limit": 80}
    # the wall-time budget off: on a loaded machine a court can take a minute, and what is tested is the reading
    context = Context(
        corpus_path=str(path), index_dir=str(index), preset="fast", max_claims=0, max_wall_time_s=900, **settings
    )
    state = {"question": question, "options": options or [], "mode": "ask"}
    return asyncio.run(app.ainvoke(state, config, context=context))["answer"]


def test_open_access_articles_are_not_cited_less_often(corpus):
    answer = _ask(
        "Are open access articles cited less often than articles in traditional subscription journals?", corpus
    )
    assert answer.status in (Status.ANSWERED, Status.LEANING) and answer.verdict == "CONTRADICT", answer.answer
    assert "are not cited less often than" in answer.answer
    assert "27768226" in {c.id for c in answer.citations}


def test_the_sentence_that_decides_birth_weight_is_quoted_first(corpus):
    # which sentence is quoted first is what is pinned, not the operating point (0.67-0.87 here, by index precision)
    question = "Is a higher birth weight in women associated with a higher risk of breast cancer later in life?"
    answer = _ask(question, corpus, verdict_threshold=0.5)
    assert answer.verdict == "SUPPORT", answer.answer
    first = answer.sentences[0].text.lower()
    assert "birthweight" in first or "birth weight" in first, first
    assert "j-shaped" not in first


def test_an_mcq_whose_quotes_never_compare_the_options_says_so(corpus):
    answer = _ask("Which is more effective at lowering LDL cholesterol?", corpus, ["statins", "ezetimibe"])
    assert answer.selected_option is not None
    if "ezetimibe" not in " ".join(s.text.lower() for s in answer.sentences):
        assert "they do not compare the options" in answer.answer, answer.answer
