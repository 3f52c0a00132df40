"""A bounded load with faults on the team server: Locust users (evals/locustfile.py) against `sparkit serve` and N
`sparkit worker` processes on a throwaway PostgreSQL (the harness of tests/service), in phases on one deployment:
`steady` (no fault), `kill` (a busy worker SIGKILLed once the workers are saturated and a quarter of the runs is
done; a fresh worker replaces it after the phase) and `pg-restart` (`pg_ctl restart -m fast` at the same point).

Each phase is bounded: U users, each doing R runs one after another, then Locust stops by itself (its --run-time
bounds it too). It measures what the users saw (answers, stream cuts and rejoins, failed calls), what the database
holds (every run finished once with one answer, or lost), the API's p50 / p95 while every worker was busy and runs
waited, queue wait, and each worker's peak RSS (evals/load_report.py). Loopback only: serve binds 127.0.0.1 and Locust
runs headless, no web UI.

    nice -n 5 python -m evals.load --users 6 --runs-per-user 3 --workers 3    # offline backend, a SciFact slice
    python -m evals.load --backend scripted --users 4 --runs-per-user 3       # no models: the service's own cost

The offline backend searches a 495-abstract slice of SciFact (the abstracts the first 30 training claims with
evidence cite, and the corpus's first ones), indexed once into --home; the questions are those 30 claims (verify).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evals.load_config import PHASES, LoadConfig, Watch
from evals.load_report import PhaseResult, phase_result, print_report
from tests.service.harness import REPO, Processes, busy_worker, rows, sdk_client, start_serve
from tests.service.throwaway_postgres import Cluster, throwaway_cluster

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
CLAIMS = 30


@dataclass
class Deployment:
    cluster: Cluster
    url: str
    procs: Processes
    base: str
    key: str
    client: Any
    config: LoadConfig
    workers: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    serve_pid: int = 0

    def add_worker(self) -> int:
        process = self.procs.worker("--stalled-after-s", str(self.config.stalled_after_s))
        self.workers[process.pid] = process
        return process.pid

    async def warm(self, count: int) -> None:
        """One run per worker (its model and index load), not counted in any phase."""

        async def one(question: str) -> None:
            thread = (await self.client.threads.create())["thread_id"]
            run = await self.client.runs.create(
                thread,
                "sparkit",
                input={"question": question, "mode": "verify"},
                context=self.config.context,
                metadata={"phase": "warm-up"},
            )
            await self.client.runs.join(thread, run["run_id"])

        await asyncio.gather(*(one(self.config.questions[i % len(self.config.questions)]) for i in range(count)))


def offline_slice(config: LoadConfig) -> LoadConfig:
    """The SciFact slice, its index built once in config.home, its claims as questions, preset fast."""
    config.home.mkdir(parents=True, exist_ok=True)
    claims = [json.loads(line) for line in (config.data / "scifact" / "claims_train.jsonl").open()]
    chosen = [c for c in claims if c["evidence"]][:CLAIMS]
    corpus = config.home / "corpus-load.jsonl"
    if not corpus.exists():
        cited = {int(d) for c in chosen for d in c["cited_doc_ids"]}
        lines: dict[int, str] = {}
        for i, line in enumerate((config.data / "scifact" / "corpus.jsonl").open()):
            doc = int(json.loads(line)["doc_id"])
            if doc in cited or i < 470:
                lines.setdefault(doc, line)
        corpus.write_text("".join(lines.values()))
    env = {**os.environ, "SPARKIT_HOME": str(config.home), "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "agent.cli", "index", "build", str(corpus)], env=env, cwd=REPO, check=True)
    return replace(
        config,
        questions=tuple(c["claim"] for c in chosen),
        context={"preset": "fast", "max_wall_time_s": 900},  # a loaded machine must not cut a run short
    )


async def deploy(cluster: Cluster, config: LoadConfig, logs: Path) -> Deployment:
    url = cluster.create_database("load" + uuid.uuid4().hex[:10])
    procs = Processes(url, config.home / "service-home", logs)
    if config.backend == "offline":
        procs.env.pop("SPARKIT_TEST_SEARCH_DELAY_S")
        procs.env["SPARKIT_HOME"] = str(config.home)
        procs.env["SPARKIT_CORPUS"] = str(config.home / "corpus-load.jsonl")
    key = procs.add_user("load")
    base = start_serve(procs)
    deployment = Deployment(cluster, url, procs, base, key, await sdk_client(procs, key, base), config)
    deployment.serve_pid = procs.started[-1].pid
    for _ in range(config.workers):
        deployment.add_worker()
    await deployment.warm(config.workers)
    return deployment


async def _watch(deployment: Deployment, phase: str, total: int, watch: Watch, stop: asyncio.Event) -> None:
    """Every half second: peak RSS, whether the workers are saturated, and the phase's fault once it is due."""
    tick = 0.5
    since: float | None = None
    while not stop.is_set():
        now = time.time()
        for pid, process in deployment.workers.items():
            if process.poll() is None:
                watch.rss_mb[pid] = max(watch.rss_mb.get(pid, 0.0), _rss_mb(pid))
        try:
            counts = dict(
                await asyncio.to_thread(
                    rows,
                    deployment.url,
                    "SELECT status, count(*) FROM sparkit_runs WHERE metadata->>'phase' = %s GROUP BY status",
                    phase,
                )
            )
        except Exception:  # the database is restarting
            watch.db_unreachable_s += tick
            counts = {}
        live = sum(p.poll() is None for p in deployment.workers.values())
        busy = counts.get("running", 0) >= live and counts.get("pending", 0) >= 1
        if busy and since is None:
            since = now
        elif not busy and since is not None:
            watch.saturated.append((since, now))
            since = None
        if phase != "steady" and not watch.fault and counts.get("running") and counts.get("success", 0) >= total // 4:
            await _inject(deployment, phase, watch)
        await asyncio.sleep(tick)
    if since is not None:
        watch.saturated.append((since, time.time()))


