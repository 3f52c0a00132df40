"""The sentence store's build does not outlive its home (issue 51, item 2): it stops between chunks when its
SPARKIT_HOME or index folder is removed, and one build per corpus encodes at a time on a machine (a lock in the system
temporary folder); a second waits, then copies the first's store, or builds its own when that store is gone."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import tempfile
import threading
import time

import numpy as np
import pytest

from agent.literature import Record
from agent.tools.index import offline_rerank
from agent.tools.index.local_index import LocalIndex
from agent.tools.index.offline_rerank import SentenceStore
from agent.tools.index.sentence_build import StoreBuildStopped, build_sentence_store, lock_file
from agent.tools.models.encoder import DIM


class ChunkedEncoder:
    """Encodes in chunks of 10 texts, calling `on_progress` after each as MiniLM does; `during(chunk)` runs first."""

    def __init__(self, during=None):
        self.chunks = 0
        self.during = during

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        vectors = np.ones((len(texts), DIM), dtype=np.float32) / np.sqrt(DIM)
        for _ in range(0, len(texts), 10):
            self.chunks += 1
            if self.during is not None:
                self.during(self.chunks)
            if on_progress is not None:
                on_progress(10)
        return vectors


def _index(digest: str = "cd" * 32) -> LocalIndex:
    records = [
        Record(id=str(i), source="local", title=f"Study {i}", abstract=f"Cells grow {i}. Mice live {i}. Rats eat {i}.")
        for i in range(20)
    ]
    index = LocalIndex.__new__(LocalIndex)  # only what the store reads: the records and the manifest
    index.records, index.manifest = records, {"corpus_sha256": digest}
    return index


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """Two homes, each with an index folder, and the system temporary folder (the lock's) under tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    found = []
    for name in ("one", "two"):
        home = tmp_path / name
        (home / "index" / "corpus").mkdir(parents=True)
        found.append((home, home / "index" / "corpus"))
    return found


def test_the_lock_is_machine_wide_and_named_by_the_corpus(homes, tmp_path):
    assert lock_file("ab" * 32) == tmp_path / "tmp" / f"sparkit-sentence-store-{'ab' * 8}.lock"
    assert lock_file("ab" * 32) != lock_file("cd" * 32)


def test_a_build_stops_between_chunks_when_its_home_is_removed(homes, monkeypatch):
    (home, index_dir), _ = homes
    index = _index()
    encoder = ChunkedEncoder(during=lambda chunk: chunk == 2 and shutil.rmtree(home))
    monkeypatch.setattr(offline_rerank, "shared_encoder", lambda: encoder)
    with pytest.raises(StoreBuildStopped, match=r"SPARKIT_HOME .* is gone; nothing was written"):
        build_sentence_store(index, index_dir, home)
    assert encoder.chunks == 2 < SentenceStore.size_of(index) / 10  # stopped after the chunk that saw it go
    assert not home.exists()  # not recreated by the store's write


def test_a_build_stops_when_its_index_folder_is_removed(homes, monkeypatch):
    (home, index_dir), _ = homes
    encoder = ChunkedEncoder(during=lambda chunk: chunk == 3 and shutil.rmtree(index_dir))
    monkeypatch.setattr(offline_rerank, "shared_encoder", lambda: encoder)
    with pytest.raises(StoreBuildStopped, match="index folder"):
        build_sentence_store(_index(), index_dir, home)
    assert encoder.chunks == 3
    assert not SentenceStore.path_of("cd" * 32, home).exists()


def test_a_second_build_of_the_corpus_waits_for_the_first_then_copies_its_store(homes, monkeypatch):
    (home1, index1), (home2, index2) = homes
    release, started = threading.Event(), threading.Event()

    def first_holds(chunk):
        started.set()
        assert release.wait(30)

    first_encoder, second_encoder = ChunkedEncoder(during=first_holds), ChunkedEncoder()
    monkeypatch.setattr(
        offline_rerank,
        "shared_encoder",
        lambda: second_encoder if threading.current_thread().name == "second" else first_encoder,
    )
    outcomes: dict[str, str] = {}
    first = threading.Thread(target=lambda: outcomes.update(first=build_sentence_store(_index(), index1, home1)))
    first.start()
    assert started.wait(30)
    second = threading.Thread(
        target=lambda: outcomes.update(second=build_sentence_store(_index(), index2, home2, poll_s=0.01)),
        name="second",
    )
    second.start()
    second.join(0.5)
    assert second.is_alive() and second_encoder.chunks == 0  # waiting on the lock, encoding nothing
    release.set()
    first.join(30)
    second.join(30)
    assert outcomes == {"first": "built", "second": "copied"}
    assert second_encoder.chunks == 0
    copied = SentenceStore.path_of("cd" * 32, home2)
    assert copied.read_bytes() == SentenceStore.path_of("cd" * 32, home1).read_bytes()
    assert build_sentence_store(_index(), index2, home2) == "current"


def test_a_waiting_build_stops_when_its_home_goes_and_builds_its_own_when_the_first_store_is_gone(homes, monkeypatch):
    (home1, index1), (home2, index2) = homes
    monkeypatch.setattr(offline_rerank, "shared_encoder", ChunkedEncoder)
    errors: list[BaseException] = []

    def wait_then_fail() -> None:
        try:
            build_sentence_store(_index(), index2, home2, poll_s=0.01)
        except StoreBuildStopped as exc:
            errors.append(exc)

    with open(lock_file("cd" * 32), "w") as held:  # another process's build, as the kernel sees it
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = threading.Thread(target=wait_then_fail)
        waiting.start()
        waiting.join(0.2)
        assert waiting.is_alive()
        shutil.rmtree(home2)
        waiting.join(30)
        assert not waiting.is_alive() and len(errors) == 1
        fcntl.flock(held, fcntl.LOCK_UN)
    assert build_sentence_store(_index(), index1, home1) == "built"
    shutil.rmtree(home1)  # the first's store is gone with its home
    (home2 / "index" / "corpus").mkdir(parents=True)
    assert build_sentence_store(_index(), index2, home2) == "built"


def test_background_never_builds_an_index_in_a_home_that_is_gone(tmp_path, monkeypatch, capsys):
    from agent.cli import main

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"doc_id": 1, "title": "t", "abstract": ["a."]}) + "\n", encoding="utf-8")
    home = tmp_path / "deleted-home"
    monkeypatch.setenv("SPARKIT_HOME", str(home))
    monkeypatch.setenv("SPARKIT_PROGRESS", "1")  # `-q` sets it to 0 in this process; restored after the test
    code = main(["index", "build", str(corpus), "--index-dir", str(home / "index" / "x"), "--background", "-q"])
    assert code == 1 and "stopped the sentence store build: no index at" in capsys.readouterr().err
    assert not home.exists()


