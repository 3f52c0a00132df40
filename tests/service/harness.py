"""The processes of a team-server test: `sparkit serve` and `sparkit worker` (the scripted backend of
tests/service/scripted.py) as subprocesses over the test's throwaway database, and a langgraph-sdk client of the
server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Container
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VOLATILE = {"run_id", "usage"}  # the run's id (the thread's) and its timings differ between any two runs


def fingerprint(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what differs between any two runs of one question."""
    return {k: v for k, v in answer.items() if k not in VOLATILE}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Processes:
    """The server and workers this test started, their stderr kept in files; each stopped by its own pid."""

    def __init__(self, url: str, home: Path, logs: Path):
        self.env = {
            **os.environ,
            "SPARKIT_DATABASE_URL": url,
            "SPARKIT_HOME": str(home),
            "PYTHONPATH": str(REPO),
            "SPARKIT_TEST_SEARCH_DELAY_S": "0.2",
        }
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def sparkit(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{args[0]}-{len(self.started)}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", *args], env=self.env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
        )
        self.started.append(process)
        return process

    def worker(self, *extra: str) -> subprocess.Popen[bytes]:
        return self.sparkit(
            "worker",
            "--import",
            "tests.service.scripted",
            "--heartbeat-s",
            "1",
            "--stalled-after-s",
            "4",
            "--poll-s",
            "0.5",
            *extra,
        )

    def add_user(self, name: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agent.cli", "users", "add", name],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def logged(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.logs.glob("*.log")))

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_serve(processes: Processes) -> str:
    """`sparkit serve` on a free loopback port; its URL (it is ready once it answers)."""
    port = _free_port()
    processes.sparkit("serve", "--port", str(port))
    return f"http://127.0.0.1:{port}"


async def sdk_client(processes: Processes, key: str, url: str | None = None) -> Any:
    """A langgraph-sdk client of the server at `url` (else of a new `sparkit serve`), once the server answers."""
    from langgraph_sdk import get_client

    client = get_client(url=url or start_serve(processes), api_key=key)
    for _ in range(240):
        with contextlib.suppress(Exception):
            await client.assistants.search()
            return client
        await asyncio.sleep(0.5)
    raise AssertionError("sparkit serve did not start:\n" + processes.logged()[-3000:])


WAIT_S = float(os.environ.get("SPARKIT_TEST_WAIT_S") or 600)


async def wait_run(client: Any, thread: str, **kwargs: Any) -> Any:
    """`runs.wait` on the sparkit assistant, bounded (SPARKIT_TEST_WAIT_S)."""
    return await asyncio.wait_for(client.runs.wait(thread, "sparkit", **kwargs), timeout=WAIT_S)


def rows(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    """The rows of one query on the service database, on a connection of its own."""
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


async def busy_worker(url: str, pids: Container[int], *, tries: int = 1200) -> tuple[int, str]:
    """A worker pid among `pids` and the run it is in the middle of (two node updates stored, more to come)."""
    for _ in range(tries):
        found = rows(
            url,
            "SELECT r.worker, r.run_id FROM sparkit_runs r WHERE r.status = 'running' AND"
            " (SELECT count(*) FROM sparkit_run_events e WHERE e.run_id = r.run_id AND e.mode = 'updates') >= 2",
        )
        for worker, run_id in found:
            pid = int(str(worker).rsplit(":", 1)[1])
            if pid in pids:
                return pid, run_id
        await asyncio.sleep(0.05)
    raise AssertionError("no run was seen in progress")
