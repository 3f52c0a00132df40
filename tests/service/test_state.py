"""threads.update_state and the state at a checkpoint on `sparkit serve` (no worker needed: an edit runs no node): an
edit made as a node sets what runs next, values are rebuilt as the state's records, an edit on an earlier checkpoint
forks the history, and a bad edit is one 4xx line naming what is wrong."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from agent.service.http_api import create_app
from agent.service.service import Service
from tests.service.openapi import CheckedClient
from tests.service.test_api import QUESTION, _add_user

pytestmark = pytest.mark.slow


@pytest.fixture
def api(database_url: str):
    with TestClient(create_app(Service(database_url))) as client:
        yield (
            CheckedClient(client, _add_user(database_url, "alice")),
            CheckedClient(client, _add_user(database_url, "bob")),
        )


def test_an_edit_as_a_node_sets_the_next_node_and_values_come_back_as_records(api):
    alice, _ = api
    tid = alice.call("POST", "/threads", json={})["thread_id"]
    first = alice.call("POST", f"/threads/{tid}/state", json={"values": {"question": QUESTION}, "as_node": "__start__"})
    state = alice.call("GET", f"/threads/{tid}/state")
    assert state["next"] == ["plan"] and state["values"]["question"] == QUESTION
    assert state["checkpoint"]["checkpoint_id"] == first["checkpoint"]["checkpoint_id"]
    assert [task["name"] for task in state["tasks"]] == ["plan"]

    edit = {"values": {"hypotheses": [{"id": "H1", "text": "yes"}]}, "as_node": "hypothesize"}
    second = alice.call("POST", f"/threads/{tid}/state", json=edit)
    state = alice.call("GET", f"/threads/{tid}/state")
    assert state["next"] == ["discriminate"], "hypothesize's edge leads to discriminate"
    (hypothesis,) = state["values"]["hypotheses"]
    assert hypothesis["verdict"] == "INSUFFICIENT" and hypothesis["polarity"] == 1, "not rebuilt as a Hypothesis"
    assert state["parent_checkpoint"]["checkpoint_id"] == first["checkpoint"]["checkpoint_id"]
    at_first = alice.call("GET", f"/threads/{tid}/state/{first['checkpoint']['checkpoint_id']}")
    assert "hypotheses" not in at_first["values"] and at_first["next"] == ["plan"]
    by_body = alice.call("POST", f"/threads/{tid}/state/checkpoint", json={"checkpoint": second["checkpoint"]})
    assert by_body["values"] == state["values"]


def test_an_edit_on_an_earlier_checkpoint_forks_the_history(api):
    alice, _ = api
    tid = alice.call("POST", "/threads", json={})["thread_id"]
    first = alice.call("POST", f"/threads/{tid}/state", json={"values": {"question": QUESTION}, "as_node": "__start__"})
    alice.call("POST", f"/threads/{tid}/state", json={"values": {"mode": "verify"}, "as_node": "plan"})
    fork = alice.call(
        "POST",
        f"/threads/{tid}/state",
        json={"values": {"mode": "ask"}, "as_node": "plan", "checkpoint": first["checkpoint"]},
    )
    history = alice.call("POST", f"/threads/{tid}/history", json={"limit": 10})
    assert len(history) == 3
    latest = history[0]
    assert latest["checkpoint"]["checkpoint_id"] == fork["checkpoint"]["checkpoint_id"]
    assert latest["parent_checkpoint"]["checkpoint_id"] == first["checkpoint"]["checkpoint_id"]
    assert latest["values"]["mode"] == "ask"
    before = alice.call("POST", f"/threads/{tid}/history", json={"before": fork["checkpoint"]})
    assert fork["checkpoint"]["checkpoint_id"] not in [h["checkpoint"]["checkpoint_id"] for h in before]


def test_a_bad_edit_is_one_line_naming_what_is_wrong_and_changes_nothing(api):
    alice, bob = api
    tid = alice.call("POST", "/threads", json={})["thread_id"]
    alice.call("POST", f"/threads/{tid}/state", json={"values": {"question": QUESTION}, "as_node": "__start__"})
    state = f"/threads/{tid}/state"
    cases = [
        ({"values": {"colour": "red"}, "as_node": "plan"}, 422, "values.colour: not a field of the state"),
        ({"values": {"round": "many"}, "as_node": "plan"}, 422, "values.round"),
        ({"values": {"hypotheses": [{"text": "no id"}]}, "as_node": "plan"}, 422, "values.hypotheses.0.id"),
        ({"values": {"mode": "verify"}, "as_node": "judge"}, 422, "as_node: the graph has no node 'judge'"),
        (
            {"values": {"mode": "verify"}, "checkpoint_id": "1ef00000-0000-6000-8000-000000000000"},
            422,
            "not found on thread",
        ),
        ({"values": "x"}, 422, "values"),
    ]
    for body, status, reason in cases:
        detail = alice.call("POST", state, status=status, json=body)["detail"]
        assert reason in detail and "\n" not in detail, detail
    assert len(alice.call("GET", f"/threads/{tid}/history")) == 1, "a refused edit stored a checkpoint"
    assert bob.call("POST", state, status=404, json={"values": {"mode": "verify"}})["detail"].startswith("thread")
    run = alice.call("POST", f"/threads/{tid}/runs", json={"input": None})
    assert run["status"] == "pending"
    busy = alice.call("POST", state, status=409, json={"values": {"mode": "verify"}, "as_node": "plan"})
    assert "pending or running" in busy["detail"]
