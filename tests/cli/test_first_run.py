"""README command 1 on an empty SPARKIT_HOME with stderr to a file (CI, nohup, an IDE console): the first run builds
the index and must say so off a terminal, in few lines (issue 39, item 3: it printed 380 heartbeats and never said)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCIFACT = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"


@pytest.mark.slow
@pytest.mark.skipif(not SCIFACT.is_file(), reason="needs ../shared/data/scifact/corpus.jsonl")
def test_first_run_with_stderr_to_a_file_names_the_index_build_in_under_40_lines(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(SCIFACT.read_text(encoding="utf-8").splitlines(keepends=True)[:600]), encoding="utf-8")
    env = {**os.environ, "SPARKIT_HOME": str(tmp_path / "home"), "SPARKIT_CORPUS": str(corpus), "PYTHONPATH": str(ROOT)}
    env.pop("SPARKIT_PROGRESS", None)
    with (tmp_path / "stderr.txt").open("w") as err:
        done = subprocess.run(
            [sys.executable, "-m", "agent.cli", "ask", "Does hypoglycemia increase the risk of dementia?"],
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
            cwd=tmp_path,
            text=True,
            timeout=3600,
        )
    lines = (tmp_path / "stderr.txt").read_text().splitlines()
    assert done.returncode == 0, lines[-5:]
    assert len(lines) < 40, "\n".join(lines)
    assert any(line.startswith("building the offline index of ") and "(600 records)" in line for line in lines), lines
    assert any(line.startswith("indexed 600 records in ") for line in lines), lines
    assert "Usage:" in done.stdout and "of set-up before it" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not SCIFACT.is_file(), reason="needs ../shared/data/scifact/corpus.jsonl")
def test_the_first_run_on_the_default_corpus_loads_the_shipped_vectors_instead_of_encoding(tmp_path):
    """Issue 51, item 2: README command 1 on an empty SPARKIT_HOME answers from the SciFact index built from the
    vectors shipped in agent/models/, with no encoding of the 5,183 abstracts."""
    env = {**os.environ, "SPARKIT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    for variable in ("SPARKIT_CORPUS", "SPARKIT_PROGRESS"):
        env.pop(variable, None)
    done = subprocess.run(
        [sys.executable, "-m", "agent.cli", "ask", "Does hypoglycemia increase the risk of dementia?"],
        capture_output=True,
        env=env,
        cwd=ROOT,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    err = done.stderr.splitlines()
    assert any("(5,183 records)" in line and "from the vectors shipped for it" in line for line in err), err
    assert not any("encoding: " in line for line in err), err
    assert "SciFact (5,183 abstracts)" in done.stdout
