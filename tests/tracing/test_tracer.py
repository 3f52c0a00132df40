"""The local tracer writes a complete, bounded run tree for a graph run, with decisions, source calls and
usage per node; it stays off unless asked."""

from __future__ import annotations

import time

import httpx
import pytest
from langchain_core.runnables import RunnableLambda

from agent.api import ask, resume
from agent.literature import Record
from agent.records import Status
from agent.tools.http import HostPolicy, HttpBase, HttpOptions
from agent.tracing import list_traces, trace_path, traces_dir
from agent.tracing.runs import run_records
from agent.tracing.summarize import summarize
from agent.tracing.tracer import LocalTracer
from tests.fakes import FlakyStance, ListSource, ScriptedChatModel, tool_message
from tests.tracing.helpers import CLAIM, DOCS, kinds, scripted_backend, traced_run

GRAPH_NODES = {
    "plan",
    "retrieve",
    "rerank",
    "hypothesize",
    "discriminate",
    "court",
    "synthesize",
    "verify_claims",
    "report",
}


def test_run_tree_has_every_node_with_ids_timings_and_summaries():
    answer, records = traced_run()
    assert answer.status == Status.ANSWERED
    runs = kinds(records, "run")
    roots = [r for r in runs if r["parent_id"] is None]
    assert len(roots) == 1 and roots[0]["name"] == "sparkit"
    ids = {r["id"] for r in runs}
    assert all(r["parent_id"] in ids for r in runs if r["parent_id"]), "a run points at a parent not in the trace"
    assert {r["trace_id"] for r in runs} == {roots[0]["id"]}
    node_runs = [r for r in runs if r["parent_id"] == roots[0]["id"]]
    assert {r["node"] for r in node_runs} >= GRAPH_NODES
    for run in runs:
        assert run["run_type"] in ("chain", "llm", "tool", "retriever", "prompt", "parser")
        assert run["start"] <= run["end"] and run["latency_s"] >= 0
    retrieve = next(r for r in node_runs if r["node"] == "retrieve")
    # a node run shows the state change it made, not a dump of the state it received: the state's keys and round
    court = next(r for r in node_runs if r["node"] == "court")
    assert "pool" in court["inputs"]["state_keys"] and "pool" not in court["inputs"] and court["inputs"]["round"] >= 1
    assert set(court["outputs"]) >= {"hypotheses", "ledger", "margin"}
    assert retrieve["outputs"]["round"] == 1
    # a node's inner runnable repeats its inputs: stored once
    inner = [r for r in runs if r["parent_id"] == court["id"] and r["name"] == "court"]
    assert inner and inner[0]["inputs"] == {"same_as_parent": True}


def test_decisions_match_the_answer_and_carry_budget_left():
    answer, records = traced_run()
    decisions = kinds(records, "decision")
    assert [(d["at"], d["next"]) for d in decisions] == [(d.at, d.next) for d in answer.decisions]
    court = next(d for d in decisions if d["at"] == "court")
    assert court["margin"] == pytest.approx(answer.decisions[[d.at for d in answer.decisions].index("court")].margin)
    verify = next(d for d in decisions if d["at"] == "verify_claims")
    assert verify["contested"] == next(d.contested for d in answer.decisions if d.at == "verify_claims")
    left = verify["budget_left"]
    assert left["llm_calls"] == 40 and 0 < left["wall_time_s"] <= 300
    assert left["source_calls"] == 150 - answer.usage.source_calls  # nothing runs after verify_claims but report


def test_usage_per_node_in_answer_and_trace():
    answer, records = traced_run()
    by_node = answer.usage.by_node
    assert by_node["retrieve"]["runs"] == 2 and by_node["retrieve"]["calls_by_source"] == {
        "list": by_node["retrieve"]["source_calls"]
    }
    assert sum(u["source_calls"] for u in by_node.values()) == answer.usage.source_calls
    (usage,) = kinds(records, "usage")
    assert usage["by_node"] == by_node and usage["total"]["source_calls"] == answer.usage.source_calls


