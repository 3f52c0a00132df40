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
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


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


async def sdk_client(processes: Processes, key: str) -> Any:
    from langgraph_sdk import get_client

    port = _free_port()
    processes.sparkit("serve", "--port", str(port))
    client = get_client(url=f"http://127.0.0.1:{port}", api_key=key)
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
