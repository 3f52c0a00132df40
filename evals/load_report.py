"""What one phase of the load eval (evals/load.py) measured, from three records: the database (each run's status,
attempts, answers stored, when its job started), the users' runs (evals/locustfile.py: what each stream showed) and
every request they made (when, how long, its status).

A run is *lost* when a user asked and did not get its answer: no run stored, the run not `success`, or its stream
never showed the answer, or a run whose job ended while the run did not. A user that Locust's time bound stopped
mid-run, and a run still queued or executing (its job alive) when measured, are counted apart. A *duplicate
answer* is a run with more than one answer stored, or a stream that showed more than one. API latency is every
call but the streams' bodies (a stream's time is to its headers); "saturated" keeps the calls made while every live
worker had a run and at least one more waited."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evals.load_config import LoadConfig, Watch
from tests.service.harness import fingerprint, rows


@dataclass
class PhaseResult:
    phase: str
    users: int
    asked: int
    runs_stored: int
    finished: int
    lost: int
    cut_by_time_bound: int  # users stopped by Locust's --run-time mid-run (their runs are checked, not counted lost)
    unfinished_when_measured: int  # runs still queued or executing (their job alive) when the phase was measured
    duplicate_answers: int
    reattempted: int
    workers: int
    wall_s: float
    api_p50_ms: float | None
    api_p95_ms: float | None
    api_saturated_p50_ms: float | None
    api_saturated_p95_ms: float | None
    requests: int
    serve_cpu_ms_per_request: float | None
    failed_requests: dict[str, int]
    queue_wait_p50_s: float | None
    queue_wait_p95_s: float | None
    queue_wait_max_s: float | None
    rss_mb: list[float]
    saturated_s: float
    stream_cuts: dict[str, int]
    rejoins: int
    error_events: int
    load_average: tuple[float, float]
    fault: dict[str, Any]
    db_unreachable_s: float
    answers: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    def summary(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "answers"}


def _percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


_RUNS = """
SELECT r.run_id, r.status, r.attempts, r.input->>'question', r.output, r.created_at,
  (SELECT min(e.at) FROM procrastinate_events e WHERE e.job_id = r.job_id AND e.type = 'started'),
  (SELECT count(*) FROM sparkit_run_events v WHERE v.run_id = r.run_id AND v.mode = 'values' AND v.data ? 'answer'),
  (SELECT j.status::text FROM procrastinate_jobs j WHERE j.id = r.job_id)
