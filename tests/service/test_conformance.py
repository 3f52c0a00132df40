"""What `sparkit serve` serves, checked against langgraph-api's openapi.json (the API `langgraph dev` serves): every
route it declares exists there with its methods, and every response of a session of the calls LangGraph Studio and
langgraph-sdk make (open the graph, create a thread, start runs, read state and history) has the declared shape."""

from __future__ import annotations

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from agent.graph import graph
from agent.service import graph_info
from agent.service.http_api import create_app
from agent.service.requests import ASSISTANT_ID
from agent.service.service import Service
from tests.service.openapi import CheckedClient, declared, response_errors
from tests.service.test_api import QUESTION, _add_user


def test_every_route_served_is_declared_by_langgraph_api_with_its_methods():
    app = create_app(Service("postgresql://unused@127.0.0.1:1/none"))
    served = [
        (route.path, method) for route in app.routes if isinstance(route, Route) for method in route.methods or ()
    ]
    missing = []
    for path, method in served:
        if method == "HEAD":
            continue
        try:
            declared(path, method)
        except KeyError:
            missing.append(f"{method} {path}")
    assert len(served) >= 20 and not missing, missing


def test_the_graph_schemas_and_drawing_have_langgraph_apis_shapes():
    schemas = {"graph_id": "sparkit", **graph_info.schemas(graph)}
    assert not response_errors("/assistants/{assistant_id}/schemas", "GET", 200, schemas)
    assert set(schemas["input_schema"]["properties"]) == {"question", "options", "mode", "documents"}
    assert "answer" in schemas["output_schema"]["properties"]
    assert {"pool", "ledger", "hypotheses", "answer"} <= set(schemas["state_schema"]["properties"])
    assert "preset" in schemas["context_schema"]["properties"]
    for xray in (False, True, 1):
        drawn = graph_info.drawing(graph, xray)
        assert not response_errors("/assistants/{assistant_id}/graph", "GET", 200, drawn)
        assert {"court", "report"} <= {node["id"] for node in drawn["nodes"]}
    assert not response_errors("/info", "GET", 200, graph_info.server_info())


@pytest.mark.slow
def test_a_studio_session_gets_the_shapes_openapi_declares(database_url):
    with TestClient(create_app(Service(database_url))) as client:
        api = CheckedClient(client, _add_user(database_url, "alice"))
        assert client.get("/info").status_code == 200  # asked before any key
        for assistant in api.call("POST", "/assistants/search", json={}):
            assert assistant["assistant_id"] == ASSISTANT_ID
        for assistant_id in (ASSISTANT_ID, "sparkit"):
            api.call("GET", f"/assistants/{assistant_id}")
            api.call("GET", f"/assistants/{assistant_id}/schemas")
            api.call("GET", f"/assistants/{assistant_id}/graph?xray=true")
            assert api.call("GET", f"/assistants/{assistant_id}/subgraphs?recurse=true") == {}
        api.call("GET", "/assistants/other/schemas", status=404)
        api.call("GET", f"/assistants/{ASSISTANT_ID}/graph?xray=0", status=422)
        thread = api.call("POST", "/threads", json={"metadata": {"project": "memory"}})
        tid = thread["thread_id"]
        api.call("GET", f"/threads/{tid}")
        api.call("POST", "/threads/search", json={"metadata": {"project": "memory"}})
        run = api.call(
            "POST", f"/threads/{tid}/runs", json={"assistant_id": ASSISTANT_ID, "input": {"question": QUESTION}}
        )
        api.call("GET", f"/threads/{tid}/runs/{run['run_id']}")
        api.call("GET", f"/threads/{tid}/runs")
        api.call("POST", f"/threads/{tid}/runs/{run['run_id']}/cancel", status=202)
        empty = client.get(f"/threads/{tid}/state", headers={"x-api-key": api.key}).json()
        assert empty["checkpoint"] is None and empty["values"] == {}  # as langgraph-api (its state.py), not its spec
        edited = api.call(
            "POST", f"/threads/{tid}/state", json={"values": {"question": QUESTION}, "as_node": "__start__"}
        )
        checkpoint = edited["checkpoint"]
        api.call("GET", f"/threads/{tid}/state")
        api.call("GET", f"/threads/{tid}/state/{checkpoint['checkpoint_id']}")
        api.call("POST", f"/threads/{tid}/state/checkpoint", json={"checkpoint": checkpoint})
        api.call("GET", f"/threads/{tid}/history")
        api.call("POST", f"/threads/{tid}/history", json={"limit": 5, "before": checkpoint})
        api.call("POST", f"/threads/{tid}/state", status=422, json={"values": {"colour": "red"}})
        api.call("GET", f"/threads/{tid}/state/1ef00000-0000-6000-8000-000000000000", status=422)
        api.call("POST", f"/threads/{tid}/runs", status=404, json={"assistant_id": "other", "input": None})
        api.call("DELETE", f"/threads/{tid}", status=204)
        api.call("GET", f"/threads/{tid}", status=404)
    assert len(set(api.checked)) >= 20, api.checked