@pytest.mark.slow
def test_a_background_build_started_by_an_answer_ends_when_its_home_is_deleted(tmp_path, monkeypatch):
    """The real detached process (agent/tools/index/background_store.py) of a real index, its home deleted at once."""
    from agent.tools.index.background_store import start_sentence_store

    home = tmp_path / "home"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"doc_id": i, "title": f"Study {i}", "abstract": [f"Sentence {j} of {i}." for j in range(8)]})
            + "\n"
            for i in range(60)
        ),
        encoding="utf-8",
    )
    LocalIndex.build(corpus, home / "index" / "corpus", progress=False)
    monkeypatch.setenv("SPARKIT_BACKGROUND_SENTENCES", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the child's lock folder too
    line = start_sentence_store(corpus, home / "index" / "corpus", home)
    assert line is not None
    pid = int(line.split("(pid ")[1].split(",")[0])
    shutil.rmtree(home)
    deadline = time.monotonic() + 600  # a bound on a hang, not a speed check
    while time.monotonic() < deadline:
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            break
        time.sleep(0.5)
    else:
        os.kill(pid, signal.SIGTERM)
        pytest.fail("the background build outlived its home")
    assert os.waitstatus_to_exitcode(status) == 1
    assert not home.exists()


def test_index_build_sentences_builds_the_store_once(tmp_path, monkeypatch, capsys):
    from agent.cli import main
    from agent.tools.index import local_index

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("SPARKIT_PROGRESS", "1")  # `-q` sets it to 0 in this process; restored after the test
    monkeypatch.setattr(offline_rerank, "shared_encoder", ChunkedEncoder)
    monkeypatch.setattr(local_index, "shared_encoder", lambda: FlatEncoder())
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"doc_id": i, "title": f"cells {i}", "abstract": [f"mice {i}.", f"rats {i}."]}) + "\n"
            for i in range(5)
        ),
        encoding="utf-8",
    )
    assert main(["index", "build", str(corpus), "--sentences", "-q"]) == 0
    assert "sentence store built in" in capsys.readouterr().out
    assert main(["index", "build", str(corpus), "--sentences", "-q"]) == 0
    assert "sentence store up to date: nothing to do" in capsys.readouterr().out


class FlatEncoder(ChunkedEncoder):
    def prime(self, texts, vectors):
        pass
