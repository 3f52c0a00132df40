"""The team server end to end: `sparkit serve` and `sparkit worker` processes on a throwaway PostgreSQL, driven by
langgraph-sdk. Twelve concurrent runs through three workers, one SIGKILLed mid-run: every run completes with the
answer a single process gives, the killed one resumed from its checkpoint (its plan node ran once). A run cancelled
mid-way resumes on a new run of its thread to the same answer, and finished threads are pruned to their latest
checkpoint. The runs use the scripted backend of tests/service/scripted.py (no model load)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from agent.api import ask
from tests.service.harness import busy_worker, fingerprint, rows, sdk_client
from tests.service.scripted import QUESTIONS, SETTINGS

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def single_process_answer(question: str) -> dict[str, Any]:
    return fingerprint(ask(question, mode="verify", **SETTINGS).model_dump(mode="json"))


async def test_twelve_runs_through_three_workers_survive_a_killed_worker(processes, database_url):
    expected = {q: single_process_answer(q) for q in QUESTIONS}
    assert len({str(a) for a in expected.values()}) > 1
    key = processes.add_user("alice")
    workers = {p.pid: p for p in (processes.worker() for _ in range(3))}
    client = await sdk_client(processes, key)

    async def submit(question: str) -> tuple[str, str, str]:
        thread = await client.threads.create()
        run = await client.runs.create(
            thread["thread_id"], "sparkit", input={"question": question, "mode": "verify"}, context=SETTINGS
        )
        return question, thread["thread_id"], run["run_id"]

    submitted = await asyncio.gather(*(submit(q) for q in QUESTIONS))
    pid, killed_run = await busy_worker(database_url, workers)
    os.kill(pid, signal.SIGKILL)
    workers[pid].wait()

    outputs = await asyncio.wait_for(asyncio.gather(*(client.runs.join(t, r) for _, t, r in submitted)), timeout=600)
    for (question, _, _), output in zip(submitted, outputs, strict=True):
        assert "answer" in output, (question, output)
        assert fingerprint(output["answer"]) == expected[question], question
    status = dict(rows(database_url, "SELECT run_id, status FROM sparkit_runs"))
    assert set(status.values()) == {"success"} and len(status) == 12
    ((attempts, resumed_from, worker),) = rows(
        database_url, "SELECT attempts, resumed_from_step, worker FROM sparkit_runs WHERE run_id = %s", killed_run
    )
    assert attempts == 2 and resumed_from is not None and resumed_from >= 1, (attempts, resumed_from)
    assert not worker.endswith(f":{pid}")
    plans = rows(
        database_url,
        "SELECT attempt FROM sparkit_run_events WHERE run_id = %s AND mode = 'updates' AND data ? 'plan'",
        killed_run,
    )
    assert plans == [(1,)], "the resumed run planned again instead of continuing from its checkpoint"
    logged = processes.logged()
    assert "back in the queue" in logged
    assert key not in logged and not any(q in logged for q in QUESTIONS)


async def test_a_worker_killed_before_a_steps_checkpoint_continues_from_the_steps_results(processes, database_url):
    """Killed after `retrieve` stored its results but before the step's checkpoint: the run has no `next` node yet
    is not done; the next worker applies those results and goes on (retrieve and plan are not run again)."""
    question = QUESTIONS[2]
    expected = single_process_answer(question)
    key = processes.add_user("alice")
    processes.env["SPARKIT_TEST_DIE_AFTER_UPDATES"] = "2"  # plan, retrieve
    doomed = processes.worker()
    del processes.env["SPARKIT_TEST_DIE_AFTER_UPDATES"]
    client = await sdk_client(processes, key)
    thread = (await client.threads.create())["thread_id"]
    run = await client.runs.create(thread, "sparkit", input={"question": question, "mode": "verify"}, context=SETTINGS)
    assert await asyncio.to_thread(doomed.wait, 600) == -signal.SIGKILL
    processes.worker()
    output = await asyncio.wait_for(client.runs.join(thread, run["run_id"]), timeout=600)
    assert fingerprint(output["answer"]) == expected
    updates = rows(
        database_url,
        "SELECT attempt, (SELECT k FROM jsonb_object_keys(data) k LIMIT 1) FROM"
        " sparkit_run_events WHERE run_id = %s AND mode = 'updates' ORDER BY seq",
        run["run_id"],
    )
    assert updates[:2] == [(1, "plan"), (1, "retrieve")] and updates[2] == (2, "retrieve")  # replayed from its writes
    started = rows(
        database_url,
        "SELECT data->>'node' FROM sparkit_run_events WHERE run_id = %s AND attempt = 2 AND mode = 'custom'"
        " AND data->>'event' = 'start' ORDER BY seq",
        run["run_id"],
    )
    assert started[0][0] not in ("plan", "retrieve"), started  # the second worker ran neither again


async def test_a_cancelled_run_resumes_to_the_same_answer_and_finished_threads_are_pruned(processes, database_url):
    question = QUESTIONS[1]
    expected = single_process_answer(question)
    key = processes.add_user("alice")
    processes.worker("--prune-after-s", "0")
    client = await sdk_client(processes, key)
    thread = (await client.threads.create())["thread_id"]
    seen: list[str] = []
    run_id = ""
    async for part in client.runs.stream(
        thread,
        "sparkit",
        input={"question": question, "mode": "verify"},
        context=SETTINGS,
        stream_mode=["updates", "custom"],
    ):
        seen.append(part.event)
        if part.event == "metadata":
            run_id = part.data["run_id"]
        if part.event == "updates" and "retrieve" in part.data:
            await client.runs.cancel(thread, run_id, wait=True)
    assert seen[0] == "metadata" and "updates" in seen and "custom" in seen and seen[-1] == "error"
    assert (await client.runs.get(thread, run_id))["status"] == "interrupted"
    resumed = await client.runs.wait(thread, "sparkit", input=None)
    assert fingerprint(resumed["answer"]) == expected
    runs = await client.runs.list(thread)
    assert [r["status"] for r in runs] == ["success", "interrupted"]
    for _ in range(600):
        if rows(database_url, "SELECT 1 FROM sparkit_threads WHERE thread_id = %s AND pruned_at IS NOT NULL", thread):
            break
        await asyncio.sleep(0.2)
    history = await client.threads.get_history(thread, limit=50)
    assert len(history) == 1 and history[0]["next"] == [], processes.logged()[-5000:]
    assert fingerprint(history[0]["values"]["answer"]) == expected
    state = await client.threads.get_state(thread)
    assert fingerprint(state["values"]["answer"]) == expected
