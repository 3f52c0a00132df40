"""PostgreSQL restarted under the team server (issue 52): pooled connections are checked as they leave the pool, so
the first query after a restart does not fail on a dead connection; a run whose connection drops mid-way is retried
from its checkpoint to its one answer instead of ending in an error; a stream waits through the outage instead of
being cut. The load eval (evals/load.py, tests/service/test_load.py) restarts the database under load."""

from __future__ import annotations

import asyncio

import psycopg
import psycopg_pool
import pytest

from agent.service.database import DatabaseUnavailable
from agent.service.execute import DatabaseLost, lost_database
from agent.service.pools import open_pools
from agent.service.service import Service
from tests.service.harness import fingerprint, rows, sdk_client
from tests.service.scripted import QUESTIONS, SETTINGS
from tests.service.test_workers import single_process_answer


@pytest.mark.parametrize(
    ("error", "lost"),
    [
        (psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly"), True),
        (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), True),
        (DatabaseUnavailable("PostgreSQL at db:5432/sparkit is not reachable"), True),
        (psycopg.errors.UndefinedTable('relation "x" does not exist'), False),
        (ValueError("a node's own failure"), False),
    ],
)
def test_only_a_lost_connection_is_retried_not_the_runs_own_failure(error, lost):
    assert lost_database(error) is lost
    try:
        try:
            raise error
        except Exception as exc:
            raise RuntimeError("wrapped by a node") from exc
    except RuntimeError as wrapped:
        assert lost_database(wrapped) is lost


async def test_a_stream_waits_through_an_outage_and_stops_waiting_after_its_patience():
    service = Service("postgresql://u:p@127.0.0.1:1/none", poll_s=0.01, patience_s=0.3)
    calls = [0]

    async def flaky() -> str:
        calls[0] += 1
        if calls[0] < 4:
            raise psycopg.OperationalError("connection failed: Connection refused")
        return "events"

    assert await service.patiently(flaky) == "events" and calls[0] == 4

    async def down() -> str:
        raise psycopg.OperationalError("connection failed: Connection refused")

    with pytest.raises(psycopg.OperationalError):
        await service.patiently(down)

    async def broken() -> str:
        calls[0] += 1
        raise psycopg.errors.UndefinedTable("no such table")

    calls[0] = 0
    with pytest.raises(psycopg.errors.UndefinedTable):
        await service.patiently(broken)
    assert calls[0] == 1, "a failing query is not retried"


@pytest.mark.slow
async def test_pooled_connections_are_good_after_a_restart(pg_cluster, database_url):
    async with open_pools(database_url, 2) as (pool, saver_pool):
        for each in (pool, saver_pool):
            async with each.connection() as conn:
                await conn.execute("SELECT 1")
        await asyncio.to_thread(pg_cluster.restart)
        for each in (pool, saver_pool):
            async with each.connection() as conn:  # the dead connection is replaced, not handed out
                assert (await (await conn.execute("SELECT 1")).fetchone()) is not None


async def _run_on_a_worker_that_loses_the_database(processes, database_url, question, fault):  # type: ignore[no-untyped-def]
    """One run on a worker whose database connection fails once where `fault` (a scripted.py hook) says: its
    output, its (status, attempts, error) and the attempts that stored an answer event."""
    key = processes.add_user("alice")
    processes.env[fault] = "2" if fault.endswith("UPDATES") else "1"
    processes.worker()
    client = await sdk_client(processes, key)
    thread = (await client.threads.create())["thread_id"]
    run = await client.runs.create(thread, "sparkit", input={"question": question, "mode": "verify"}, context=SETTINGS)
    output = await asyncio.wait_for(client.runs.join(thread, run["run_id"]), timeout=600)
    (row,) = rows(database_url, "SELECT status, attempts, error FROM sparkit_runs WHERE run_id = %s", run["run_id"])
    answers = rows(
        database_url,
        "SELECT attempt FROM sparkit_run_events WHERE run_id = %s AND mode = 'values' AND data ? 'answer'",
        run["run_id"],
    )
    return output, row, answers


