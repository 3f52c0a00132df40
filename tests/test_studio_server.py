"""`langgraph dev` over REST: start the local Studio API server on a free port (analytics and version check off),
read the typed schemas, send careless input and get the real message back, stream a run's node updates, and run the
graph with the user's own documents."""

from __future__ import annotations

import json
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
    {
        "id": "d1",
        "title": "Vitamin D and fracture risk",
        "abstract": "Vitamin D supplementation reduced hip fracture risk by 18% in adults over 65 (RR 0.82, 95% CI "
        "0.69-0.97). The effect was seen only with calcium co-supplementation.",
    },
    {
        "id": "d2",
        "title": "Vitamin D trial in older adults",
        "abstract": "In a randomized trial of 2,686 older adults, vitamin "
        "D reduced fracture incidence. Total fractures fell by 22%.",
    },
    {
        "id": "d3",
        "title": "Coral reef bleaching",
        "abstract": "Ocean warming drives coral bleaching events across the Pacific.",
    },
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("studio")
    exe = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or shutil.which("langgraph")
    if exe is None:
        pytest.fail("langgraph CLI not installed (pip install -e '.[dev]')")
    port = _free_port()
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
        "SPARKIT_HOME": str(tmp_path / "home"),
    }
    env.pop("LANGSMITH_API_KEY", None)
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [exe, "dev", "--no-browser", "--no-reload", "--port", str(port), "--config", "langgraph.json"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
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


def test_schemas_are_typed_and_described(server):
    with httpx.Client(base_url=server, timeout=60) as client:
        assistant = client.post("/assistants/search", json={"graph_id": "sparkit"}).json()[0]["assistant_id"]
        schemas = client.get(f"/assistants/{assistant}/schemas").json()
    inputs = schemas["input_schema"]["properties"]
    assert set(inputs) == {"question", "options", "mode", "documents"} and all(
        p.get("description") for p in inputs.values()
    )
    assert inputs["mode"]["enum"] == ["ask", "verify"]
    assert (
        list(schemas["output_schema"]["properties"]) == ["answer"]
        and schemas["output_schema"]["properties"]["answer"]["description"]
    )
    n_hypotheses = schemas["context_schema"]["properties"]["court"]["properties"]["n_hypotheses"]
    assert "default" not in n_hypotheses and "fast: 3" in n_hypotheses["description"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"input": {"question": "  "}}, "the question is empty"),
        ({"input": {"question": 123}}, "the question must be text"),
        ({"input": {"question": "Is water wet?", "mode": "verfy"}}, "unknown mode 'verfy'"),
        ({"input": {"question": "Is water wet?"}, "context": {"max_hypothesis": 3}}, "invalid setting max_hypothesis"),
        (
            {"input": {"question": "Is water wet?"}, "context": {"court": {"n_hypotheses": 99}}},
            "invalid setting court.n_hypotheses",
        ),
        ({"input": {"question": "Is water wet?"}, "context": {"preset": "turbo"}}, "invalid setting preset"),
    ],
)
def test_bad_input_comes_back_with_its_real_message(server, payload, message):
    with httpx.Client(base_url=server, timeout=120) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        body = client.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "sparkit", **payload}).json()
    assert body["__error__"]["error"] == "InputError" and message in body["__error__"]["message"], body


def _events(response: httpx.Response) -> list[tuple[str, object]]:
    events, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name:
            events.append((name, json.loads(line[6:])))
    return events


