"""The default corpus from any directory: chosen once with `sparkit config`, or SciFact downloaded once and checked
against its sha256 (the download replayed with httpx.MockTransport on a small archive built here)."""

from __future__ import annotations

import asyncio
import functools
import io
import json
import tarfile

import httpx
import pytest

import agent.backend.corpus as corpus_module
from agent.backend.corpus import (
    SCIFACT_HOST,
    SCIFACT_MEMBER,
    corpus_of,
    download_scifact,
    downloaded_corpus_path,
    sha256_of,
)
from agent.cli import main
from agent.errors import CorpusError
from agent.settings.sources import CorpusSettings
from agent.tools.http import HttpOptions
from tests.tools.helpers import FakeClock

CORPUS = (json.dumps({"doc_id": 1, "title": "Vitamin D", "abstract": ["Vitamin D reduced fractures."]}) + "\n").encode()


def archive(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def replay(responses: list[httpx.Response], seen: list[httpx.Request]) -> HttpOptions:
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return HttpOptions(transport=httpx.MockTransport(handler), clock=FakeClock())


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No shared corpus beside the project or the current directory, no SPARKIT_CORPUS."""
    monkeypatch.setattr(corpus_module, "PROJECT_ROOT", tmp_path / "project")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_corpus_chosen_once_is_used_from_any_directory(nowhere, tmp_path, monkeypatch, capsys):
    path = tmp_path / "mine.jsonl"
    path.write_bytes(CORPUS)
    assert main(["config", "corpus", str(path)]) == 0
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert corpus_of(CorpusSettings()) == path.resolve()
    assert str(path.resolve()) in capsys.readouterr().out
    assert main(["config", "--unset", "corpus"]) == 0 and corpus_of(CorpusSettings()) is None


def test_config_refuses_a_missing_corpus_and_unknown_keys(nowhere, capsys):
    assert main(["config", "corpus", str(nowhere / "absent.jsonl")]) == 2
    assert "corpus not found" in capsys.readouterr().err
    assert main(["config", "colour", "blue"]) == 2
    assert "unknown config key 'colour'" in capsys.readouterr().err


def test_the_shared_corpus_beside_the_project_is_found_from_any_directory(tmp_path, monkeypatch):
    project = tmp_path / "checkout" / "sparkit"
    shared = tmp_path / "checkout" / "shared" / "data" / "scifact"
    shared.mkdir(parents=True)
    (shared / "corpus.jsonl").write_bytes(CORPUS)
    monkeypatch.setattr(corpus_module, "PROJECT_ROOT", project)
    monkeypatch.chdir(tmp_path)  # not the project's directory
    assert corpus_of(CorpusSettings()) == (shared / "corpus.jsonl").resolve()


def test_scifact_is_downloaded_once_over_the_http_base_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_module, "SCIFACT_SHA256", sha256_of(CORPUS))
    seen: list[httpx.Request] = []
    body = archive({"data/claims_train.jsonl": b"{}\n", SCIFACT_MEMBER: CORPUS})
    options = replay([httpx.Response(503, headers={"Retry-After": "1"}), httpx.Response(200, content=body)], seen)
    path = asyncio.run(download_scifact(tmp_path, options=options))
    assert path == downloaded_corpus_path(tmp_path) and path.read_bytes() == CORPUS
    assert [r.url.host for r in seen] == [
        SCIFACT_HOST,
        SCIFACT_HOST,
    ]  # retried after the 503, the allowlisted host only
    assert asyncio.run(download_scifact(tmp_path, options=replay([], seen))) == path and len(seen) == 2  # once


def test_a_download_with_the_wrong_checksum_is_refused(tmp_path):
    seen: list[httpx.Request] = []
    options = replay([httpx.Response(200, content=archive({SCIFACT_MEMBER: CORPUS}))], seen)
    with pytest.raises(CorpusError, match="failed its checksum"):
        asyncio.run(download_scifact(tmp_path, options=options))
    assert not downloaded_corpus_path(tmp_path).exists() and not list(tmp_path.rglob("*.part"))


def test_an_archive_without_the_corpus_is_refused(tmp_path):
    options = replay([httpx.Response(200, content=archive({"data/other.jsonl": CORPUS}))], [])
    with pytest.raises(CorpusError, match=r"has no data/corpus.jsonl"):
        asyncio.run(download_scifact(tmp_path, options=options))


def test_no_corpus_and_no_network_says_how_to_give_one(nowhere, monkeypatch, capsys):
    failing = replay([httpx.Response(503)] * 4, [])
    monkeypatch.setattr(corpus_module, "download_scifact", functools.partial(download_scifact, options=failing))
    assert main(["ask", "Is water wet?", "-q"]) == 2
    err = capsys.readouterr().err
    assert "SciFact download failed" in err and "--corpus PATH" in err and "sparkit config corpus PATH" in err
