"""LangGraph Studio's run controls on `sparkit serve` + a worker, through langgraph-sdk: stop a run at a node
(`interrupt_before`), read and edit its state there, resume it (input None, or a `command`), fork or replay from any
checkpoint of its history (`checkpoint_id`), and the `debug` / `checkpoints` / `tasks` stream modes; the state, history
and run objects read on the way are checked against langgraph-api's openapi.json."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.harness import Processes, sdk_client
from tests.service.harness import wait_run as _wait
from tests.service.openapi import response_errors
from tests.service.scripted import QUESTIONS, SETTINGS
from tests.service.test_workers import fingerprint, single_process_answer

pytestmark = pytest.mark.slow


async def test_stop_at_a_node_edit_resume_and_fork(processes: Processes):
    question = QUESTIONS[0]
    expected = single_process_answer(question)
    processes.worker()
    client = await sdk_client(processes, processes.add_user("alice"))
    thread = (await client.threads.create())["thread_id"]
    ask = {"input": {"question": question, "mode": "verify"}, "context": SETTINGS}

    stopped = await _wait(client, thread, **ask, interrupt_before=["court"])
    assert "answer" not in stopped and stopped["question"] == question and stopped["ranked"], sorted(stopped)
    state = await client.threads.get_state(thread)
    assert state["next"] == ["court"] and (await client.threads.get(thread))["status"] == "interrupted"
    (run,) = await client.runs.list(thread)
    assert run["status"] == "interrupted" and run["kwargs"]["interrupt_before"] == ["court"]
    assert not response_errors("/threads/{thread_id}/state", "GET", 200, state)
    assert not response_errors("/threads/{thread_id}/runs", "GET", 200, [run])

    resumed = await _wait(client, thread, input=None)
    assert fingerprint(resumed["answer"]) == expected, "a resumed run answers as one that never stopped"

    history = await client.threads.get_history(thread, limit=50)
    assert not response_errors("/threads/{thread_id}/history", "GET", 200, history)
    before_court = next(h for h in history if h["next"] == ["court"])
    replayed = await _wait(client, thread, input=None, checkpoint_id=before_court["checkpoint"]["checkpoint_id"])
    assert fingerprint(replayed["answer"]) == expected, "a replay from before the court gives the same answer"
    forked = await _wait(
        client,
        thread,
        input={"question": QUESTIONS[6], "mode": "verify"},
        context=SETTINGS,
        checkpoint_id=history[-1]["checkpoint"]["checkpoint_id"],
    )
    assert fingerprint(forked["answer"]) == single_process_answer(QUESTIONS[6])

    # stop again before the answer is written, strike every judged passage, resume: the edit changes the answer
    await _wait(client, thread, **ask, interrupt_before=["synthesize"])
    await client.threads.update_state(thread, {"ledger": []}, as_node="court")
    assert (await client.threads.get_state(thread))["values"]["ledger"] == []
    edited = await _wait(client, thread, input=None)
    assert expected["status"] == "ANSWERED" and edited["answer"]["status"] == "INSUFFICIENT_EVIDENCE"

    # the same edit as a command at resume, after the court
    await _wait(client, thread, **ask, interrupt_after=["court"])
    # (the court's route to the answer goes through the review point, so that is where it goes on from)
    commanded = await _wait(client, thread, input=None, command={"update": {"ledger": []}, "goto": "review"})
    assert fingerprint(commanded["answer"]) == fingerprint(edited["answer"])


async def test_debug_checkpoints_and_tasks_stream_modes(processes: Processes):
    processes.worker()
    client = await sdk_client(processes, processes.add_user("alice"))
    thread = (await client.threads.create())["thread_id"]
    seen: dict[str, list[Any]] = {}
    async for part in client.runs.stream(
        thread,
        "sparkit",
        input={"question": QUESTIONS[1], "mode": "verify"},
        context=SETTINGS,
        stream_mode=["debug", "checkpoints", "tasks", "values"],
    ):
        seen.setdefault(part.event, []).append(part.data)
    assert {"metadata", "debug", "checkpoints", "tasks", "values"} <= set(seen), sorted(seen)
    assert "updates" not in seen and "custom" not in seen, "only the modes asked for are streamed"
    checkpoints = seen["checkpoints"]
    assert all(c["checkpoint"]["checkpoint_id"] for c in checkpoints) and checkpoints[-1]["next"] == []
    assert "report" in {t["name"] for t in seen["tasks"]}
    assert {d["type"] for d in seen["debug"]} >= {"checkpoint", "task", "task_result"}
    history = await client.threads.get_history(thread, limit=100)
    assert {c["checkpoint"]["checkpoint_id"] for c in checkpoints} <= {
        h["checkpoint"]["checkpoint_id"] for h in history
    }


async def test_bad_run_options_are_one_line_422s(processes: Processes):
    import httpx

    key = processes.add_user("alice")
    client = await sdk_client(processes, key)
    thread = (await client.threads.create())["thread_id"]
    base = client.http.client.base_url
    bad = [
        ({"input": None, "checkpoint_id": "1ef00000-0000-6000-8000-000000000000"}, "not found on thread"),
        (
            {"input": {"question": QUESTIONS[0]}, "interrupt_before": ["judge"]},
            "interrupt_before: the graph has no node",
        ),
        ({"input": {"question": QUESTIONS[0]}, "interrupt_after": "court"}, None),
        ({"input": {"question": QUESTIONS[0]}, "command": {"resume": 1}}, "input and command"),
        ({"input": None, "command": {"update": {"colour": "red"}}}, "command.update"),
        ({"input": None, "command": {"jump": "court"}}, "command: an object of update, goto and resume"),
        ({"input": {"question": QUESTIONS[0]}, "stream_mode": "messages"}, "messages"),
    ]
    async with httpx.AsyncClient(base_url=base, headers={"x-api-key": key}) as http:
        for body, reason in bad:
            response = await http.post(f"/threads/{thread}/runs", json={"assistant_id": "sparkit", **body})
            if reason is None:  # a single node name is taken as a list of one
                assert response.status_code == 200, response.text
                await http.post(f"/threads/{thread}/runs/{response.json()['run_id']}/cancel")
                continue
            assert response.status_code == 422 and reason in response.json()["detail"], (body, response.text)
            assert "\n" not in response.json()["detail"]
