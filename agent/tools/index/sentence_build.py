"""Building the reranker's sentence store: one build per corpus on a machine, and none for a home that is gone.

Encoding SciFact's ~51,000 titles and sentences takes 10-20 minutes on 2 cores, and `sparkit ask` starts it after an
answer (agent/tools/index/background_store.py). Builds started by answers in throwaway homes used to run on, each
encoding the same sentences, long after their homes were deleted. So a build here:

- holds a machine-wide lock named by the corpus's sha256 in the system's temporary folder (`fcntl.flock`, which the
  kernel releases when the process ends, however it ends) while it encodes: a second build of the same corpus, from
  any home, waits on it and then copies the first's store when it is still on disk (the lock file records where the
  first wrote it, and the copy is checked against this index's sentences), else builds its own;
- checks between chunks of sentences, and while it waits, that its SPARKIT_HOME and index folder still exist, and
  stops (`StoreBuildStopped`) writing nothing when either is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent.errors import SparkitError
from agent.tools.index.offline_rerank import SentenceStore

if TYPE_CHECKING:
    from agent.tools.index.local_index import LocalIndex

POLL_S = 5.0  # how often a waiting build checks its home and tries the lock again
Outcome = Literal["current", "copied", "built"]


class StoreBuildStopped(SparkitError):
    """The build's SPARKIT_HOME or index folder was removed while it ran: it stopped and wrote nothing."""


def lock_file(corpus_sha256: str) -> Path:
    """The machine-wide lock of the sentence store builds of a corpus of this digest."""
    return Path(tempfile.gettempdir()) / f"sparkit-sentence-store-{corpus_sha256[:16]}.lock"


def _gone(home: Path, index_dir: Path) -> str | None:
    """Which of the build's folders is gone, or None while both exist."""
    for name, folder in (("SPARKIT_HOME", home), ("index folder", index_dir)):
        if not folder.is_dir():
            return f"its {name} {folder} is gone"
    return None


def _stop_if_gone(home: Path, index_dir: Path) -> None:
    why = _gone(home, index_dir)
    if why:
        raise StoreBuildStopped(f"stopped the sentence store build: {why}; nothing was written")


@contextlib.contextmanager
def _machine_lock(path: Path, home: Path, index_dir: Path, poll_s: float) -> Iterator[int]:
    """Hold the lock file, waiting (and checking the folders every `poll_s`) while another process holds it."""
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        said = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not said:
                    print(
                        f"another build of this corpus's sentence store runs on this machine ({path}); waiting for it",
                        file=sys.stderr,
                        flush=True,
                    )
                    said = True
                _stop_if_gone(home, index_dir)
                time.sleep(poll_s)
        try:
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def _recorded(handle: int) -> Path | None:
    """The store the last build under this lock wrote, as the lock file records it."""
    os.lseek(handle, 0, os.SEEK_SET)
    text = os.read(handle, 4096).decode("utf-8", errors="replace").strip()
    return Path(text) if text else None


def _record(handle: int, store: Path) -> None:
    os.ftruncate(handle, 0)
    os.lseek(handle, 0, os.SEEK_SET)
    os.write(handle, str(store).encode("utf-8"))


def _copy_in(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=".sentences-", suffix=".npz", dir=target.parent)
    os.close(handle)
    try:
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_sentence_store(
    index: LocalIndex,
    index_dir: Path,
    home: Path,
    *,
    force: bool = False,
    on_progress: Callable[[int], None] | None = None,
    poll_s: float = POLL_S,
) -> Outcome:
    """Make the sentence store of `index` (saved in `index_dir`, under `home`): 'current' when it is there already,
    'copied' from another home's build of the same sentences, else 'built'; `on_progress(n)` after each chunk of n
    sentences. Raises StoreBuildStopped when `home` or `index_dir` goes while it waits or encodes."""
    target = SentenceStore.path_for(index, home)
    digest = index.manifest.get("corpus_sha256")
    if target is None or not digest:
        raise StoreBuildStopped("stopped the sentence store build: its index names no corpus digest")
    _stop_if_gone(home, index_dir)
    with _machine_lock(lock_file(str(digest)), home, index_dir, poll_s) as handle:
        _stop_if_gone(home, index_dir)
        if not force and SentenceStore.load(index, target) is not None:
            return "current"
        earlier = _recorded(handle)
        if not force and earlier and earlier != target and SentenceStore.load(index, earlier) is not None:
            _copy_in(earlier, target)
            return "copied"

        def chunk_done(n: int) -> None:
            _stop_if_gone(home, index_dir)
            if on_progress is not None:
                on_progress(n)

        SentenceStore.build(index, target, on_progress=chunk_done)
        _record(handle, target)
        return "built"
