"""The small form of the load eval (evals/load.py): Locust users against `sparkit serve` and two workers on the
scripted backend, one worker SIGKILLed mid-load, then PostgreSQL restarted mid-load. Every run a user asked for
finishes once, with one answer (in the database and in its stream), the answer a single process gives; no call gets a
5xx. No timing is asserted: the figures are the eval's."""

from __future__ import annotations

import importlib.util

import pytest

from evals.load import run_load
from evals.load_config import LoadConfig
from tests.service.scripted import QUESTIONS, SETTINGS
from tests.service.test_workers import single_process_answer

pytestmark = [
    pytest.mark.slow,
    # looked up, not imported: importing Locust monkey-patches this process for gevent (it runs as a subprocess)
    pytest.mark.skipif(
        importlib.util.find_spec("locust") is None, reason="Locust is in the dev extra: pip install -e '.[dev]'"
    ),
]


async def test_a_small_load_loses_no_run_to_a_killed_worker_or_a_restarted_database(pg_cluster, tmp_path):
    config = LoadConfig(
        users=3,
        runs_per_user=3,
        workers=2,
        phases=("kill", "pg-restart"),
        backend="scripted",
        questions=tuple(QUESTIONS),
        context=dict(SETTINGS),
        home=tmp_path / "home",
        phase_limit_s=300,
        stalled_after_s=8,
    )
    results = await run_load(pg_cluster, config, tmp_path / "load")
    assert [r.phase for r in results] == ["kill", "pg-restart"]
    for result in results:
        summary = result.summary()
        assert result.fault.get("kind") == result.phase, summary
        assert (result.asked, result.runs_stored, result.finished) == (9, 9, 9), summary
        assert result.lost == 0 and result.duplicate_answers == 0 and result.error_events == 0, summary
        assert not [call for call in result.failed_requests if call.split(": ")[-1].startswith("5")], summary
        for question, answers in result.answers.items():
            assert answers == [single_process_answer(question)] * len(answers), question
    assert results[0].reattempted >= 1, "the killed worker's run was taken up again"