def test_graph_runs_over_rest(server):
    with httpx.Client(base_url=server, timeout=400) as client:
        assistants = client.post("/assistants/search", json={"graph_id": "sparkit"}).json()
        assert assistants and assistants[0]["graph_id"] == "sparkit"
        thread = client.post("/threads", json={}).json()["thread_id"]
        with client.stream(
            "POST",
            f"/threads/{thread}/runs/stream",
            json={
                "assistant_id": "sparkit",
                "input": {"question": "Does vitamin D reduce fracture risk in older adults?", "documents": DOCUMENTS},
                "context": {
                    "preset": "fast",
                    "max_claims": 2,
                    "court.n_hypotheses": 2,
                },  # flat and dotted names reach the run
                "stream_mode": ["updates", "values", "custom"],
            },
        ) as response:
            assert response.status_code == 200
            events = _events(response)
        updates = [data for name, data in events if name == "updates"]
        by_node = {node: update for chunk in updates for node, update in chunk.items()}
        assert all(update for chunk in updates for update in chunk.values()), (
            updates
        )  # every node's real update, no nulls
        assert next(c["retrieve"] for c in updates if "retrieve" in c)["round"] == 1 and by_node["plan"]["plan"]["task"]
        assert [e["node"] for name, e in events if name == "custom" and e.get("event") == "start"][:2] == [
            "plan",
            "retrieve",
        ]
        values = [data for name, data in events if name == "values"]
        assert values and set(values[-1]) == {"answer"}  # values keep to the output schema
        state = client.get(f"/threads/{thread}/state").json()
        assert len(state["values"]["answer"]["claims"]) <= 2
        answer = state["values"]["answer"]
        assert answer["status"] in ("ANSWERED", "LEANING", "INSUFFICIENT_EVIDENCE")
        assert answer["citations"] and {c["id"] for c in answer["citations"]} <= {"d1", "d2", "d3"}
        assert answer["run_id"] and answer["stop_reason"]


def test_a_new_question_on_a_thread_is_answered_as_on_a_fresh_thread(server):
    """docs/tracing.md's flow, `runs/wait` then `runs/stream` with a new question on the same thread (Studio reuses
    its thread for every message): the second answer is the one a fresh thread gives, nothing of the first carried."""
    first = {
        "question": "Which reduced fracture risk in older adults?",
        "options": ["vitamin D", "coral bleaching"],
        "documents": DOCUMENTS,
    }
    second = {"question": "Does ocean warming drive coral bleaching?", "documents": DOCUMENTS}  # no options this time
    context = {"preset": "fast", "max_claims": 0}

    def comparable(answer: dict) -> dict:
        return {k: v for k, v in answer.items() if k not in ("run_id", "usage")}

    with httpx.Client(base_url=server, timeout=400) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        answer = client.post(
            f"/threads/{thread}/runs/wait", json={"assistant_id": "sparkit", "input": first, "context": context}
        ).json()["answer"]
        assert answer["task"] == "mcq" and answer["selected_option"] == 0
        with client.stream(
            "POST",
            f"/threads/{thread}/runs/stream",
            json={"assistant_id": "sparkit", "input": second, "context": context, "stream_mode": ["values"]},
        ) as response:
            values = [data for name, data in _events(response) if name == "values"]
        on_thread = values[-1]["answer"]
        fresh_thread = client.post("/threads", json={}).json()["thread_id"]
        fresh = client.post(
            f"/threads/{fresh_thread}/runs/wait", json={"assistant_id": "sparkit", "input": second, "context": context}
        ).json()["answer"]
        state = client.get(f"/threads/{thread}/state").json()["values"]
        history = client.post(f"/threads/{thread}/history", json={"limit": 100}).json()
    from langgraph_sdk import get_sync_client

    again = get_sync_client(url=server).runs.wait(thread, "sparkit", input=first, context=context)[
        "answer"
    ]  # the SDK, same thread
    assert comparable(again) == comparable(answer)
    assert comparable(on_thread) == comparable(fresh)
    assert on_thread["task"] != "mcq" and on_thread["question"] == second["question"]
    assert not any("fracture" in h["text"].lower() or "vitamin" in h["text"].lower() for h in on_thread["hypotheses"])
    assert state["options"] == [] and state["round"] == max(d["round"] for d in fresh["decisions"])
    assert first["question"] in {h["values"].get("question") for h in history}  # the thread's history keeps the first
