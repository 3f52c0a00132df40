"""The reranker's sentence store, built after the first answer instead of before it (issue 46, item 5).

Encoding SciFact's ~51,000 titles and sentences takes 10-20 minutes on 2 cores: too long to make a first question wait
for (the reranker works without the store, a little less well: BEIR-SciFact nDCG@10 0.738 against 0.753). So once
`sparkit ask` has printed its answer, it starts `sparkit index build --background` on the same corpus and index in a
detached process at the lowest CPU priority, logging to $SPARKIT_HOME/logs/sentence-store.log; later runs load the
store once it is there. At most one such build is started per store (a pid file beside it) and one encodes per corpus
on the machine (agent/tools/index/sentence_build.py: a second waits, then copies the first's store); it never builds the
index itself and stops when SPARKIT_HOME or the index folder is removed. SPARKIT_BACKGROUND_SENTENCES=0 turns this
off.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent.config import sparkit_home

ENV = "SPARKIT_BACKGROUND_SENTENCES"


def _alive(pid_file: Path) -> bool:
    """Whether the process a pid file names still runs."""
    try:
        pid = int(pid_file.read_text(encoding="utf-8").strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def _lowest_priority() -> None:  # runs in the child before exec
    os.nice(19)


def start_sentence_store(corpus: Path, index_dir: Path, home: Path | None = None) -> str | None:
    """Start building the store of the index of `corpus` in `index_dir` in the background, unless it is off, the
    index is absent, the store exists or a build of it runs; the line to print when started, else None."""
    from agent.tools.index.index_refresh import read_manifest
    from agent.tools.index.offline_rerank import SentenceStore

    if os.environ.get(ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    home = home or sparkit_home()
    digest = (read_manifest(index_dir) or {}).get("corpus_sha256")
    if not digest:
        return None
    store = SentenceStore.path_of(str(digest), home)
    pid_file = store.with_name(store.name + ".pid")
    if store.exists() or _alive(pid_file):
        return None
    log = home / "logs" / "sentence-store.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    store.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "agent.cli", "index", "build", str(corpus), "--index-dir", str(index_dir)]
    with log.open("ab") as out:
        process = subprocess.Popen(
            [*command, "--background", "-q"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives this command, and Ctrl-C in the terminal
            preexec_fn=_lowest_priority,
            env={**os.environ, "SPARKIT_HOME": str(home)},
        )
    pid_file.write_text(str(process.pid), encoding="utf-8")
    return (
        f"building the reranker's sentence store in the background (pid {process.pid}, lowest priority; log {log}); "
        "later runs rerank with it"
    )