def test_answer_and_cited_records_are_in_the_trace():
    answer, records = traced_run()
    (stored,) = kinds(records, "answer")
    assert stored["answer"]["verdict"] == answer.verdict and len(stored["answer"]["ledger"]) == len(answer.ledger)
    cited = {r["id"]: r for r in kinds(records, "record")}
    assert {c.id for c in answer.citations} <= set(cited)
    assert cited["r0"]["doi"] == "10.1000/ex0" and "hippocampal" in cited["r0"]["abstract"]


def test_progress_events_are_recorded_with_their_round():
    events = []
    answer, records = traced_run(on_event=events.append)
    recorded = [p["event"] for p in kinds(records, "progress")]
    assert events[0] == {"node": "run", "event": "start", "run_id": answer.run_id}  # the run id first, before any work
    assert [e["node"] for e in recorded] == [e["node"] for e in events[1:]]
    assert [e["node"] for e in events if e.get("event") == "start"][:3] == [
        "run",
        "plan",
        "retrieve",
    ]  # each node says it started
    events = [e for e in events if "event" not in e]  # what each node reported when it ended
    hypothesize = next(e for e in events if e["node"] == "hypothesize")
    assert hypothesize["round"] == 1 and hypothesize["hypotheses"]  # round filled in by the API
    court = next(e for e in events if e["node"] == "court")
    assert {"round", "margin", "hypotheses"} <= set(court)
    assert next(e for e in events if e["node"] == "retrieve")["sources"] == ["list"]


def test_index_lists_the_run():
    answer, _ = traced_run()
    (entry,) = list_traces()
    assert entry["run_id"] == answer.run_id and entry["status"] == "ANSWERED" and entry["question"] == CLAIM
    assert entry["latency_s"] > 0 and entry["bytes"] == trace_path(answer.run_id).stat().st_size


def test_tracing_is_off_unless_asked(monkeypatch):
    monkeypatch.delenv("SPARKIT_TRACE", raising=False)
    backend = scripted_backend()
    plain = ask(CLAIM, mode="verify", backend=backend)
    assert plain.status == Status.ANSWERED and plain.usage.by_node  # per-node usage does not need tracing
    assert not traces_dir().exists()
    monkeypatch.setenv("SPARKIT_TRACE", "1")
    on = ask(CLAIM, mode="verify", backend=backend)
    assert trace_path(on.run_id).exists()
    off = ask(CLAIM, mode="verify", backend=backend, trace=False)
    assert not trace_path(off.run_id).exists()


class HttpBackedSource(ListSource):
    """A source that makes one real (mock-transported) HTTP call per search through the shared HttpBase:
    the first answer is a 503, so the call event shows a retry."""

    def __init__(self, records: list[Record]):
        super().__init__(records, name="mockapi")
        self.responses = iter([httpx.Response(503), *[httpx.Response(200, json={"ok": True})] * 50])
        transport = httpx.MockTransport(lambda request: next(self.responses))
        self.http = HttpBase(
            "mockapi",
            "https://api.example.org",
            policy=HostPolicy(backoff_base_s=0.001, max_attempts=3),
            options=HttpOptions(transport=transport),
        )

    async def search(self, query: str, *, limit: int) -> list[Record]:
        await self.http.get_json("search", params={"q": query})
        return await super().search(query, limit=limit)


def test_source_calls_are_traced_with_node_status_and_retries():
    answer, records = traced_run(backend=scripted_backend([HttpBackedSource(DOCS)]))
    calls = kinds(records, "source_call")
    assert len(calls) == answer.usage.calls_by_source["mockapi"]
    first = calls[0]
    assert first["node"] == "retrieve" and first["host"] == "api.example.org" and first["status"] == 200
    assert first["attempts"] == 2 and first["retries"] == 1 and first["cache_hit"] is False
    assert {c["node"] for c in calls} <= {"retrieve", "verify_claims"}


