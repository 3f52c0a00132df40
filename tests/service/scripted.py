"""The backend the service tests' workers run (`sparkit worker --import tests.service.scripted`): scripted sources,
judge and reasoner over a dozen records, no model load, deterministic. SPARKIT_TEST_SEARCH_DELAY_S slows each search
so that a run is still going when the kill test kills its worker."""

from __future__ import annotations

import asyncio
import os

from agent.backend import register_backend
from agent.literature import Record
from tests.fakes import ListSource, make_backend, record

BACKEND = "service-scripted"

TOPICS = [
    ("exercise", "Aerobic exercise increases hippocampal volume in older adults"),
    ("statins", "Statin therapy decreases LDL cholesterol in adults with hypercholesterolemia"),
    ("sleep", "Sleep deprivation increases cortisol levels in healthy volunteers"),
    ("vitamin-d", "Vitamin D supplementation increases bone mineral density in postmenopausal women"),
    ("smoking", "Smoking cessation decreases the risk of coronary heart disease"),
    ("aspirin", "Low-dose aspirin decreases the risk of colorectal cancer"),
]

RECORDS = [
    record(f"{key}-{i}", f"{claim.split(' ')[0]} study {i}", f"{claim}, cohort {i} (n={100 + 37 * i}).")
    for key, claim in TOPICS
    for i in range(2)
]

QUESTIONS = [claim for _, claim in TOPICS] + [
    "Aerobic exercise decreases hippocampal volume in older adults",
    "Statin therapy increases LDL cholesterol in adults",
    "Sleep deprivation decreases cortisol levels",
    "Vitamin D supplementation decreases bone mineral density",
    "Smoking cessation increases the risk of coronary heart disease",
    "Low-dose aspirin increases the risk of colorectal cancer",
]
SETTINGS = {"backend": BACKEND, "max_claims": 0}


class SlowListSource(ListSource):
    async def search(self, query: str, *, limit: int) -> list[Record]:
        await asyncio.sleep(float(os.environ.get("SPARKIT_TEST_SEARCH_DELAY_S") or 0))
        return await super().search(query, limit=limit)


register_backend(BACKEND, make_backend([SlowListSource(RECORDS)]))


def _die_after_updates(count: int) -> None:
    """SIGKILL this worker right after it stored its `count`-th node update: the step's tasks have written their
    results (pending writes) but the step's checkpoint is not written yet, the narrowest place a kill can land."""
    import signal

    from agent.service import store

    stored = store.add_event
    seen = [0]

    async def add_event(pool, run_id, attempt, mode, data):  # type: ignore[no-untyped-def]
        verdict = await stored(pool, run_id, attempt, mode, data)
        seen[0] += mode == "updates"
        if seen[0] >= count:
            os.kill(os.getpid(), signal.SIGKILL)
        return verdict

    store.add_event = add_event  # type: ignore[assignment]


if os.environ.get("SPARKIT_TEST_DIE_AFTER_UPDATES"):
    _die_after_updates(int(os.environ["SPARKIT_TEST_DIE_AFTER_UPDATES"]))


def _lose_database_after_updates(count: int) -> None:
    """Fail this worker's `count`-th node update once with the error psycopg raises when PostgreSQL drops the
    connection (a restart, a failover): the run must go on in a new attempt, not end in an error."""
    import psycopg

    from agent.service import store

    stored = store.add_event
    seen = [0]

    async def add_event(pool, run_id, attempt, mode, data):  # type: ignore[no-untyped-def]
        seen[0] += mode == "updates"
        if mode == "updates" and seen[0] == count:
            raise psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly")
        return await stored(pool, run_id, attempt, mode, data)

    store.add_event = add_event  # type: ignore[assignment]


def _lose_database_at_finish() -> None:
    """Fail recording the first run's end once, as a dropped connection: its answer event is stored, its end is not."""
    import psycopg

    from agent.service import store

    recorded = store.finish_run
    failed = [False]

    async def finish_run(pool, run_id, attempt, status, output, error):  # type: ignore[no-untyped-def]
        if not failed[0]:
            failed[0] = True
            raise psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly")
        return await recorded(pool, run_id, attempt, status, output, error)

    store.finish_run = finish_run  # type: ignore[assignment]


if os.environ.get("SPARKIT_TEST_LOSE_DATABASE_AFTER_UPDATES"):
    _lose_database_after_updates(int(os.environ["SPARKIT_TEST_LOSE_DATABASE_AFTER_UPDATES"]))
if os.environ.get("SPARKIT_TEST_LOSE_DATABASE_AT_FINISH"):
    _lose_database_at_finish()
