"""Runs per minute through the team server: `sparkit serve` and N `sparkit worker` processes on a throwaway PostgreSQL
(the harness of tests/service), runs queued at once after one warm-up run per worker (model and index load, not
counted), wall time from the first submit to the last answer.

    python -m evals.service_throughput --workers 1 3 --runs 6                       # offline backend, preset fast
    python -m evals.service_throughput --workers 1 3 --runs 12 --backend scripted   # the service's own overhead

The offline backend uses $SPARKIT_HOME's index (copy a built one there first); runs get a 900 s wall-time budget so
that a loaded machine does not cut them (the fast preset's is 60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path

from tests.service.harness import Processes
from tests.service.harness import sdk_client as _client
from tests.service.throwaway_postgres import Cluster, throwaway_cluster

QUESTIONS = [
    "Does hypoglycemia increase the risk of dementia?",
    "Does metformin reduce cancer incidence?",
    "Does aspirin reduce the risk of colorectal cancer?",
    "Does vitamin D supplementation reduce fracture risk?",
    "Does smoking increase the risk of lung cancer?",
    "Does exercise improve insulin sensitivity?",
    "Do statins lower LDL cholesterol?",
    "Does obesity increase the risk of type 2 diabetes?",
    "Does sleep deprivation impair memory?",
    "Does breastfeeding reduce the risk of childhood obesity?",
    "Does alcohol consumption increase the risk of breast cancer?",
    "Does air pollution increase the risk of asthma?",
]


async def measure(cluster: Cluster, workers: int, runs: int, scripted: bool, home: Path) -> None:
    url = cluster.create_database(f"throughput{workers}_{int(time.time())}")
    logs = Path(tempfile.mkdtemp(prefix="sparkit-throughput-"))
    procs = Processes(url, home, logs)
    procs.env.pop("SPARKIT_TEST_SEARCH_DELAY_S")
    context = (
        {"backend": "service-scripted", "max_claims": 0} if scripted else {"preset": "fast", "max_wall_time_s": 900}
    )
    questions = QUESTIONS[:runs]
    try:
        key = procs.add_user("measure")
        for _ in range(workers):
            procs.sparkit("worker", "--import", "tests.service.scripted")
        client = await _client(procs, key)

        async def submit(question: str) -> tuple[str, str]:
            thread = (await client.threads.create())["thread_id"]
            run = await client.runs.create(thread, "sparkit", input={"question": question}, context=context)
            return thread, run["run_id"]

        warm = [await submit(QUESTIONS[i % len(QUESTIONS)]) for i in range(workers)]
        await asyncio.gather(*(client.runs.join(t, r) for t, r in warm))
        start = time.monotonic()
        submitted = [await submit(q) for q in questions]
        outputs = await asyncio.gather(*(client.runs.join(t, r) for t, r in submitted))
        elapsed = time.monotonic() - start
        statuses = [o.get("answer", {}).get("status", "ERROR") for o in outputs]
        print(
            f"workers={workers} runs={len(questions)} elapsed={elapsed:.1f} s",
            f"runs/min={len(questions) * 60 / elapsed:.1f} statuses={statuses}",
            flush=True,
        )
    finally:
        procs.stop()
        shutil.rmtree(logs, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--runs", type=int, default=6, help=f"runs to time (at most {len(QUESTIONS)})")
    parser.add_argument("--backend", choices=["offline", "scripted"], default="offline")
    args = parser.parse_args()
    home = Path(os.environ.get("SPARKIT_HOME") or Path.home() / ".sparkit")
    with throwaway_cluster() as cluster:
        for workers in args.workers:
            asyncio.run(measure(cluster, workers, min(args.runs, len(QUESTIONS)), args.backend == "scripted", home))


if __name__ == "__main__":
    main()
