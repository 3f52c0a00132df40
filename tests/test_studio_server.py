"""`langgraph dev` smoke test: start the local Studio API server on a free port (analytics and version
check off), create a thread, run the graph over REST with the user's own documents, check the final state."""

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

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]

DOCUMENTS = [
    {"id": "d1", "title": "Vitamin D and fracture risk", "abstract": "Vitamin D supplementation reduced hip fracture risk by 18% in adults over 65 (RR 0.82, 95% CI 0.69-0.97). The effect was seen only with calcium co-supplementation."},
    {"id": "d2", "title": "Vitamin D trial in older adults", "abstract": "In a randomized trial of 2,686 older adults, vitamin D reduced fracture incidence. Total fractures fell by 22%."},
    {"id": "d3", "title": "Coral reef bleaching", "abstract": "Ocean warming drives coral bleaching events across the Pacific."},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    exe = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or shutil.which("langgraph")
    if exe is None:
        pytest.fail("langgraph CLI not installed (pip install -e '.[dev]')")
    port = _free_port()
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false",
           "SPARKIT_HOME": str(tmp_path / "home")}
    env.pop("LANGSMITH_API_KEY", None)
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([exe, "dev", "--no-browser", "--no-reload", "--port", str(port), "--config", "langgraph.json"],
                            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if httpx.get(f"{base}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail(f"server did not start: {(tmp_path / 'server.log').read_text()[-2000:]}")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_graph_runs_over_rest(server):
    with httpx.Client(base_url=server, timeout=240) as client:
        assistants = client.post("/assistants/search", json={"graph_id": "sparkit"}).json()
        assert assistants and assistants[0]["graph_id"] == "sparkit"
        thread = client.post("/threads", json={}).json()["thread_id"]
        run = client.post(f"/threads/{thread}/runs/wait", json={
            "assistant_id": "sparkit",
            "input": {"question": "Does vitamin D reduce fracture risk in older adults?", "documents": DOCUMENTS},
            "context": {"preset": "fast", "max_claims": 2},
        })
        assert run.status_code == 200, run.text
        state = client.get(f"/threads/{thread}/state").json()
        answer = state["values"]["answer"]
        assert answer["status"] in ("ANSWERED", "INSUFFICIENT_EVIDENCE")
        assert answer["citations"] and {c["id"] for c in answer["citations"]} <= {"d1", "d2", "d3"}
        assert answer["run_id"] and answer["stop_reason"]
