"""The reranker's sentence store is built after the first answer, in a detached low-priority process, not before it
(issue 46, item 5): started once per store, never when the store exists, a build of it runs, or it is turned off."""

from __future__ import annotations

import json
import os
from typing import ClassVar

import pytest

from agent.config import sparkit_home


class FakePopen:
    started: ClassVar[list[list[str]]] = []

    def __init__(self, command, **options):
        self.pid = os.getpid()  # a live pid: the pid file then reads as a build under way
        self.options = options
        FakePopen.started.append(command)


@pytest.fixture
def index_dir(tmp_path, monkeypatch):
    from agent.tools.index import background_store

    FakePopen.started = []
    monkeypatch.setattr(background_store.subprocess, "Popen", FakePopen)
    monkeypatch.setenv("SPARKIT_BACKGROUND_SENTENCES", "1")
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"corpus_sha256": "ab" * 32, "documents": 3}))
    return folder


def test_the_store_is_built_in_the_background_once(tmp_path, index_dir):
    from agent.tools.index.background_store import start_sentence_store
    from agent.tools.index.offline_rerank import SentenceStore

    corpus = tmp_path / "corpus.jsonl"
    line = start_sentence_store(corpus, index_dir)
    assert line is not None and line.startswith("building the reranker's sentence store in the background (pid ")
    (command,) = FakePopen.started
    assert command[-7:] == ["index", "build", str(corpus), "--index-dir", str(index_dir), "--background", "-q"]
    assert start_sentence_store(corpus, index_dir) is None  # its build runs: not a second one
    store = SentenceStore.path_of("ab" * 32, sparkit_home())
    store.with_name(store.name + ".pid").unlink()
    store.write_bytes(b"")
    assert start_sentence_store(corpus, index_dir) is None and len(FakePopen.started) == 1  # the store exists


def test_no_background_build_when_turned_off_or_without_an_index(tmp_path, index_dir, monkeypatch):
    from agent.tools.index.background_store import start_sentence_store

    assert start_sentence_store(tmp_path / "corpus.jsonl", tmp_path / "no-index") is None
    monkeypatch.setenv("SPARKIT_BACKGROUND_SENTENCES", "0")
    assert start_sentence_store(tmp_path / "corpus.jsonl", index_dir) is None
    assert FakePopen.started == []
