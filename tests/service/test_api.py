"""The team server's HTTP API in process (Starlette's TestClient) on a throwaway PostgreSQL: keys, two users kept
apart, bad bodies answered 4xx with the reason, runs queued, cancelled and refused while one is pending, and neither
keys nor questions in the logs. Runs are only queued here (no worker): tests/service/test_workers.py executes them."""

from __future__ import annotations

import asyncio
import json
import logging
import threading

import psycopg
import pytest
from starlette.testclient import TestClient

from agent.service import keys
from agent.service.database import ensure_schema
from agent.service.http_api import create_app
from agent.service.service import Service

pytestmark = pytest.mark.slow

QUESTION = "Does aerobic exercise increase hippocampal volume in older adults?"


def _add_user(url: str, name: str) -> str:
    async def add() -> str:
        await ensure_schema(url)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            return await keys.add_user(conn, name)

    return asyncio.run(add())


@pytest.fixture
def api(database_url: str):
    with TestClient(create_app(Service(database_url, max_body_bytes=5000))) as client:
        yield client, _add_user(database_url, "alice"), _add_user(database_url, "bob")


def _h(key: str) -> dict[str, str]:
    return {"x-api-key": key}


def test_a_request_needs_a_known_key(api):
    client, alice, _ = api
    assert client.get("/ok").status_code == 200
    missing = client.post("/threads", json={})
    assert missing.status_code == 401 and "x-api-key" in missing.json()["detail"]
    assert client.post("/threads", json={}, headers=_h(alice + "x")).status_code == 401
    assert client.post("/threads", json={}, headers={"Authorization": f"Bearer {alice}"}).status_code == 200


def test_a_user_never_sees_another_users_thread(api):
    client, alice, bob = api
    thread = client.post("/threads", json={"metadata": {"project": "memory"}}, headers=_h(alice)).json()
    tid = thread["thread_id"]
    run = client.post(
        f"/threads/{tid}/runs", json={"assistant_id": "sparkit", "input": {"question": QUESTION}}, headers=_h(alice)
    )
    assert run.status_code == 200, run.text
    rid = run.json()["run_id"]
    assert client.get(f"/threads/{tid}", headers=_h(alice)).json()["metadata"] == {"project": "memory"}
    for method, path in [
        ("GET", f"/threads/{tid}"),
        ("GET", f"/threads/{tid}/state"),
        ("GET", f"/threads/{tid}/history"),
        ("POST", f"/threads/{tid}/history"),
        ("GET", f"/threads/{tid}/runs"),
        ("GET", f"/threads/{tid}/runs/{rid}"),
        ("POST", f"/threads/{tid}/runs/{rid}/cancel"),
        ("GET", f"/threads/{tid}/runs/{rid}/join"),
        ("DELETE", f"/threads/{tid}"),
        ("POST", f"/threads/{tid}/runs"),
    ]:
        response = client.request(
            method,
            path,
            headers=_h(bob),
            json={"assistant_id": "sparkit", "input": None} if path.endswith("/runs") and method == "POST" else None,
        )
        assert response.status_code == 404, (method, path, response.status_code)
        assert "memory" not in response.text and QUESTION not in response.text
    assert client.post("/threads/search", json={}, headers=_h(bob)).json() == []
    taken = client.post("/threads", json={"thread_id": tid}, headers=_h(bob))
    assert taken.status_code == 409 and "memory" not in taken.text
    again = client.post("/threads", json={"thread_id": tid, "if_exists": "do_nothing"}, headers=_h(bob))
    assert again.status_code == 409 and "memory" not in again.text
    mine_again = client.post("/threads", json={"thread_id": tid, "metadata": {"project": "memory"}}, headers=_h(alice))
    assert mine_again.status_code == 409
    same = client.post("/threads", json={"thread_id": tid, "if_exists": "do_nothing"}, headers=_h(alice))
    assert same.status_code == 200 and same.json()["metadata"] == {"project": "memory"}
    assert [t["thread_id"] for t in client.post("/threads/search", json={}, headers=_h(alice)).json()] == [tid]
    # the run is still alice's, and still pending: bob's cancel changed nothing
    assert client.get(f"/threads/{tid}/runs/{rid}", headers=_h(alice)).json()["status"] == "pending"


