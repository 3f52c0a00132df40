"""The requests Schemathesis found a server error with (tests/service/test_schemathesis.py), each sent exactly as it
was generated, in process on a throwaway PostgreSQL: each is now answered with a 4xx and the reason."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from agent.service.http_api import create_app
from agent.service.service import Service
from tests.service.test_api import QUESTION, _add_user

pytestmark = pytest.mark.slow


@pytest.fixture
def alice(database_url: str):
    with TestClient(create_app(Service(database_url))) as client:
        key = _add_user(database_url, "alice")
        client.headers["x-api-key"] = key
        tid = client.post("/threads", json={}).json()["thread_id"]
        run = client.post(f"/threads/{tid}/runs", json={"input": {"question": QUESTION}}).json()
        yield client, tid, run["run_id"]


def test_a_count_beyond_postgresqls_bigint_is_a_422(alice):
    client, tid, rid = alice
    found = client.get(
        f"/threads/{tid}/runs?select=run_id&select=status&select=langsmith_session_name&select=multitask_strategy"
        "&select=run_id&select=multitask_strategy&limit=148059883060972368422144206841053184"
    )
    assert found.status_code == 422 and "over the largest count" in found.json()["detail"], found.text
    assert client.get(f"/threads/{tid}/runs?offset={2**63}").status_code == 422
    assert client.get(f"/threads/{tid}/runs?limit={2**63 - 1}").status_code == 200
    stream = client.get(f"/threads/{tid}/runs/{rid}/stream", headers={"last-event-id": str(2**64)})
    assert stream.status_code == 422, stream.text
    search = client.post("/threads/search", json={"offset": 2**63})
    assert search.status_code == 422 and "offset" in search.json()["detail"], search.text


def test_text_postgresql_cannot_store_is_a_422(alice):
    """A NUL character or an unpaired surrogate is valid JSON and a valid URL, and refused by PostgreSQL's text and
    jsonb: the first request is the one Schemathesis found (a 500 from the checkpoint query)."""
    client, tid, _ = alice
    found = client.get(f"/threads/{tid}/history?before=%C3%A2%26%00%F1%B7%9B%85%C3%8D")
    assert found.status_code == 422 and "before: text with a NUL" in found.json()["detail"], found.text
    assert client.get("/threads/a%00b").status_code == 422
    for raw in (b'{"metadata": {"a": "\\u0000"}}', b'{"metadata": {"\\ud800": 1}}', b'{"thread_id": "\\udfff"}'):
        refused = client.post("/threads", content=raw)
        assert refused.status_code == 422 and "body" in refused.json()["detail"], (raw, refused.text)
    deep = client.post("/threads", content=b"[" * 200_000)
    assert deep.status_code == 400 and "nests deeper" in deep.json()["detail"], deep.text
    assert client.post("/threads", json={"metadata": {"a": "ok \u00e9\U0001f600"}}).status_code == 200
