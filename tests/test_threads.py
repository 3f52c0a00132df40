"""One thread, several questions: a new question on a thread that answered before is a new run from a fresh state
(seen: over the server's REST API the second question on a thread was judged against the first one's hypotheses and
answered INSUFFICIENT_EVIDENCE). The thread's history keeps the earlier question; resuming still continues a run."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from agent.api import ask, resume
from agent.api.checkpoint import serializer
from agent.backend import register_backend
from agent.config import Context
from agent.graph import compile_graph
from agent.records import Answer, Status
from tests.fakes import FlakyStance, ListSource, make_backend, record, unique_backend_name

METFORMIN = [
    record(
        f"m{i}",
        f"Metformin and insulin sensitivity study {i}",
        f"Metformin increases insulin sensitivity in adults with prediabetes, cohort {i}.",
    )
    for i in range(3)
]
EXERCISE = [
    record(
        f"e{i}",
        f"Exercise and memory study {i}",
        f"Aerobic exercise increases hippocampal volume in older adults, cohort {i}.",
    )
    for i in range(3)
]
FIRST = {
    "question": "Metformin increases insulin sensitivity in adults",
    "mode": "verify",
    "documents": [{"id": "d1", "title": "Metformin trial", "abstract": "Metformin increases insulin sensitivity."}],
}
SECOND = {"question": "Does aerobic exercise increase hippocampal volume in older adults?"}  # no mode, no documents


def comparable(answer: Answer) -> dict[str, Any]:
    """The answer without what differs between two runs of one question: the run id and the time it took."""
    return answer.model_dump(exclude={"run_id", "usage"})


def backend_name(stance: Any = None) -> str:
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(METFORMIN + EXERCISE)], stance=stance))
    return name


def test_a_second_question_on_a_thread_is_answered_as_on_a_fresh_thread():
    app = compile_graph(InMemorySaver(serde=serializer()))
    context = Context(backend=backend_name(), max_claims=0)
    thread = {"configurable": {"thread_id": "t1"}, "recursion_limit": 100}
    first = app.invoke(FIRST, thread, context=context)["answer"]
    assert first.verdict == "SUPPORT"  # (the scripted backend searches its own list, documents or not)
    second = app.invoke(SECOND, thread, context=context)["answer"]
    other = {"configurable": {"thread_id": "t2"}, "recursion_limit": 100}
    fresh = app.invoke(SECOND, other, context=context)["answer"]
    assert comparable(second) == comparable(fresh)
    assert (
        second.task == "polar"
        and second.status == Status.ANSWERED
        and {c.id for c in second.citations} <= {"e0", "e1", "e2"}
    )
    assert second.usage.source_calls == fresh.usage.source_calls and second.usage.llm_calls == fresh.usage.llm_calls
    state = app.get_state(thread).values
    assert state["mode"] is None and state["documents"] is None  # not given with the second question: not inherited
    fresh_state = app.get_state(other).values
    for key in ("pool", "hypotheses", "ledger", "sent_queries", "decisions", "notes", "round"):
        assert state[key] == fresh_state[key], key
    assert all("etformin" not in h.text for h in state["hypotheses"])
    asked = [s.values.get("question") for s in app.get_state_history(thread)]
    assert FIRST["question"] in asked  # the thread's history keeps the first question


def test_a_new_question_after_a_crashed_one_starts_fresh_and_resume_still_continues():
    app = compile_graph(InMemorySaver(serde=serializer()))
    context = Context(backend=backend_name(stance=FlakyStance()), max_claims=0)
    thread = {"configurable": {"thread_id": "t1"}, "recursion_limit": 100}
    try:
        app.invoke({"question": FIRST["question"], "mode": "verify"}, thread, context=context)
    except RuntimeError as exc:
        assert "stance service crashed" in str(exc)
    else:
        raise AssertionError("the flaky judge should have crashed the first question")
    assert app.get_state(thread).next  # the crashed run waits to be resumed
    second = app.invoke(SECOND, thread, context=context)["answer"]
    fresh = app.invoke(SECOND, {"configurable": {"thread_id": "t2"}, "recursion_limit": 100}, context=context)["answer"]
    assert comparable(second) == comparable(fresh)


def test_the_python_api_reusing_a_run_id_asks_afresh():
    name = backend_name()
    first = ask(FIRST["question"], mode="verify", run_id="shared", backend=name, max_claims=0)
    assert first.verdict == "SUPPORT"
    second = ask(SECOND["question"], run_id="shared", backend=name, max_claims=0)
    fresh = ask(SECOND["question"], backend=name, max_claims=0)
    assert second.run_id == "shared" and comparable(second) == comparable(fresh)


def test_a_new_question_on_a_run_id_is_resumed_with_its_own_settings():
    name = backend_name()
    ask(FIRST["question"], mode="verify", run_id="shared", backend=name, max_claims=0)
    flaky = FlakyStance()
    crashed = ask(SECOND["question"], run_id="shared", backend=backend_name(stance=flaky), max_claims=0)
    assert crashed.status == Status.ERROR and flaky.calls == 0
    resumed = resume("shared")
    assert resumed.status == Status.ANSWERED and resumed.question == SECOND["question"]
    assert flaky.calls > 0  # resumed on the second question's backend, not the first's


def test_the_reset_clears_exactly_what_an_earlier_question_left():
    from langgraph.types import Overwrite

    from agent.records import Usage
    from agent.state import leftovers_reset, reset_then

    left = {
        "question": "q",
        "options": ["a", "b"],
        "pool": {"r1": METFORMIN[0]},
        "notes": ["old"],
        "usage": Usage(source_calls=3),
        "hypotheses": [],
        "budget_stop": "wall_time",
        "sent_queries": [],
        "round": 2,
    }
    reset = leftovers_reset(left)
    assert set(reset) == {
        "pool",
        "notes",
        "usage",
        "hypotheses",
        "budget_stop",
        "round",
    }  # the input and empty reducers stay
    assert reset["pool"] == Overwrite({}) and reset["budget_stop"] is None and reset["hypotheses"] is None
    merged = reset_then(reset, {"notes": ["new"], "round": 0})
    assert merged["notes"] == Overwrite(["new"]) and merged["round"] == 0 and merged["pool"] == Overwrite({})
    assert leftovers_reset({"question": "q", "pool": {}, "notes": [], "usage": Usage()}) == {}
