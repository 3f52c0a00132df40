"""Runs an eval's questions one after another, on N processes of this machine (--workers N) or on Ray actors
(--ray ADDRESS|local), and appends each question's answer to the --answers file as it finishes.

Every worker (the eval's own process, a pool process or a Ray actor) builds the backend once, on its first question
(agent.backend caches it), and takes questions from one shared list until none is left. Each answers line is the
Answer's JSON with a "sweep" key: the question's index and id, its seconds, and the settings of the sweep that wrote
it. A rerun of the same command therefore resumes: it reads the file, redoes only the questions missing from it (or
whose run failed, status ERROR), and refuses (one line) a file that another command or another commit wrote. A
question whose run raises (its input refused, a --timeout, any exception) does not end the sweep: it is recorded as its
ERROR answer, and the eval scores the rest and counts it (evals/failures.py: the table's rows and the exit code).
Scoring always reads the answers back from their JSON lines, ordered by question index, so a sequential run, a
parallel one and a resumed one print the same table (except the timing rows, which no two runs share); the
finished file is rewritten in question order.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from agent.config import Context
from agent.errors import InputError
from agent.records import Answer, Status
from benchmarks.cli import REPO, commit
from evals.failures import failed_answer

Item = TypeVar("Item")
Ask = Callable[[Context, Item], Awaitable[Answer]]
Clock = Callable[[], float]
LOCAL = "local"
CONNECT_TIMEOUT_S = 5.0


class SweepLine(BaseModel):
    """The "sweep" key of an answers line: which question it answers and the settings of the sweep that wrote it."""

    index: int
    id: str
    seconds: float
    settings: dict[str, Any]


@dataclass(frozen=True)
class Answered:
    """One question's answer as scoring reads it (back from its JSON line)."""

    index: int
    id: str
    seconds: float
    answer: Answer


@dataclass(frozen=True)
class Job(Generic[Item]):
    index: int
    id: str
    item: Item


@dataclass(frozen=True)
class Sweep(Generic[Item]):
    """What to answer (items and their ids, in the eval's order), how (`ask` over `context`), where (`workers`
    processes, or Ray actors at `ray`), and the file the answers go to; `settings` fingerprint the sweep."""

    ask: Ask[Item]
    context: Context
    items: Sequence[Item]
    ids: Sequence[str]
    settings: dict[str, Any]
    answers: Path | None = None
    workers: int | None = None
    ray: str | None = None
    clock: Clock = field(default=time.perf_counter)
    timeout: float | None = None


def code_version() -> str:
    """The commit, and with uncommitted changes a digest of them: answers of other code are not resumed."""
    version = commit()
    if version.endswith("+dirty"):
        diff = subprocess.run(["git", "diff", "HEAD"], cwd=REPO, capture_output=True, check=False).stdout
        version += ":" + hashlib.sha256(diff).hexdigest()[:12]
    return version


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--answers",
        type=Path,
        metavar="FILE",
        help="append each question's Answer as one JSON line as it finishes; "
        "the same command run again resumes from it",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="answer on N processes of this machine, each building the backend once; "
        "with --ray, N actors (default: one per CPU of the cluster)",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS|local",
        help="answer on Ray actors: 'local' starts Ray on this machine, "
        "else the address of a running cluster (`ray start --head` prints it)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="a question still running after SECONDS is recorded as failed (TimeoutError) and the sweep goes on",
    )


def sweep_or_exit(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    ask: Ask[Item],
    context: Context,
    items: Sequence[Item],
    ids: Sequence[str],
    settings: dict[str, Any],
) -> list[Answered]:
    """`run` with the eval's --answers / --workers / --ray; bad input ends the eval with one line and exit 2."""
    sweep = Sweep(
        ask=ask,
        context=context,
        items=items,
        ids=ids,
        settings=settings,
        answers=args.answers,
        workers=args.workers,
        ray=args.ray,
        timeout=getattr(args, "timeout", None),
    )
    try:
        return run(sweep)
    except InputError as exc:
        _exit(parser, str(exc))


