"""The team server exports every run when SPARKIT_OTLP_ENDPOINT is set on its workers: a run submitted through the
API arrives at an OTLP collector (in this process, on loopback) as one trace, its root carrying the run's answer."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the otel extra is not installed")

from tests.service.harness import sdk_client
from tests.service.scripted import QUESTIONS, SETTINGS
from tests.tracing.otlp_collector import Collector

pytestmark = pytest.mark.slow


async def test_a_worker_exports_its_runs(processes):
    with Collector() as collector:
        processes.env["SPARKIT_OTLP_ENDPOINT"] = collector.url
        processes.env["SPARKIT_OTLP_PROJECT"] = "team"
        key = processes.add_user("alice")
        processes.worker()
        client = await sdk_client(processes, key)
        thread = await client.threads.create()
        run = await client.runs.create(
            thread["thread_id"], "sparkit", input={"question": QUESTIONS[0], "mode": "verify"}, context=SETTINGS
        )
        output = await asyncio.wait_for(client.runs.join(thread["thread_id"], run["run_id"]), timeout=300)
        deadline = time.time() + 10
        while time.time() < deadline and not any(s["parent_id"] is None for s in collector.spans):
            await asyncio.sleep(0.1)
    roots = [s for s in collector.spans if s["parent_id"] is None]
    assert len(roots) == 1, processes.logged()[-3000:]
    root = roots[0]
    assert root["attributes"]["sparkit.run_id"] == run["run_id"]
    assert root["attributes"]["output.value"] == output["answer"]["answer"]
    assert root["resource"]["openinference.project.name"] == "team"
    names = {s["name"] for s in collector.spans}
    assert {"plan", "retrieve", "court"} <= names
    assert any(s["attributes"].get("openinference.span.kind") == "RETRIEVER" for s in collector.spans)
