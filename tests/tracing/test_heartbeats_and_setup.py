"""A long set-up (a first index build) is named and timed apart from the run (issue 39, item 3): heartbeats say what
they wait for and thin out; the usage line, the per-node table and `trace list` all leave the set-up out of the run's
time and report it apart."""

from __future__ import annotations

import asyncio
import itertools
import time

from agent.answer.text import render
from agent.api import ask
from agent.backend import register_backend
from agent.config import Context
from agent.metering import waiting_for
from agent.nodes import guard
from agent.tracing import list_traces
from agent.tracing.progress import NodeUsage
from agent.tracing.render_text import render_list
from agent.tracing.view import fmt_seconds
from tests.fakes import ListSource, make_backend, record, unique_backend_name


def test_heartbeats_back_off_so_a_twelve_minute_wait_is_a_dozen_lines_not_380():
    delays = list(itertools.islice(guard.heartbeat_delays(), 8))
    assert delays == [4, 8, 16, 32, 60, 60, 60, 60]
    beats, waited = 0, 0.0
    for delay in guard.heartbeat_delays():
        waited += delay
        if waited > 760:
            break
        beats += 1
    assert beats <= 15


def _events_while(monkeypatch, body) -> list[dict]:
    events: list[dict] = []
    monkeypatch.setattr(guard, "HEARTBEAT_S", 0.01)
    monkeypatch.setattr(guard, "HEARTBEAT_MAX_S", 0.01)
    monkeypatch.setattr(guard, "emit", events.append)
    asyncio.run(guard.guarded("plan", {"started_at": time.time()}, Context(), body))
    return events


def test_heartbeats_name_what_the_node_waits_for(monkeypatch):
    async def building():
        with waiting_for("building the offline index (5,183 records)"):
            await asyncio.sleep(0.3)
        return {}

    beats = [e for e in _events_while(monkeypatch, building) if e["event"] == "heartbeat"]
    assert beats and beats[0]["waiting_for"] == "building the offline index (5,183 records)"


def test_a_step_that_reports_its_own_progress_gets_no_heartbeats(monkeypatch):
    async def building():
        with waiting_for("building the offline index", reports_progress=True):
            await asyncio.to_thread(time.sleep, 0.2)  # in a worker thread, as the backend is built
        return {}

    assert [e["event"] for e in _events_while(monkeypatch, building)] == ["start"]


def test_node_seconds_leave_out_the_setup_waited_for_during_the_step():
    now, setup = [100.0], [0.0]
    usage = NodeUsage(clock=lambda: now[0])
    usage.exclude_setup(lambda: setup[0])
    usage.mark()
    now[0], setup[0] = 862.0, 752.0  # plan took 762 s, 752 of them building the index
    usage.observe({"plan": {}})
    now[0] = 870.0
    usage.observe({"retrieve": {}})
    assert usage.as_dict()["plan"]["seconds"] == 10.0 and usage.as_dict()["retrieve"]["seconds"] == 8.0


def test_usage_line_node_table_and_trace_list_report_setup_apart():
    docs = [
        record(f"r{i}", f"Exercise study {i}", f"Aerobic exercise increases hippocampal volume, cohort {i}.")
        for i in range(3)
    ]
    factory = make_backend([ListSource(docs)])

    def slow_factory(settings, documents=None):
        time.sleep(0.5)  # set-up: loading models, building an index
        return factory(settings, documents)

    name = unique_backend_name()
    register_backend(name, slow_factory)
    answer = ask("Exercise increases hippocampal volume", mode="verify", backend=name, max_claims=0, trace=True)
    usage = answer.usage
    assert usage.setup_s >= 0.5
    assert f"(and {usage.setup_s:.1f} s of set-up before it" in render(answer)
    entry = next(e for e in list_traces() if e["run_id"] == answer.run_id)
    assert entry["setup_s"] == round(usage.setup_s, 3)
    line = next(line for line in render_list([entry]).splitlines() if line.startswith(answer.run_id))
    assert fmt_seconds(usage.setup_s) in line
