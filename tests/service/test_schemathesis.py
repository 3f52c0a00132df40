"""Schemathesis against `sparkit serve` and a worker on a throwaway PostgreSQL (tests/service/schema_fuzz.py): every
operation SPARKIT serves gets generated cases from langgraph-api's openapi.json with a user's key (no server error,
declared statuses, content types and shapes); the same operations without a key, or with a wrong one, get 401; and
with a second user's key aimed at the first user's thread, run and checkpoint ids, no case reaches that thread."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.service.harness import Processes, sdk_client, wait_run
from tests.service.scripted import SETTINGS
from tests.service.throwaway_postgres import Cluster

pytestmark = pytest.mark.slow
schema_fuzz = pytest.importorskip("tests.service.schema_fuzz", reason="schemathesis (pip install -e '.[dev]')")

CASES = int(os.environ.get("SPARKIT_FUZZ_CASES") or 25)
"""Generated cases per operation with a user's key (SPARKIT_FUZZ_CASES); the variants without a key and with another
user's send a fifth as many each: together about three minutes on 2 cores."""

SECRET = "alices-private-project-7f3a"
QUESTION = "Does aerobic exercise increase hippocampal volume in older adults?"


@pytest.fixture(scope="module")
def served(pg_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """serve + one worker (the fuzz backend, tests/service/fuzz_backend.py), alice with a finished run, and bob."""
    home = tmp_path_factory.mktemp("fuzz")
    (home / "logs").mkdir()
    procs = Processes(pg_cluster.create_database("f" + uuid.uuid4().hex[:12]), home / "home", home / "logs")
    procs.env["SPARKIT_TEST_SEARCH_DELAY_S"] = "0"
    try:
        alice, bob = procs.add_user("alice"), procs.add_user("bob")
        procs.worker("--import", "tests.service.fuzz_backend")

        async def a_finished_run() -> tuple[str, str, str, str]:
            client = await sdk_client(procs, alice)
            thread = await client.threads.create(metadata={"project": SECRET})
            await wait_run(client, thread["thread_id"], input={"question": QUESTION}, context=SETTINGS)
            runs = await client.runs.list(thread["thread_id"])
            state = await client.threads.get_state(thread["thread_id"])
            url = str(client.http.client.base_url).rstrip("/")
            return url, thread["thread_id"], runs[0]["run_id"], state["checkpoint"]["checkpoint_id"]

        url, thread_id, run_id, checkpoint_id = asyncio.run(a_finished_run())
        live = schema_fuzz.Live(url, alice, thread_id, run_id, checkpoint_id)
        yield {"live": live, "alice": alice, "bob": bob, "procs": procs}
    finally:
        procs.stop()


def _passed(name: str, tally: Any, served: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """Prints the run's figures past pytest's capture, so CI's log has them (the results page quotes them), and fails
    with every failure found."""
    with capsys.disabled():
        print(f"\nschemathesis {name}: {tally.line()}")
    operations = {f"{method} {path}" for method, path in schema_fuzz.served_routes()}
    assert set(tally.per_operation) == operations, operations - set(tally.per_operation)
    assert not tally.failures, "\n\n".join(tally.failures) + "\n" + served["procs"].logged()[-4000:]


def test_every_served_operation_answers_as_declared(served, capsys):
    tally = schema_fuzz.fuzz(served["live"], cases=CASES, headers={"x-api-key": served["alice"]})
    _passed("with alice's key", tally, served, capsys)
    assert tally.cases >= min(CASES, 10) * len(tally.per_operation)  # a few operations have fewer possible inputs


def test_without_a_key_every_operation_is_refused(served, capsys):
    for name, headers in (("without a key", {}), ("with a wrong key", {"x-api-key": served["alice"] + "x"})):
        tally = schema_fuzz.fuzz(served["live"], cases=max(2, CASES // 5), headers=headers, expect=schema_fuzz.refused)
        _passed(name, tally, served, capsys)
        open_cases = tally.per_operation["GET /ok"] + tally.per_operation["GET /info"]
        assert tally.statuses.get(401, 0) == tally.cases - open_cases


def _alices_thread(live: Any) -> Any:
    """What alice sees of her thread once its last run ended: the thread, its runs and its history."""

    def get(path: str) -> Any:
        return requests.get(f"{live.base_url}/threads/{live.thread_id}{path}", headers={"x-api-key": live.key}).json()

    for _ in range(240):
        if get("")["status"] != "busy":
            break
        time.sleep(0.5)
    return get(""), get("/runs?limit=1000"), get("/history?limit=1000")


def test_another_users_key_reaches_none_of_alices_threads(served, capsys):
    live = served["live"]
    before = _alices_thread(live)
    assert before[0]["metadata"] == {"project": SECRET} and before[1] and before[2]
    expect = schema_fuzz.kept_from(live, SECRET, QUESTION, live.checkpoint_id)
    tally = schema_fuzz.fuzz(
        live, cases=max(2, CASES // 5), headers={"x-api-key": served["bob"]}, expect=expect, aims=(1, 2)
    )
    _passed("with bob's key on alice's ids", tally, served, capsys)
    assert tally.statuses.get(404, 0) > 0
    assert _alices_thread(live) == before
