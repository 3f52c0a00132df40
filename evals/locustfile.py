"""The users of the load eval (evals/load.py), for Locust: each user creates a thread per question and starts a run on
it with a streaming client attached (`POST /threads/{id}/runs/stream`, what langgraph-sdk's `runs.stream` sends),
and while the run streams a second greenlet polls the thread's state and history and the run, as a UI would.

A stream cut by the server (a worker killed, PostgreSQL restarted) is joined again from the last event id it saw
(`GET /threads/{id}/runs/{run_id}/stream` with `Last-Event-ID`, as langgraph-sdk reconnects); a start that failed is
retried, attaching to the run if the failed start had stored one. Each user does its runs one after another and stops;
the last one out stops Locust, so a load ends by itself (Locust's --run-time bounds it too).

Written for evals/load.py, which sets the environment: SPARKIT_LOAD_PLAN names a JSON file with `key` (the API key),
`runs_per_user`, `questions`, `mode`, `context`, `metadata`, `poll_s`, `runs_out` (one JSON line per run: what its
stream showed and how it ended) and `requests_out` (one JSON line per request: when, which, how long, its status).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import gevent
from locust import HttpUser, constant, events, task
from locust.exception import StopUser

PLAN: dict[str, Any] = json.loads(Path(os.environ["SPARKIT_LOAD_PLAN"]).read_text())
MODES = ["values", "updates", "custom"]
RETRY_S = 1.0
RETRIES = 120  # a bounded wait through a database restart or a lost worker: two minutes at most per call
_numbers = itertools.count()
_finished_users = [0]
_requests_out = open(PLAN["requests_out"], "a", buffering=1)  # noqa: SIM115 - one file for the whole load
_runs_out = open(PLAN["runs_out"], "a", buffering=1)  # noqa: SIM115


@events.request.add_listener
def _log_request(
    request_type: str,
    name: str,
    response_time: float,
    response_length: int,
    exception: BaseException | None,
    response: Any = None,
    **_: Any,
) -> None:
    status = getattr(response, "status_code", None) if response is not None else None
    error = type(exception).__name__ if exception is not None else None
    record = {"t": time.time() - response_time / 1000, "name": f"{request_type} {name}", "ms": response_time}
    record["bytes"] = response_length
    _requests_out.write(json.dumps({**record, "status": status, "error": error}) + "\n")


class Scientist(HttpUser):
    """One user of the team server: one run at a time, its stream read to the end, its thread polled meanwhile."""

    wait_time = constant(0)

    def on_start(self) -> None:
        self.number = next(_numbers)
        self.done = 0
        self.client.headers["x-api-key"] = PLAN["key"]

    @task
    def ask(self) -> None:
        if self.done >= PLAN["runs_per_user"]:
            self._stop()
        questions = PLAN["questions"]
        question = questions[(self.number * PLAN["runs_per_user"] + self.done) % len(questions)]
        self.done += 1
        record: dict[str, Any] = {
            "user": self.number,
            "question": question,
            "started": time.time(),
            "failures": [],  # [what, HTTP status (0: no connection) or exception], in order
            "reconnects": 0,
            "events": 0,
            "answers": [],
            "error_events": [],
            "attempts_seen": [],
        }
        record["outcome"] = "stopped"  # until it ends: Locust's --run-time may stop a user mid-run
        try:
            self._ask(question, record)
        finally:
            record["ended"] = time.time()
            _runs_out.write(json.dumps(record) + "\n")

    def _ask(self, question: str, record: dict[str, Any]) -> None:
        thread = self._call("POST", "/threads", "/threads", record, json={"metadata": PLAN["metadata"]})
        if thread is None:
            record["outcome"] = "no thread"
            return
        record["thread_id"] = thread_id = thread["thread_id"]
        done = [False]
        poller = gevent.spawn(self._poll, thread_id, record, done)
        try:
            self._follow(thread_id, question, record)
        finally:
            done[0] = True
            poller.join(timeout=30)
        run_id = record.get("run_id")
        if run_id:
            run = self._call("GET", f"/threads/{thread_id}/runs/{run_id}", "/threads/[id]/runs/[id]", record)
            record["status"] = run["status"] if run else None

    def _stop(self) -> None:
        _finished_users[0] += 1
        if _finished_users[0] >= self.environment.runner.target_user_count:  # type: ignore[union-attr]
            gevent.spawn_later(0.1, self.environment.runner.quit)  # type: ignore[union-attr]
        raise StopUser()

    def _call(self, method: str, path: str, name: str, record: dict[str, Any], **kwargs: Any) -> Any:
        """A JSON call, retried through connection errors and 5xx (each one counted in Locust's stats)."""
        for _ in range(RETRIES):
            response = self.client.request(method, path, name=name, **kwargs)
            if 0 < response.status_code < 500:
                return response.json() if response.ok else None
            record["failures"].append([name, response.status_code])
            gevent.sleep(RETRY_S)
        return None

    def _follow(self, thread_id: str, question: str, record: dict[str, Any]) -> None:
        """Start the run streaming, then read its stream to the end, joining it again after every cut."""
        body = {
            "assistant_id": "sparkit",
            "input": {"question": question, "mode": PLAN["mode"]},
            "context": PLAN["context"],
            "metadata": PLAN["metadata"],
            "stream_mode": MODES,
        }
        last = 0
        for _ in range(RETRIES):
            response = None
            try:
                if "run_id" not in record:
                    response = self.client.post(
                        f"/threads/{thread_id}/runs/stream", json=body, stream=True, name="/threads/[id]/runs/stream"
                    )
                    if response.status_code == 409:  # a start that failed had stored its run: attach to it
                        record["failures"].append(["start", 409])
                        self._attach(thread_id, record)
                        continue
                else:
                    record["reconnects"] += 1
                    response = self.client.get(
                        f"/threads/{thread_id}/runs/{record['run_id']}/stream",
                        params={"stream_mode": MODES},
                        headers={"Last-Event-ID": str(last)},
                        stream=True,
                        name="/threads/[id]/runs/[id]/stream (rejoin)",
                    )
                if not 0 < response.status_code < 400:
                    record["failures"].append(["start" if "run_id" not in record else "rejoin", response.status_code])
                    if "run_id" not in record:
                        self._attach(thread_id, record)
                else:
                    last, finished = self._read(response, record, last)
                    if finished:
                        record["outcome"] = "ended"
                        return
            except Exception as exc:  # the stream was cut mid-way
                record["failures"].append(["stream", type(exc).__name__])
            finally:
                if response is not None:
                    response.close()
            gevent.sleep(RETRY_S)
        record["outcome"] = "gave up"

    def _attach(self, thread_id: str, record: dict[str, Any]) -> None:
        runs = self._call("GET", f"/threads/{thread_id}/runs", "/threads/[id]/runs", record) or []
        if runs:
            record["run_id"] = runs[0]["run_id"]

    @staticmethod
    def _read(response: Any, record: dict[str, Any], last: int) -> tuple[int, bool]:
        """Read server-sent events until the stream ends; (last event id, whether the run's end was seen)."""
        event, data, finished = "", "", False
        for line in response.iter_lines(chunk_size=1024, decode_unicode=True):
            if line.startswith("id: "):
                last = int(line[4:])
            elif line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif not line and event:
                payload = json.loads(data)
                record["events"] += 1
                if event == "metadata":
                    record["run_id"] = payload["run_id"]
                    record["attempts_seen"].append(payload.get("attempt"))
                elif event == "values" and "answer" in payload:
                    record["answers"].append(payload["answer"])
                    finished = True
                elif event == "error":
                    record["error_events"].append(payload)
                    finished = True
                event, data = "", ""
        return last, finished

    def _poll(self, thread_id: str, record: dict[str, Any], done: list[bool]) -> None:
        """What a UI does while a run streams: the thread's state and history, and the run."""
        while not done[0]:
            polls = [
                ("GET", f"/threads/{thread_id}/state", "/threads/[id]/state", {}),
                ("POST", f"/threads/{thread_id}/history", "/threads/[id]/history", {"json": {"limit": 5}}),
            ]
            if record.get("run_id"):
                polls.append(("GET", f"/threads/{thread_id}/runs/{record['run_id']}", "/threads/[id]/runs/[id]", {}))
            for method, path, name, kwargs in polls:
                response = self.client.request(method, path, name=name, **kwargs)
                if not 0 < response.status_code < 500:
                    record["failures"].append([name, response.status_code])
            gevent.sleep(PLAN["poll_s"])
