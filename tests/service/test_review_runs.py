"""The review point over the team server, as Studio and langgraph-sdk use it (issue 45, item 2): a run with
`review: true` in its context stops interrupted with the court's ledger as the interrupt's value; `command.resume`
with the reviewer's edits finishes it with the verdict weighed from the edited ledger; edits that do not fit are a
422 and a review of a finished run a 409, each with its reason, the run still waiting (nothing lost)."""

from __future__ import annotations

import httpx
import pytest

from tests.service.harness import Processes, sdk_client
from tests.service.harness import wait_run as _wait
from tests.service.scripted import QUESTIONS, SETTINGS
from tests.service.test_workers import fingerprint, single_process_answer

pytestmark = pytest.mark.slow


async def test_a_review_over_the_sdk(processes: Processes):
    question = QUESTIONS[0]
    expected = single_process_answer(question)
    processes.worker()
    key = processes.add_user("alice")
    client = await sdk_client(processes, key)
    thread = (await client.threads.create())["thread_id"]
    ask = {"input": {"question": question, "mode": "verify"}, "context": {**SETTINGS, "review": True}}

    stopped = await _wait(client, thread, **ask)
    assert "answer" not in stopped
    state = await client.threads.get_state(thread)
    (interrupt,) = state["interrupts"]
    payload = interrupt["value"]
    assert state["next"] == ["review"] and payload["kind"] == "court_review" and payload["passages"]
    supports = [p["id"] for p in payload["passages"] if p["reading"] == "support"]
    assert supports and expected["status"] == "ANSWERED"

    async with httpx.AsyncClient(base_url=client.http.client.base_url, headers={"x-api-key": key}) as http:
        bad = await http.post(
            f"/threads/{thread}/runs",
            json={"assistant_id": "sparkit", "input": None, "command": {"resume": {"strike": ["p99"]}}},
        )
        assert bad.status_code == 422 and "no passage 'p99' in the ledger under review" in bad.json()["detail"]
        assert (await client.threads.get_state(thread))["next"] == ["review"]  # still waiting: nothing lost

        reviewed = await _wait(client, thread, input=None, command={"resume": {"strike": supports}})
        answer = reviewed["answer"]
        assert answer["status"] != "ANSWERED" or answer["verdict"] != expected["verdict"]
        assert {c["action"] for c in answer["review"]} == {"strike"}
        assert "A reviewer edited the court's ledger" in answer["answer"]

        finished = await http.post(
            f"/threads/{thread}/runs",
            json={"assistant_id": "sparkit", "input": None, "command": {"resume": {"strike": ["p1"]}}},
        )
        assert finished.status_code == 409 and "not waiting for a review" in finished.json()["detail"]

    # approved as it is: the unreviewed answer
    await _wait(client, thread, **ask)
    approved = await _wait(client, thread, input=None, command={"resume": {"approve": True}})
    assert approved["answer"]["review"] == []  # reviewed, nothing changed: otherwise the unreviewed answer
    assert {**fingerprint(approved["answer"]), "review": None} == expected
