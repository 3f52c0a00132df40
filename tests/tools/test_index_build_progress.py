"""A first index build says what it does on any stderr, a file or a CI log included (issue 39, item 3): one line when
it starts (corpus, records, an estimate), a line about every 10 % with rate and ETA off a terminal, one when it ends."""

from __future__ import annotations

import io
import json

import numpy as np

from agent.common.terminal import StepProgress, fmt_duration
from agent.tools.index import local_index
from agent.tools.index.local_index import LocalIndex
from agent.tools.models.encoder import DIM


class CountingEncoder:
    """Stands in for MiniLM: unit vectors, reported in chunks of 100 as the real encoder does in chunks of 256."""

    def encode(self, texts, show_progress=False, on_progress=None, bulk=False):
        for start in range(0, len(texts), 100):
            if on_progress is not None:
                on_progress(len(texts[start : start + 100]))
        vectors = np.ones((len(texts), DIM), dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def prime(self, texts, vectors):
        pass


def _corpus(tmp_path, n: int):
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        "".join(
            json.dumps({"doc_id": i, "title": f"study {i}", "abstract": [f"finding number {i} about cells."]}) + "\n"
            for i in range(n)
        ),
        encoding="utf-8",
    )
    return path


def test_an_index_build_reports_start_progress_and_end_with_stderr_to_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SPARKIT_PROGRESS", raising=False)
    monkeypatch.setattr(local_index, "shared_encoder", CountingEncoder)
    index = LocalIndex.build(_corpus(tmp_path, 1000), tmp_path / "index")
    assert len(index.records) == 1000
    lines = capsys.readouterr().err.splitlines()  # pytest's stderr is not a terminal
    assert (
        lines[0].startswith("building the offline index of ") and "(1,000 records)" in lines[0] and "about " in lines[0]
    )
    progress = lines[1:-1]
    assert 5 <= len(progress) <= 10, lines
    assert all("encoding: " in line and "/s" in line and ("left" in line or "estimating" in line) for line in progress)
    assert lines[-1].startswith("indexed 1,000 records in ")


def test_sparkit_progress_0_silences_the_build(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARKIT_PROGRESS", "0")
    monkeypatch.setattr(local_index, "shared_encoder", CountingEncoder)
    LocalIndex.build(_corpus(tmp_path, 50), tmp_path / "index")
    assert capsys.readouterr().err == ""


class Ticks:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_step_progress_off_a_terminal_prints_about_every_tenth_with_rate_and_eta():
    stream, clock = io.StringIO(), Ticks()
    with StepProgress(
        "encoding", 5183, start="start", done="done in {elapsed}", stream=stream, enabled=True, clock=clock
    ) as step:
        for _ in range(0, 5183, 256):
            clock.t += 2.0
            step.advance(256)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "start" and lines[-1] == "done in 42 s"
    assert len(lines) == 2 + 9  # 10 %, 20 %, ... 90 %
    assert lines[1] == "  encoding: 15% (768/5,183 records, 128.0/s, about 34 s left)"


def test_durations_read_as_people_write_them():
    assert [fmt_duration(s) for s in (4.4, 80, 3725)] == ["4 s", "1 min 20 s", "1 h 02 min"]
