"""OpenTelemetry export (SPARKIT_OTLP_ENDPOINT): a scripted run's spans, read back from an in-process OTLP/HTTP
collector on 127.0.0.1, carry the run in OpenInference's conventions: the answer on the root, the graph's node spans,
retrievals with their documents, stance readings, usage, and no key."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the otel extra is not installed")

from agent.api import ask
from agent.common.redact import redact
from agent.errors import InputError
from agent.records import Status
from agent.tracing import otel_setup
from agent.tracing.otel import ENDPOINT_ENV, otlp_endpoint
from tests.tracing.helpers import CLAIM, scripted_backend
from tests.tracing.otlp_collector import Collector
from tests.tracing.test_tracer import GRAPH_NODES

SECRET = "zq7-not-a-real-key-4481"


@pytest.fixture
def collector(monkeypatch):
    with Collector() as c:
        monkeypatch.setenv(ENDPOINT_ENV, c.url)
        yield c
    otel_setup.close_pipeline()  # undo the process-wide LangChain instrumentation


def exported_run(collector, question=CLAIM):
    answer = ask(question, mode="verify", backend=scripted_backend())
    deadline = time.time() + 5  # the run flushed its spans; the collector's handler may still be decoding
    while time.time() < deadline and not any(s["parent_id"] is None for s in collector.spans):
        time.sleep(0.05)
    return answer, collector.spans


def kind(span):
    return span["attributes"].get("openinference.span.kind")


def test_a_run_is_exported_with_its_nodes_retrievals_judges_usage_and_answer(collector, monkeypatch):
    monkeypatch.setenv("SPARKIT_TEST_API_KEY", SECRET)
    answer, spans = exported_run(collector, f"{CLAIM} ({SECRET})")
    assert answer.status == Status.ANSWERED
    assert len({s["trace_id"] for s in spans}) == 1, "a run is one trace"
    by_id = {s["span_id"]: s for s in spans}
    assert all(s["parent_id"] in by_id for s in spans if s["parent_id"]), "a span points at a parent not exported"
    roots = [s for s in spans if s["parent_id"] is None]
    assert len(roots) == 1
    root = roots[0]
    attributes = root["attributes"]
    assert kind(root) == "AGENT" and root["name"] == "sparkit verify"
    assert SECRET in answer.answer, "the answer quotes the claim, key and all: the export must mask it"
    assert attributes["output.value"] == redact(answer.answer) and attributes["sparkit.run_id"] == answer.run_id
    assert attributes["sparkit.verdict"] == str(answer.verdict)
    assert attributes["sparkit.usage.source_calls"] == answer.usage.source_calls > 0
    assert set(json.loads(attributes["sparkit.usage.by_node"])) >= {"retrieve", "court"}
    assert root["resource"]["openinference.project.name"] == "sparkit"

    graph = [s for s in spans if s["parent_id"] == root["span_id"] and s["name"] == "sparkit"]
    assert len(graph) == 1, "OpenInference's span of the LangGraph run hangs under the run's root"
    nodes = [s for s in spans if s["parent_id"] == graph[0]["span_id"]]
    assert {s["name"] for s in nodes} >= GRAPH_NODES
    retrieve_ids = {s["span_id"] for s in nodes if s["name"] == "retrieve"}
    verify_ids = {s["span_id"] for s in nodes if s["name"] == "verify_claims"}

    retrievals = [s for s in spans if kind(s) == "RETRIEVER"]
    first = [s for s in retrievals if s["parent_id"] in retrieve_ids]
    assert first, "no retrieval under a retrieve node"
    docs = first[0]["attributes"]
    pool_ids = {f"r{i}" for i in range(3)} | {"c1"}
    assert docs["retrieval.documents.0.document.id"] in pool_ids
    assert "hippocampal" in docs["retrieval.documents.0.document.content"]
    assert isinstance(docs["retrieval.documents.0.document.score"], float)
    assert any(s["parent_id"] in verify_ids for s in retrievals), "claim checks hang under verify_claims"

    judges = [s for s in spans if kind(s) == "EVALUATOR"]
    assert len(judges) == len(answer.ledger) + sum(len(c.dossier) for c in answer.claims) > 0
    court_ids = {s["span_id"] for s in nodes if s["name"] == "court"}
    reading = next(s for s in judges if s["parent_id"] in court_ids)
    assert json.loads(reading["attributes"]["output.value"])["stance"] in ("SUPPORT", "CONTRADICT", "NEUTRAL")
    assert json.loads(reading["attributes"]["input.value"])["passage"]

    raw = b"".join(collector.raw)
    assert SECRET.encode() not in raw, "a key reached the exported spans"
    assert b"[REDACTED]" in raw


def test_llm_spans_are_priced_like_the_local_trace():
    attributes = {"llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 1000, "llm.token_count.completion": 500}
    priced = otel_setup.priced(dict(attributes))
    assert priced["llm.cost.total"] == pytest.approx((1000 * 0.15 + 500 * 0.6) / 1e6)
    assert otel_setup.priced({**attributes, "llm.model_name": "unknown-model"}) == {
        **attributes,
        "llm.model_name": "unknown-model",
    }


def test_a_collector_that_is_down_neither_fails_nor_holds_the_run(monkeypatch):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(ENDPOINT_ENV, f"http://127.0.0.1:{port}")
    monkeypatch.setattr(otel_setup, "EXPORT_TIMEOUT_S", 1.0)
    monkeypatch.setattr(otel_setup, "FLUSH_TIMEOUT_S", 1.0)
    try:
        started = time.perf_counter()
        answer = ask(CLAIM, mode="verify", backend=scripted_backend())
        assert answer.status == Status.ANSWERED
        assert time.perf_counter() - started < 30
    finally:
        otel_setup.close_pipeline()


def test_endpoint_forms(monkeypatch):
    monkeypatch.delenv(ENDPOINT_ENV, raising=False)
    assert otlp_endpoint() is None
    monkeypatch.setenv(ENDPOINT_ENV, "http://127.0.0.1:6006")
    assert otlp_endpoint() == "http://127.0.0.1:6006/v1/traces"
    monkeypatch.setenv(ENDPOINT_ENV, "https://collector.example/otlp/v1/traces")
    assert otlp_endpoint() == "https://collector.example/otlp/v1/traces"
    monkeypatch.setenv(ENDPOINT_ENV, "127.0.0.1:6006")
    with pytest.raises(InputError, match=ENDPOINT_ENV):
        otlp_endpoint()


def test_a_missing_extra_is_one_clear_error_before_the_run(monkeypatch):
    monkeypatch.setenv(ENDPOINT_ENV, "http://127.0.0.1:9")
    monkeypatch.delitem(sys.modules, "agent.tracing.otel_setup")
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    with pytest.raises(InputError, match=r"sparkit\[otel\]"):
        ask(CLAIM, mode="verify", backend=scripted_backend())


def test_unset_nothing_imports_opentelemetry():
    code = (
        "import sys, agent.api, agent.cli.run, agent.service.execute\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'openinference')))\n"
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