def _exit(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.exit(2, f"{parser.prog}: {message}\n")


def run(sweep: Sweep[Any]) -> list[Answered]:
    """Every question's answer in question order: those already in the answers file, then the rest as they finish."""
    if sweep.workers is not None and sweep.workers < 1:
        raise InputError(f"--workers must be at least 1 (got {sweep.workers})")
    if sweep.timeout is not None and not sweep.timeout > 0:
        raise InputError(f"--timeout must be more than 0 seconds (got {sweep.timeout})")
    if len(set(sweep.ids)) != len(sweep.ids) or len(sweep.ids) != len(sweep.items):
        raise InputError("every question of a sweep needs its own id")
    settings = json.loads(json.dumps(sweep.settings, sort_keys=True, default=str))  # as the file stores them
    lines = read_finished(sweep.answers, settings, sweep.ids) if sweep.answers else {}
    if lines:
        print(f"resuming {sweep.answers}: {len(lines)} of {len(sweep.ids)} questions already answered", file=sys.stderr)
    jobs = [Job(i, sweep.ids[i], sweep.items[i]) for i in range(len(sweep.items)) if i not in lines]
    worker = QuestionWorker(sweep.ask, sweep.context, settings, sweep.clock, sweep.timeout)
    with _appender(sweep.answers) as sink:

        def finished(line: str) -> None:
            lines[SweepLine.model_validate(json.loads(line)["sweep"]).index] = line
            sink(line)

        if jobs and sweep.ray is not None:
            _on_ray(sweep.ray, sweep.workers, worker, jobs, finished)
        elif jobs and (sweep.workers or 1) > 1:
            _on_processes(min(sweep.workers or 1, len(jobs)), worker, jobs, finished)
        elif jobs:
            asyncio.run(_one_by_one(worker, jobs, finished))
    ordered = [lines[i] for i in sorted(lines)]
    if sweep.answers is not None:
        _replace(sweep.answers, ordered)
    return [_answered(line) for line in ordered]


def read_finished(path: Path, settings: dict[str, Any], ids: Sequence[str]) -> dict[int, str]:
    """The lines of `path` by question index; a file another sweep wrote is an InputError saying why. An unfinished
    last line (the process was killed while writing it) is dropped from the file, and a run that failed (status
    ERROR) is left out, so their questions are answered again."""
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--answers {path}: {getattr(exc, 'strerror', None) or exc}") from None
    whole = text[: text.rfind("\n") + 1]  # without an unfinished last line
    lines: dict[int, str] = {}
    failed = 0
    for number, line in enumerate(whole.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            data = json.loads(line)
            meta = SweepLine.model_validate(data["sweep"])
        except json.JSONDecodeError as exc:
            raise InputError(f"{where} is not JSON ({exc.msg}): give another --answers file") from None
        except (KeyError, TypeError, ValidationError):
            raise InputError(
                f"{where} is not a sweep's answer (no question index): give another --answers file"
            ) from None
        if meta.settings != settings:
            raise InputError(
                f"{where} was written by another sweep ({_difference(meta.settings, settings)}): "
                "give another --answers file to start afresh"
            )
        if not 0 <= meta.index < len(ids) or ids[meta.index] != meta.id:
            raise InputError(
                f"{where} answers question {meta.id!r} at index {meta.index}, which this sweep does not "
                "ask there (another --limit or data file?): give another --answers file"
            )
        if meta.index in lines:
            raise InputError(f"{where} answers question {meta.id!r} a second time: give another --answers file")
        if data.get("status") == Status.ERROR.value:
            failed += 1  # the run failed (a locked database, a network fault): asked again, its line replaced
            continue
        lines[meta.index] = line
    if failed:
        print(f"{path}: {failed} questions whose runs failed (status ERROR) are answered again", file=sys.stderr)
    if whole != text:  # only now that the file is known to be this sweep's
        with path.open("r+", encoding="utf-8") as handle:
            handle.truncate(len(whole.encode("utf-8")))
        print(f"{path}: dropped an unfinished last line (its question is answered again)", file=sys.stderr)
    return lines


def _difference(stored: dict[str, Any], current: dict[str, Any]) -> str:
    key = next(k for k in sorted(set(stored) | set(current)) if stored.get(k) != current.get(k))
    return f"{key}: {_short(stored.get(key))} there, {_short(current.get(key))} here"


def _short(value: Any) -> str:
    shown = json.dumps(value, sort_keys=True)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _answered(line: str) -> Answered:
    data = json.loads(line)
    meta = SweepLine.model_validate(data.pop("sweep"))
    return Answered(index=meta.index, id=meta.id, seconds=meta.seconds, answer=Answer.model_validate(data))


@contextmanager
def _appender(path: Path | None) -> Iterator[Callable[[str], None]]:
    """Appends each finished line to the answers file and flushes it, so a killed sweep keeps what it finished."""
    if path is None:
        yield lambda line: None
        return
    try:
        handle = path.open("a", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--answers {path}: {exc.strerror or exc}") from None
    with handle:

        def write(line: str) -> None:
            handle.write(line + "\n")
            handle.flush()

        yield write


def _replace(path: Path, lines: Iterable[str]) -> None:
    """Write the finished file in question order (a temporary file renamed into place)."""
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        shutil.copymode(path, tmp)  # the file's own permissions, not mkstemp's owner-only ones
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


class QuestionWorker:
    """Answers one question at a time on its own event loop; as a pool process or a Ray actor it lives for the whole
    sweep, so the backend it builds on its first question serves the rest."""

    def __init__(
        self, ask: Ask[Any], context: Context, settings: dict[str, Any], clock: Clock, timeout: float | None = None
    ) -> None:
        self.ask, self.context, self.settings, self.clock, self.timeout = ask, context, settings, clock, timeout
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aanswer(self, job: Job[Any]) -> str:
        """The question's answers line; a run that raised (or ran past the timeout) gives its ERROR answer."""
        started = self.clock()
        try:
            answer = await asyncio.wait_for(self.ask(self.context, job.item), self.timeout)
        except Exception as exc:  # one bad item must not end the sweep: it is recorded, and retried on a rerun
            answer = failed_answer(job.id, exc)
        meta = SweepLine(index=job.index, id=job.id, seconds=self.clock() - started, settings=self.settings)
        return json.dumps({**answer.model_dump(mode="json"), "sweep": meta.model_dump(mode="json")})

    def answer(self, job: Job[Any]) -> str:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(self.aanswer(job))


async def _one_by_one(worker: QuestionWorker, jobs: Sequence[Job[Any]], finished: Callable[[str], None]) -> None:
    for job in jobs:
        finished(await worker.aanswer(job))


_process_worker: QuestionWorker | None = None


def _start_process(worker: QuestionWorker) -> None:
    global _process_worker
    _process_worker = worker


def _answer_in_process(job: Job[Any]) -> str:
    assert _process_worker is not None, "the pool's initializer sets the worker"
    return _process_worker.answer(job)


def _on_processes(
    workers: int, worker: QuestionWorker, jobs: Sequence[Job[Any]], finished: Callable[[str], None]
) -> None:
    """A pool of fresh (spawned, not forked: the parent may hold torch's threads) processes sharing the job list."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_process, initargs=(worker,)) as pool:
        futures = [pool.submit(_answer_in_process, job) for job in jobs]
        try:
            for future in as_completed(futures):
                finished(future.result())
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _on_ray(
    address: str, actors: int | None, worker: QuestionWorker, jobs: Sequence[Job[Any]], finished: Callable[[str], None]
) -> None:
    """Ray actors (one CPU each) built once, fed from one list by Ray's ActorPool as each becomes free."""
    if address != LOCAL:
        _check_reachable(address)
    try:
        import ray
        from ray.util import ActorPool
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'sparkit[ray]'") from None
    started = _connect(ray, address)
    try:
        count = actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        # an async actor (aanswer) runs on Ray's event loop in the actor; one question at a time
        actor_class = ray.remote(QuestionWorker).options(num_cpus=1, max_concurrency=1)
        pool = ActorPool(
            [
                actor_class.remote(worker.ask, worker.context, worker.settings, worker.clock, worker.timeout)
                for _ in range(min(count, len(jobs)))
            ]
        )
        for line in pool.map_unordered(lambda actor, job: actor.aanswer.remote(job), list(jobs)):
            finished(line)
    finally:
        if started:
            ray.shutdown()


def _connect(ray: Any, address: str) -> bool:
    """Join the Ray cluster at `address` ('local': start one on this machine) unless this process already has;
    whether this call started the connection (and so closes it). An unreachable address is an InputError."""
    if ray.is_initialized():
        return False
    if address == LOCAL:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(_code_paths())}},
        )
        return True
    try:
        # the cluster runs this checkout's code: Ray ships it (without .git) to every node
        ray.init(address=address, runtime_env={"working_dir": str(REPO), "excludes": [".git", ".venv", "__pycache__"]})
    except (ConnectionError, RuntimeError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"--ray {address}: cannot join the Ray cluster ({reason})") from None
    return True


def _code_paths() -> list[str]:
    """The checkout first, then this process's own PYTHONPATH: what a local actor imports the eval's code from."""
    return [str(REPO), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]


def _check_reachable(address: str) -> None:
    """A HOST:PORT address must accept a connection within a few seconds (Ray itself would retry for a minute)."""
    if "://" in address or address == "auto":
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise InputError(f"--ray takes 'local' or a cluster's HOST:PORT (got {address!r})")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise InputError(
            f"--ray {address}: no Ray cluster answers there ({exc.strerror or exc}); start one with `ray start --head`"
        ) from None
