"""evals.sweep: N processes (or Ray actors) print the sequential table, an interrupted sweep redoes only the questions
its answers file lacks, and an answers file of another sweep is refused. A scripted `ask` stands in for the graph."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.config import Context
from agent.records import Answer, Hypothesis, LedgerEntry, Status
from evals import scifact
from evals.report import publish
from evals.sweep import Answered, Sweep, run
from tests.conftest import REPO

CLAIMS = [
    {
        "id": i,
        "claim": f"Drug {i} lowers blood pressure.",
        "evidence": {str(100 + i): [{"label": "SUPPORT" if i % 3 else "CONTRADICT", "sentences": [0]}]}
        if i % 4
        else {},
    }
    for i in range(1, 9)
]
TIMING = {"claims_per_second", "seconds_per_claim_mean", "seconds_per_claim_p95"}
calls: list[int] = []
_ticks = [0.0]


async def scripted_ask(context: Context, claim: dict) -> Answer:
    """A verdict that depends only on the claim (wrong on every fifth) citing the claim's abstract; counts its calls."""
    calls.append(claim["id"])
    verdict = "SUPPORT" if claim["id"] % 3 else "CONTRADICT"
    if claim["id"] % 5 == 0:
        verdict = "CONTRADICT" if verdict == "SUPPORT" else "SUPPORT"
    claim_h = Hypothesis(id="H1", text=claim["claim"], origin="claim", polarity=1)
    entry = LedgerEntry(
        hypothesis_id="H1",
        record_id=str(100 + claim["id"]),
        sentence_index=0,
        text="t",
        stance=verdict,
        confidence=0.5 + claim["id"] / 20,
    )
    return Answer(
        status=Status.ANSWERED,
        task="claim",
        question=claim["claim"],
        answer=verdict,
        verdict=verdict,
        confidence=0.4 + claim["id"] / 25,
        hypotheses=[claim_h],
        ledger=[entry],
        run_id=f"pid-{os.getpid()}",
    )


def ticking_clock() -> float:
    """Each question takes an eighth of a second by this clock, in whichever process answers it."""
    _ticks[0] += 0.125
    return _ticks[0]


def sweep_of(answers: Path, **how) -> Sweep:
    return Sweep(
        ask=scripted_ask,
        context=Context(),
        items=CLAIMS,
        ids=[str(c["id"]) for c in CLAIMS],
        settings={"eval": "test"},
        answers=answers,
        clock=ticking_clock,
        **how,
    )


def table(answered: list[Answered], capsys) -> str:
    capsys.readouterr()
    publish("SciFact", scifact.score(CLAIMS, answered), {"split": "test"}, as_json=True)
    return capsys.readouterr().out


def without_run_ids(path: Path) -> list[dict]:
    return [{**json.loads(line), "run_id": ""} for line in path.read_text().splitlines()]


def test_two_worker_processes_print_the_sequential_table_and_write_the_same_answers(tmp_path, capsys):
    sequential = run(sweep_of(tmp_path / "one.jsonl"))
    parallel = run(sweep_of(tmp_path / "two.jsonl", workers=2))
    assert [a.index for a in parallel] == list(range(len(CLAIMS)))
    assert {a.answer.run_id for a in parallel}.isdisjoint({f"pid-{os.getpid()}"})  # answered in the worker processes
    shown = table(sequential, capsys)
    assert shown == table(parallel, capsys)
    results = json.loads(shown.splitlines()[-1])
    assert (
        results["claims"] == 8
        and 0 < results["claim_label_accuracy"] < 1
        and results["seconds_per_claim_mean"] == 0.125
    )
    assert without_run_ids(tmp_path / "one.jsonl") == without_run_ids(
        tmp_path / "two.jsonl"
    )  # written in question order


def run_main(tmp_path: Path, capsys, *extra: str) -> dict:
    claims, corpus = tmp_path / "claims.jsonl", tmp_path / "corpus.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in CLAIMS))
    corpus.write_text(json.dumps({"doc_id": 101, "title": "t", "abstract": ["a"]}) + "\n")
    capsys.readouterr()
    assert (
        scifact.main(
            [
                "--claims",
                str(claims),
                "--corpus",
                str(corpus),
                "--split",
                "all",
                "--json",
                "--answers",
                str(tmp_path / "answers.jsonl"),
                *extra,
            ]
        )
        == 0
    )
    results = json.loads(capsys.readouterr().out.splitlines()[-1])
    return {k: v for k, v in results.items() if k not in TIMING}


