"""A run exported to a real Arize Phoenix (`phoenix serve` on a free loopback port, a temporary working folder), its
spans read back through Phoenix's REST API: the viewer the docs point at files the run as SPARKIT sent it.

Phoenix is heavy and pins older libraries, so it is looked for as a program: SPARKIT_PHOENIX (the path of a `phoenix`
executable, e.g. in its own virtual environment), else `phoenix` beside this Python or on PATH; skipped without one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the otel extra is not installed")

from agent.api import ask
from agent.records import Status
from agent.tracing import otel_setup
from agent.tracing.otel import ENDPOINT_ENV, PROJECT_ENV
from tests.tracing.helpers import CLAIM, scripted_backend
from tests.tracing.test_tracer import GRAPH_NODES

pytestmark = pytest.mark.slow


def phoenix_program() -> str | None:
    given = os.environ.get("SPARKIT_PHOENIX")
    if given:
        return given
    beside = Path(sys.executable).with_name("phoenix")
    return str(beside) if beside.exists() else shutil.which("phoenix")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def phoenix(tmp_path):
    program = phoenix_program()
    if program is None:
        pytest.skip("arize-phoenix is not installed (pip install 'sparkit[phoenix]', or set SPARKIT_PHOENIX)")
    port = free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(tmp_path / "phoenix"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (tmp_path / "phoenix.log").open("wb")
    process = subprocess.Popen([program, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"phoenix serve exited: {(tmp_path / 'phoenix.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline:
                pytest.fail("phoenix serve did not answer /healthz in 120 s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        otel_setup.close_pipeline()


def test_phoenix_shows_the_run(phoenix, monkeypatch):
    monkeypatch.setenv(ENDPOINT_ENV, phoenix)
    monkeypatch.setenv(PROJECT_ENV, "sparkit-test")
    answer = ask(CLAIM, mode="verify", backend=scripted_backend())
    assert answer.status == Status.ANSWERED
    spans: list[dict] = []
    deadline = time.time() + 30  # Phoenix ingests in the background
    while time.time() < deadline:
        reply = httpx.get(f"{phoenix}/v1/projects/sparkit-test/spans", params={"limit": 1000}, timeout=10)
        spans = reply.json().get("data", []) if reply.status_code == 200 else []
        if any(s["parent_id"] is None for s in spans) and any(s["span_kind"] == "EVALUATOR" for s in spans):
            break
        time.sleep(0.5)
    roots = [s for s in spans if s["parent_id"] is None]
    assert len(roots) == 1 and roots[0]["span_kind"] == "AGENT"
    assert roots[0]["attributes"]["output.value"] == answer.answer
    assert roots[0]["attributes"]["session.id"] == answer.run_id
    assert {s["name"] for s in spans} >= GRAPH_NODES
    retrieval = next(s for s in spans if s["span_kind"] == "RETRIEVER")
    assert retrieval["attributes"]["retrieval.documents.0.document.id"] in {"r0", "r1", "r2", "c1"}
    assert any(s["span_kind"] == "EVALUATOR" for s in spans)