def test_bad_bodies_are_refused_with_the_reason(api):
    client, alice, _ = api
    tid = client.post("/threads", json={}, headers=_h(alice)).json()["thread_id"]
    runs = f"/threads/{tid}/runs"
    cases = [
        (client.post(runs, content=b"{not json", headers=_h(alice)), 400, "not valid JSON"),
        (client.post(runs, json=[1, 2], headers=_h(alice)), 400, "JSON object"),
        (client.post(runs, json={"input": {"question": "x" * 6000}}, headers=_h(alice)), 413, "over the limit"),
        (client.post(runs, json={"input": {"question": ""}}, headers=_h(alice)), 422, "input"),
        (client.post(runs, json={"input": {"question": QUESTION, "colour": "red"}}, headers=_h(alice)), 422, "colour"),
        (
            client.post(
                runs, json={"input": {"question": QUESTION}, "context": {"max_hypothesis": 2}}, headers=_h(alice)
            ),
            422,
            "max_hypothesis",
        ),
        (
            client.post(runs, json={"input": {"question": QUESTION}, "stream_mode": "messages"}, headers=_h(alice)),
            422,
            "messages",
        ),
        (
            client.post(runs, json={"input": {"question": QUESTION}, "interrupt_before": ["judge"]}, headers=_h(alice)),
            422,
            "interrupt_before: the graph has no node 'judge'",
        ),
        (
            client.post(runs, json={"input": {"question": QUESTION}, "metadata": "x"}, headers=_h(alice)),
            422,
            "metadata",
        ),
        (client.post("/threads/search", json={"limit": -1}, headers=_h(alice)), 422, "limit"),
    ]
    for response, status, reason in cases:
        assert response.status_code == status, (response.status_code, response.text)
        assert reason in response.json()["detail"], response.text
    assert client.get(f"/threads/{tid}/runs", headers=_h(alice)).json() == [], "a refused request queued a run"


def test_one_run_at_a_time_per_thread_and_cancel_of_a_queued_run(api):
    client, alice, _ = api
    tid = client.post("/threads", json={}, headers=_h(alice)).json()["thread_id"]
    body = {"assistant_id": "sparkit", "input": {"question": QUESTION}, "context": {"max_claims": 0}}
    first = client.post(f"/threads/{tid}/runs", json=body, headers=_h(alice)).json()
    busy = client.post(f"/threads/{tid}/runs", json=body, headers=_h(alice))
    assert busy.status_code == 409 and "pending or running" in busy.json()["detail"]
    assert client.get(f"/threads/{tid}", headers=_h(alice)).json()["status"] == "busy"
    cancelled = client.post(f"/threads/{tid}/runs/{first['run_id']}/cancel", headers=_h(alice))
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "interrupted"
    joined = client.get(f"/threads/{tid}/runs/{first['run_id']}/join", headers=_h(alice)).json()
    assert joined["__error__"]["error"] == "RunInterrupted"
    assert client.post(f"/threads/{tid}/runs", json=body, headers=_h(alice)).status_code == 200


def test_keys_and_questions_never_reach_the_logs(api, caplog, database_url):
    client, alice, _ = api
    caplog.set_level(logging.DEBUG)
    tid = client.post("/threads", json={}, headers=_h(alice)).json()["thread_id"]
    client.post(f"/threads/{tid}/runs", json={"input": {"question": QUESTION}}, headers=_h(alice))
    client.post("/threads", json={}, headers=_h(alice + "wrong"))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "queued" in logged  # the server does log its runs, by id
    assert alice not in logged and "hippocampal" not in logged


def test_keys_are_stored_hashed(api, database_url):
    _, alice, _ = api
    with psycopg.connect(database_url) as conn:
        stored = [row[0] for row in conn.execute("SELECT key_hash FROM sparkit_users").fetchall()]
    assert alice not in stored and keys.key_hash(alice) in stored


def test_database_down_is_a_503_with_the_reason(pg_cluster, database_url):
    alice = _add_user(database_url, "alice")
    with TestClient(create_app(Service(database_url, pool_timeout_s=1))) as client:
        assert client.post("/threads", json={}, headers=_h(alice)).status_code == 200
        pg_cluster.stop()
        try:
            down = client.post("/threads", json={}, headers=_h(alice))
        finally:
            pg_cluster.start()
    assert down.status_code == 503
    detail = down.json()["detail"]
    assert "not reachable" in detail and "SPARKIT_DATABASE_URL" in detail and "password" not in detail


def test_a_long_wait_keeps_the_connection_alive(database_url):
    """/join and /wait answer when the run ends, minutes later for a real run: newlines go out meanwhile, so no
    client times out on a silent connection (langgraph-sdk reads JSON with leading whitespace)."""
    alice = _add_user(database_url, "alice")
    with TestClient(create_app(Service(database_url, keepalive_s=0.01, poll_s=0.05))) as client:
        tid = client.post("/threads", json={}, headers=_h(alice)).json()["thread_id"]
        rid = client.post(f"/threads/{tid}/runs", json={"input": {"question": QUESTION}}, headers=_h(alice)).json()[
            "run_id"
        ]

        def end_the_run() -> None:  # as a worker would, a moment later
            with psycopg.connect(database_url, autocommit=True) as conn:
                conn.execute("UPDATE sparkit_runs SET status = 'error', error = 'stopped' WHERE run_id = %s", (rid,))

        timer = threading.Timer(0.5, end_the_run)
        timer.start()
        joined = client.get(f"/threads/{tid}/runs/{rid}/join", headers=_h(alice))
        timer.join()
    assert joined.text.startswith("\n") and joined.headers["location"].endswith(f"/runs/{rid}/join")
    assert json.loads(joined.text) == {"__error__": {"error": "RunError", "message": "stopped"}}