@pytest.mark.slow
async def test_a_run_that_loses_its_database_connection_is_retried_to_its_one_answer(processes, database_url):
    question = QUESTIONS[3]
    output, run, answers = await _run_on_a_worker_that_loses_the_database(
        processes, database_url, question, "SPARKIT_TEST_LOSE_DATABASE_AFTER_UPDATES"
    )
    assert fingerprint(output["answer"]) == single_process_answer(question), output
    assert run == ("success", 2, None) and answers == [(2,)]
    assert "the database connection was lost" in processes.logged() and DatabaseLost.__name__ in processes.logged()


@pytest.mark.slow
async def test_a_run_whose_end_was_not_recorded_streams_its_answer_once(processes, database_url):
    """The connection dropped after the answer's event was stored, before the run's end was: the retried attempt
    records the end and does not store (stream) the answer a second time."""
    question = QUESTIONS[4]
    output, run, answers = await _run_on_a_worker_that_loses_the_database(
        processes, database_url, question, "SPARKIT_TEST_LOSE_DATABASE_AT_FINISH"
    )
    assert fingerprint(output["answer"]) == single_process_answer(question), output
    assert run == ("success", 2, None)
    assert answers == [(1,)], "the answer was stored once, by the attempt that found it"


class _KnownUser(Service):
    async def user(self, request):  # type: ignore[no-untyped-def]
        return "alice"


def test_a_read_rides_out_a_dropped_connection_and_a_write_answers_503():
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.testclient import TestClient

    from agent.service.http_api import _route

    calls = {"GET": 0, "POST": 0, "PUT": 0}

    async def flaky(request, service, user):  # type: ignore[no-untyped-def]
        calls[request.method] += 1
        if calls[request.method] == 1:
            raise psycopg.errors.AdminShutdown("terminating connection due to administrator command")
        return JSONResponse({"user": user})

    app = Starlette(
        routes=[_route("/state", flaky, ["GET"]), _route("/history", flaky, ["POST"], reads=True)]
        + [_route("/threads", flaky, ["PUT"])]
    )
    app.state.service = _KnownUser("postgresql://u:p@127.0.0.1:1/none", poll_s=0.01)
    with TestClient(app) as client:
        assert client.get("/state").json() == {"user": "alice"} and calls["GET"] == 2
        assert client.post("/history").json() == {"user": "alice"} and calls["POST"] == 2
        written = client.put("/threads")
        assert written.status_code == 503 and "127.0.0.1:1/none is not reachable" in written.json()["detail"]
        assert client.put("/threads").status_code == 200, "a write is tried once per request"


def _timing_out_app(url: str):  # type: ignore[no-untyped-def]
    from starlette.applications import Starlette

    from agent.service.http_api import _route

    async def exhausted(request, service, user):  # type: ignore[no-untyped-def]
        raise psycopg_pool.PoolTimeout("couldn't get a connection after 5.00 sec")

    app = Starlette(routes=[_route("/threads", exhausted, ["PUT"])])
    app.state.service = _KnownUser(url)
    return app


def test_a_pool_timeout_with_the_database_down_says_it_is_down():
    from starlette.testclient import TestClient

    with TestClient(_timing_out_app("postgresql://u:p@127.0.0.1:1/none")) as client:
        answered = client.put("/threads")
    assert answered.status_code == 503 and answered.headers["retry-after"] == "1"
    assert "127.0.0.1:1/none is not reachable" in answered.json()["detail"]


@pytest.mark.slow
def test_a_pool_timeout_with_the_database_up_says_the_server_is_busy_not_down(database_url):
    from starlette.testclient import TestClient

    with TestClient(_timing_out_app(database_url)) as client:
        answered = client.put("/threads")
    detail = answered.json()["detail"]
    assert answered.status_code == 503 and answered.headers["retry-after"] == "1"
    assert (
        detail.startswith("the server is busy: its 10 connections to PostgreSQL at 127.0.0.1:") and "5.00 sec" in detail
    )
    assert "not reachable" not in detail and "start PostgreSQL" not in detail