async def _inject(deployment: Deployment, fault: str, watch: Watch) -> None:
    """The fault, once a run is in the middle of its steps (two stored, more to come)."""
    live = [pid for pid, p in deployment.workers.items() if p.poll() is None]
    try:
        pid, run_id = await busy_worker(deployment.url, live, tries=40)
    except AssertionError:
        return  # no run two steps in yet: the next tick looks again
    if fault == "kill":
        os.kill(pid, signal.SIGKILL)
        await asyncio.to_thread(deployment.workers[pid].wait)
        watch.fault = {"kind": "kill", "at": time.time(), "pid": pid, "run_id": run_id}
    elif fault == "pg-restart":
        start = time.time()
        await asyncio.to_thread(deployment.cluster.restart)
        watch.fault = {"kind": "pg-restart", "at": start, "restart_s": round(time.time() - start, 2), "run_id": run_id}


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


async def run_phase(deployment: Deployment, phase: str, out: Path) -> PhaseResult:
    """One bounded Locust load, with its fault; waits for every run it started to end, then measures."""
    config = deployment.config
    plan = {
        "key": deployment.key,
        "runs_per_user": config.runs_per_user,
        "questions": list(config.questions),
        "mode": "verify",
        "context": config.context,
        "metadata": {"phase": phase},
        "poll_s": config.poll_s,
        "runs_out": str(out / f"{phase}-runs.jsonl"),
        "requests_out": str(out / f"{phase}-requests.jsonl"),
    }
    (out / f"{phase}-plan.json").write_text(json.dumps(plan))
    watch, stop = Watch(), asyncio.Event()
    load = (os.getloadavg()[0], time.time())
    serve_cpu = _cpu_s(deployment.serve_pid)
    monitor = asyncio.create_task(_watch(deployment, phase, config.users * config.runs_per_user, watch, stop))
    with (out / f"{phase}-locust.log").open("wb") as log:
        locust = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "locust",
            "-f",
            str(LOCUSTFILE),
            "--headless",
            "--host",
            deployment.base,
            "--users",
            str(config.users),
            "--spawn-rate",
            str(config.users),
            "--run-time",
            f"{config.phase_limit_s}s",
            "--stop-timeout",
            "10",
            "--only-summary",
            env={**os.environ, "SPARKIT_LOAD_PLAN": str(out / f"{phase}-plan.json")},
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            await locust.wait()
        finally:
            if locust.returncode is None:  # interrupted: the users stop with it
                locust.terminate()
                await locust.wait()
            stop.set()
            await monitor
            watch.serve_cpu_s = _cpu_s(deployment.serve_pid) - serve_cpu
    for _ in range(2 * config.phase_limit_s):  # runs a user was stopped on still end, before the next phase: bounded
        pending = rows(
            deployment.url,
            "SELECT count(*) FROM sparkit_runs WHERE metadata->>'phase' = %s AND status IN ('pending', 'running')",
            phase,
        )
        if not pending[0][0]:
            break
        await asyncio.sleep(0.5)
    return phase_result(deployment.url, phase, config, out, watch, load)


async def run_load(cluster: Cluster, config: LoadConfig, out: Path) -> list[PhaseResult]:
    """Deploy serve + workers on a new database of `cluster`, run the phases in order, stop everything."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    deployment = await deploy(cluster, config, logs)
    results: list[PhaseResult] = []
    try:
        for i, phase in enumerate(config.phases):
            results.append(await run_phase(deployment, phase, out))
            if phase == "kill" and i + 1 < len(config.phases):  # the next phase starts with N workers again
                deployment.add_worker()
                await deployment.warm(1)
    finally:
        deployment.procs.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--runs-per-user", type=int, default=3)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    parser.add_argument("--backend", choices=["offline", "scripted"], default="offline")
    parser.add_argument("--phase-limit-s", type=int, default=600, help="Locust's --run-time for each phase")
    parser.add_argument("--poll-s", type=float, default=2.0, help="how often each user polls state, history, run")
    parser.add_argument("--home", type=Path, default=Path("/var/tmp/sparkit-load"), help="the slice and its index")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, help="where the runs, requests and logs go (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON line at the end")
    args = parser.parse_args()
    config = LoadConfig(
        users=args.users,
        runs_per_user=args.runs_per_user,
        workers=args.workers,
        phases=tuple(args.phases),
        backend=args.backend,
        phase_limit_s=args.phase_limit_s,
        poll_s=args.poll_s,
        home=args.home,
        data=args.data,
    )
    if config.backend == "offline":
        config = offline_slice(config)
    else:
        from tests.service.scripted import QUESTIONS, SETTINGS

        config = replace(config, questions=tuple(QUESTIONS), context=dict(SETTINGS))
    out = args.out or Path(tempfile.mkdtemp(prefix="sparkit-load-"))
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with throwaway_cluster() as cluster:
        results = asyncio.run(run_load(cluster, config, out))
    print_report(results, config, time.time() - started, out)
    if args.json:
        print(json.dumps([r.summary() for r in results]))
    sys.exit(0 if all(r.lost == 0 and r.duplicate_answers == 0 for r in results) else 1)


if __name__ == "__main__":
    main()
