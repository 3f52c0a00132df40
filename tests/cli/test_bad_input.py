"""Bad input: one clear line on stderr, exit code 2, no traceback, nothing on disk damaged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main

CASES = [
    (["ask", ""], "the question is empty"),
    (["ask", "   \n\t "], "the question is empty"),
    (["ask", "x" * 20_001], "limit is 20000"),
    (["ask", "Which?", "--option", "only one"], "at least 2 options"),
    (["ask", "Which?", "--option", "A", "--option", "a"], "options must be distinct"),
    (["ask", "Is water wet?", "--preset", "turbo"], "invalid setting preset"),
    (["ask", "Is water wet?", "--set", "max_claims=-3"], "invalid setting verification.max_claims"),
    (["ask", "Is water wet?", "--set", "no_such_field=1"], "invalid setting no_such_field"),
]


def _errors(err: str) -> list[str]:
    """stderr without the run-id line a run prints first (before any work, so a killed run can be resumed)."""
    return [line for line in err.strip().splitlines() if not line.startswith("sparkit: run ")]


@pytest.mark.parametrize("argv,message", CASES)
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("sparkit: error:") and message in err


def test_missing_corpus(capsys, tmp_path):
    assert main(["ask", "Is water wet?", "--corpus", str(tmp_path / "absent.jsonl"), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert "corpus not found" in err and len(_errors(err)) == 1


def test_corrupt_index_is_reported_and_left_untouched(capsys, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"doc_id": 1, "title": "T", "abstract": ["A sentence about water."]}) + "\n")
    index = tmp_path / "index"
    index.mkdir()
    (index / "manifest.json").write_text("{not json")
    before = {p.name: p.read_bytes() for p in index.iterdir()}
    assert main(["ask", "Is water wet?", "--corpus", str(corpus), "--index-dir", str(index), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert "corrupt" in err and "sparkit index build" in err and len(_errors(err)) == 1
    assert {p.name: p.read_bytes() for p in index.iterdir()} == before


def test_malformed_corpus_line_names_the_line(capsys, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"doc_id": 1, "title": "T", "abstract": ["ok"]}) + "\n{broken\n")
    assert main(["index", "build", str(corpus), "--index-dir", str(tmp_path / "ix"), "-q"]) == 2
    assert "corpus line 2" in capsys.readouterr().err
    assert not (tmp_path / "ix").exists()


def test_process_level_no_traceback():
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    proc = subprocess.run(
        [sys.executable, "-m", "agent.cli", "ask", "  "],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""


def test_a_question_in_another_language_exits_2_saying_sparkit_reads_english(capsys):
    """Seen: a Spanish question was answered 'the retrieved evidence does not address the question'."""
    assert main(["ask", "¿La suplementación con vitamina D reduce el riesgo de fracturas óseas?"]) == 2
    err = _errors(capsys.readouterr().err)
    assert err == [
        "sparkit: error: SPARKIT reads questions in English, and this one reads as Spanish (es): please ask it "
        "in English"
    ]


def _json_subcommands() -> list[list[str]]:
    """Every subcommand (as its argv path) that takes --json, read from the parser itself."""
    import argparse

    from agent.cli import build_parser

    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        if "--json" in parser._option_string_actions:
            found.append(path)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, [*path, name])

    walk(build_parser(), [])
    return found


JSON_ERRORS = [
    (["ask", "", "--json"], "the question is empty", 2),
    (["verify", "  ", "--json"], "the question is empty", 2),
    (["ask", "Is water wet?", "--preset", "turbo", "--json"], "invalid setting preset", 2),
    (["resume", "0123456789ab", "--json"], "no checkpointed run", 2),
] + [
    ([*path, "--json", "--no-such-flag"], "arguments", 2) for path in _json_subcommands()
]  # required / unrecognized arguments


@pytest.mark.parametrize("argv,message,code", JSON_ERRORS)
def test_with_json_an_error_is_a_json_object_on_stdout_too(argv, message, code, capsys, tmp_path, monkeypatch):
    """Issue 39: with --json an input error printed plain text on stderr and nothing on stdout."""
    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path))
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert (
        json.loads(out) == {"error": json.loads(out)["error"], "exit_code": code}
        and message in json.loads(out)["error"]
    )
    assert message in _errors(err)[-1] and "error" in _errors(err)[-1]


def test_every_subcommand_that_prints_json_is_covered():
    assert {" ".join(p) for p in _json_subcommands()} >= {
        "ask",
        "verify",
        "resume",
        "trace list",
        "library add",
        "library list",
        "library stats",
    }


def test_without_json_an_error_leaves_stdout_empty(capsys):
    assert main(["ask", "", "-q"]) == 2 and capsys.readouterr().out == ""