FROM sparkit_runs r WHERE r.metadata->>'phase' = %s
"""


def phase_result(
    url: str, phase: str, config: LoadConfig, out: Path, watch: Watch, load: tuple[float, float]
) -> PhaseResult:
    stored = {row[0]: row for row in rows(url, _RUNS, phase)}
    asked = _lines(out / f"{phase}-runs.jsonl")
    requests = _lines(out / f"{phase}-requests.jsonl")
    lost, cut, unfinished, duplicates = 0, 0, 0, 0
    answers: dict[str, list[dict[str, Any]]] = {}
    for record in asked:
        run = stored.get(record.get("run_id") or "")
        seen = record["answers"]
        if run is not None and run[1] in ("pending", "running") and run[8] in ("todo", "doing"):
            unfinished += 1  # still queued or executing when measured: slow, not lost
        elif record["outcome"] == "stopped":  # Locust's time bound ended the user first: the run must still finish
            cut += 1
            lost += run is not None and run[1] != "success"
        elif run is not None and run[1] == "success" and seen and run[7] >= 1:
            answers.setdefault(record["question"], []).append(fingerprint(seen[-1]))
        else:
            lost += 1
        duplicates += len(seen) > 1 or (run is not None and run[7] > 1)
    waits = [(run[6] - run[5]).total_seconds() for run in stored.values() if run[6] is not None]
    calls = [r for r in requests if "stream (rejoin)" not in r["name"]]
    busy = [r for r in calls if any(a <= r["t"] <= b for a, b in watch.saturated)]
    failed = Counter(
        f"{r['name']}: {r['status'] or r['error']}" for r in requests if not r["status"] or r["status"] >= 500
    )
    cuts = Counter(  # the streams' own failures: a start refused or cut, a rejoin refused (polls are failed calls)
        f"{what}: {why}"
        for record in asked
        for what, why in record["failures"]
        if what in ("start", "stream", "rejoin")
    )
    started = min((r["started"] for r in asked), default=load[1])
    ended = max((r.get("ended", r["started"]) for r in asked), default=time.time())
    return PhaseResult(
        phase=phase,
        users=config.users,
        asked=len(asked),
        runs_stored=len(stored),
        finished=sum(run[1] == "success" for run in stored.values()),
        lost=lost,
        cut_by_time_bound=cut,
        unfinished_when_measured=unfinished,
        duplicate_answers=duplicates,
        reattempted=sum(run[2] > 1 for run in stored.values()),
        workers=config.workers,
        wall_s=round(ended - started, 1),
        api_p50_ms=_percentile([r["ms"] for r in calls], 50),
        api_p95_ms=_percentile([r["ms"] for r in calls], 95),
        api_saturated_p50_ms=_percentile([r["ms"] for r in busy], 50),
        api_saturated_p95_ms=_percentile([r["ms"] for r in busy], 95),
        requests=len(requests),
        serve_cpu_ms_per_request=round(watch.serve_cpu_s * 1000 / len(requests), 1) if requests else None,
        failed_requests=dict(failed),
        queue_wait_p50_s=_percentile(waits, 50),
        queue_wait_p95_s=_percentile(waits, 95),
        queue_wait_max_s=round(max(waits), 2) if waits else None,
        rss_mb=[round(v) for v in watch.rss_mb.values()],
        saturated_s=round(sum(b - a for a, b in watch.saturated), 1),
        stream_cuts=dict(cuts),
        rejoins=sum(r["reconnects"] for r in asked),
        error_events=sum(len(r["error_events"]) for r in asked),
        load_average=(round(load[0], 1), round(os.getloadavg()[0], 1)),
        fault={k: v for k, v in watch.fault.items() if k != "at"},
        db_unreachable_s=watch.db_unreachable_s,
        answers=answers,
    )


def differing_answers(results: list[PhaseResult]) -> int:
    """Questions whose answer in a faulted phase differs from the steady phase's (or within a phase)."""
    reference: dict[str, str] = {}
    differ = 0
    for result in results:
        for question, found in result.answers.items():
            for answer in found:
                text = json.dumps(answer, sort_keys=True)
                differ += reference.setdefault(question, text) != text
    return differ


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    return done.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def print_report(results: list[PhaseResult], config: LoadConfig, elapsed: float, out: Path) -> None:
    today = dt.date.today().isoformat()
    print(f"\nload on the team server, commit {_commit()}, {today}, backend {config.backend}, {elapsed:.0f} s in all")
    print(
        "| phase | users | runs | workers | finished | lost | duplicate answers | API p50 / p95 ms (saturated) "
        "| API p50 / p95 ms (all) | queue wait p50 / p95 / max s | worker RSS MB | stream cuts, rejoins "
        "| failed calls | load average |"
    )
    print("|---" * 14 + "|")
    for r in results:
        cuts = sum(r.stream_cuts.values())
        print(
            f"| {r.phase} | {r.users} | {r.asked} | {r.workers} | {r.finished} | {r.lost} | {r.duplicate_answers} "
            f"| {r.api_saturated_p50_ms} / {r.api_saturated_p95_ms} | {r.api_p50_ms} / {r.api_p95_ms} "
            f"| {r.queue_wait_p50_s} / {r.queue_wait_p95_s} / {r.queue_wait_max_s} "
            f"| {', '.join(str(v) for v in r.rss_mb)} | {cuts}, {r.rejoins} "
            f"| {sum(r.failed_requests.values())} of {r.requests} | {r.load_average[0]}-{r.load_average[1]} |"
        )
    for r in results:
        print(
            f"{r.phase}: wall {r.wall_s} s, saturated {r.saturated_s} s, re-attempted runs {r.reattempted}, "
            f"users cut by the time bound {r.cut_by_time_bound}, unfinished when measured "
            f"{r.unfinished_when_measured}, "
            f"serve CPU per request {r.serve_cpu_ms_per_request} ms, "
            f"error events {r.error_events}, fault {r.fault or '-'}, database unreachable {r.db_unreachable_s} s"
        )
        if r.failed_requests or r.stream_cuts:
            print(f"  failed calls {r.failed_requests}; stream cuts {r.stream_cuts}")
    print(f"answers differing from the same question's in another phase: {differing_answers(results)}")
    print(f"runs, requests and logs: {out}")