def test_an_interrupted_sweep_redoes_only_the_questions_its_answers_file_lacks(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(scifact, "ask_claim", scripted_ask)
    calls.clear()
    whole = run_main(tmp_path, capsys)
    assert calls == [c["id"] for c in CLAIMS]
    answers = tmp_path / "answers.jsonl"
    lines = answers.read_text().splitlines(keepends=True)
    # killed after three questions, while writing the fourth
    answers.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    calls.clear()
    assert run_main(tmp_path, capsys) == whole
    assert calls == [c["id"] for c in CLAIMS[3:]]
    assert answers.read_text().splitlines(keepends=True)[:3] == lines[:3] and len(answers.read_text().splitlines()) == 8
    calls.clear()
    assert run_main(tmp_path, capsys) == whole and calls == []  # a finished sweep is only scored again
    assert answers.stat().st_mode & 0o777 == (tmp_path / "claims.jsonl").stat().st_mode & 0o777  # not owner-only


def test_a_question_whose_run_failed_is_answered_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(scifact, "ask_claim", scripted_ask)
    whole = run_main(tmp_path, capsys)
    answers = tmp_path / "answers.jsonl"
    lines = answers.read_text().splitlines()
    failed = {**json.loads(lines[2]), "status": "ERROR", "answer": "Run failed: OperationalError: database is locked"}
    answers.write_text("\n".join([*lines[:2], json.dumps(failed), *lines[3:]]) + "\n")
    calls.clear()
    assert run_main(tmp_path, capsys) == whole and calls == [CLAIMS[2]["id"]]
    assert answers.read_text().splitlines()[2] != json.dumps(failed) and len(answers.read_text().splitlines()) == 8


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (["--set", "max_claims=2"], "was written by another sweep (overrides: "),
        (["--limit", "2"], "which this sweep does not ask there"),
    ],
)
def test_an_answers_file_of_another_sweep_is_refused_in_one_line(tmp_path, capsys, monkeypatch, extra, reason):
    monkeypatch.setattr(scifact, "ask_claim", scripted_ask)
    run_main(tmp_path, capsys)
    answers = tmp_path / "answers.jsonl"
    written = answers.read_text() + '{"status": "ANS'  # and killed while writing a line
    answers.write_text(written)
    calls.clear()
    with pytest.raises(SystemExit) as stopped:
        run_main(tmp_path, capsys, *extra)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and reason in err and len(err.strip().splitlines()) == 1 and calls == []
    assert answers.read_text() == written  # a refused file is left as it was


@pytest.mark.parametrize(
    ("answers", "extra", "reason"),
    [
        ('{"status": "ANSWERED"}\n', [], "line 1 is not a sweep's answer"),
        ("", ["--workers", "0"], "--workers must be at least 1 (got 0)"),
        ("", ["--workers", "-3"], "--workers must be at least 1 (got -3)"),
        ("", ["--ray", "127.0.0.1:1"], "--ray 127.0.0.1:1: no Ray cluster answers there"),
        ("", ["--ray", "somewhere"], "--ray takes 'local' or a cluster's HOST:PORT"),
        (None, [], "Is a directory"),
    ],
)
def test_bad_sweep_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, answers, extra, reason):
    monkeypatch.setattr(scifact, "ask_claim", scripted_ask)
    if answers is None:
        (tmp_path / "answers.jsonl").mkdir()
    else:
        (tmp_path / "answers.jsonl").write_text(answers)
    calls.clear()
    with pytest.raises(SystemExit) as stopped:
        run_main(tmp_path, capsys, *extra)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and reason in err and len(err.strip().splitlines()) == 1 and calls == []


def start_local_ray(ray) -> None:
    """Two CPUs on loopback. Ray waits a fixed 30 s for its node to register, which a saturated machine can exceed
    (seen here at load 25): one more try, then the failure stands."""
    options = {
        "num_cpus": 2,
        "include_dashboard": False,
        "_node_ip_address": "127.0.0.1",
        "runtime_env": {"env_vars": {"PYTHONPATH": str(REPO)}},
    }
    try:
        ray.init(**options)
    except Exception as exc:  # Ray raises a bare Exception for this timeout
        if "timed out during startup" not in str(exc):
            raise
        ray.shutdown()
        ray.init(**options)


@pytest.mark.slow
def test_ray_actors_on_a_local_ray_print_the_sequential_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'sparkit[ray]')")
    sequential = run(sweep_of(tmp_path / "one.jsonl"))
    start_local_ray(ray)
    try:
        on_ray = run(sweep_of(tmp_path / "ray.jsonl", ray="local", workers=2))
    finally:
        ray.shutdown()
    assert {a.answer.run_id for a in on_ray}.isdisjoint({f"pid-{os.getpid()}"})  # answered by the actors
    assert table(sequential, capsys) == table(on_ray, capsys)
    assert without_run_ids(tmp_path / "one.jsonl") == without_run_ids(tmp_path / "ray.jsonl")