def test_failed_run_is_traced_and_resume_appends_a_segment():
    backend = scripted_backend(stance=FlakyStance())
    failed = ask(CLAIM, mode="verify", backend=backend, trace=True)
    assert failed.status == Status.ERROR
    from agent.tracing import load_trace

    first = load_trace(failed.run_id)
    assert "stance service crashed" in (kinds(first, "meta")[0]["error"] or "")
    assert any(r["error"] for r in kinds(first, "run"))
    resumed = resume(failed.run_id, backend=backend, trace=True)
    assert resumed.status == Status.ANSWERED
    both = load_trace(failed.run_id)
    metas = kinds(both, "meta")
    assert [m["resumed"] for m in metas] == [False, True]
    assert len([r for r in kinds(both, "run") if r["parent_id"] is None]) == 2
    assert list_traces()[0]["status"] == "ANSWERED"


class HaikuChat(ScriptedChatModel):
    """A scripted chat model that reports itself as anthropic:claude-haiku-4-5 (for pricing)."""

    def _get_ls_params(self, stop=None, **kwargs):
        return {
            **super()._get_ls_params(stop=stop, **kwargs),
            "ls_provider": "anthropic",
            "ls_model_name": "claude-haiku-4-5",
        }


def test_llm_runs_carry_model_tokens_and_cost():
    model = HaikuChat(messages=iter([tool_message("Out", {"answer": "x"})]))
    tracer = LocalTracer()
    chain = RunnableLambda(lambda text: model.invoke(text)).with_config(run_name="node")
    chain.invoke("question", config={"callbacks": [tracer]})
    (root,) = tracer.roots
    llm = next(r for r in run_records(root) if r["run_type"] == "llm")
    assert llm["model"] == "anthropic:claude-haiku-4-5"
    assert (llm["tokens_in"], llm["tokens_out"]) == (100, 20)
    assert llm["cost_usd"] == pytest.approx((100 * 1.0 + 20 * 5.0) / 1e6)


def test_summaries_cut_strings_lists_and_mask_credential_keys():
    value = {
        "text": "x" * 5000,
        "items": list(range(100)),
        "api_key": "abc123456789",
        "nested": {"authorization": "Bearer zzzzzzzz"},
    }
    out = summarize(value)
    assert len(out["text"]) < 500 and "(+4600 chars)" in out["text"]
    assert len(out["items"]) == 9 and "92 more items" in out["items"][-1]["…"]
    assert out["api_key"] == "[REDACTED]" and out["nested"]["authorization"] == "[REDACTED]"


def test_saving_a_trace_does_not_hold_the_event_loop(monkeypatch):
    """The trace is written in a worker thread: a slow disk delays the answer, not other tasks."""
    import asyncio

    from agent.api import aask
    from agent.tracing import session as session_module

    original = session_module.TraceSession.save

    def slow_save(self, *args, **kwargs):
        time.sleep(0.3)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(session_module.TraceSession, "save", slow_save)
    backend = scripted_backend()

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        answer = await aask(CLAIM, mode="verify", backend=backend, trace=True)
        task.cancel()
        return answer, ticks

    answer, ticks = asyncio.run(main())
    assert trace_path(answer.run_id).exists()
    assert ticks >= 15, f"the event loop was blocked while the trace was written ({ticks} ticks)"


def test_a_trace_that_cannot_be_written_costs_a_note_not_the_answer(monkeypatch, caplog):
    from agent.tracing import session as session_module

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_module, "write_trace", disk_full)
    answer = ask(CLAIM, mode="verify", backend=scripted_backend(), trace=True)
    assert answer.status == Status.ANSWERED
    assert any(n.startswith("trace not written: OSError") and "No space left" in n for n in answer.notes)
    assert "trace for run" in caplog.text and not trace_path(answer.run_id).exists()


def test_cited_records_keep_their_whole_abstract_and_the_judged_passages():
    from agent.tracing.render_html import render_html
    from agent.tracing.render_text import render_show
    from agent.tracing.view import load_view

    answer, records = traced_run()
    cited = {r["id"]: r for r in kinds(records, "record")}
    judged = {e.record_id for e in answer.ledger}
    assert judged and judged <= set(cited)
    some = cited[sorted(judged)[0]]
    assert some["cited"] and all(p["text"] in some["abstract"] for p in some["cited"])
    page = render_html(load_view(answer.run_id))
    assert '<mark class="support"' in page and "querySelectorAll('details')" in page  # expand all opens every section
    assert f"[[{some['cited'][0]['text']}]]" in render_show(load_view(answer.run_id))
