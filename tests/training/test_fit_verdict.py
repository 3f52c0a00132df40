"""training.fit_verdict on made-up answers: the model file it writes is what the runtime reads, its operating point is
chosen by the stated procedure, and it refuses to choose one on too few questions."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.verdict.model import read_model
from tests.verdict.test_readings import _row
from training import fit_verdict


def _answer(gold: str, rng: random.Random, polar: bool = False) -> dict:
    lean = {"SUPPORT": 0.5, "CONTRADICT": -0.5, "NOT_ENOUGH_INFO": 0.0}[gold] + rng.gauss(0, 0.25)
    s, c = max(0.0, min(1.0, 0.4 + lean)), max(0.0, min(1.0, 0.4 - lean))
    p = [round(s, 3), round(c, 3), round(max(0.0, 1 - s - c), 3)]
    return {
        "task": "polar" if polar else "claim",
        "question": "X increases Y",
        "hypotheses": [{"origin": "claim", "claim": "X increases Y", "polarity": 1}],
        "relevance": {"probability": 0.9 if gold != "NOT_ENOUGH_INFO" else 0.3},
        "readings": [_row(p, passage=0), _row([0.2, 0.1, 0.7], passage=1)],
    }


def _folder(tmp_path: Path, n: int) -> tuple[Path, Path]:
    rng = random.Random(7)
    labels = ["SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO"]
    claims, lines = [], []
    for i in range(n):
        gold = labels[i % 3]
        evidence = {str(1000 + i // 2): [{"label": gold, "sentences": [0]}]} if gold != "NOT_ENOUGH_INFO" else {}
        claims.append({"id": i, "claim": f"claim {i}", "cited_doc_ids": [1000 + i // 2], "evidence": evidence})
        lines.append({"family": "claims", "id": str(i), "gold": gold, "answer": _answer(gold, rng)})
    covid = []
    for k in range(40):
        for suffix, gold in (("0", "SUPPORT"), ("1", "CONTRADICT")):
            covid.append(
                {"family": "check_covid", "id": f"doc{k}_{suffix}", "gold": gold, "answer": _answer(gold, rng)}
            )
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "claims.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (folder / "check_covid.jsonl").write_text("".join(json.dumps(x) + "\n" for x in covid))
    claims_file = tmp_path / "claims.jsonl"
    claims_file.write_text("".join(json.dumps(c) + "\n" for c in claims))
    return folder, claims_file


def test_the_written_model_is_what_the_runtime_reads_and_leans_as_the_data_do(tmp_path, monkeypatch):
    monkeypatch.setattr(fit_verdict, "running_readers", lambda decider=None: {"cross": "a" * 64})
    # two values of C to choose from, and one input group left out in the ablations, instead of seven and eleven: the
    # same code paths at a quarter of the fits (the whole grid took 70-105 s of a fast-loop run on a busy machine)
    monkeypatch.setattr(fit_verdict, "C_GRID", (0.03, 1.0))
    monkeypatch.setattr(fit_verdict, "GROUPS", {"decider": fit_verdict.GROUPS["decider"]})
    folder, claims = _folder(tmp_path, 150)
    out = tmp_path / "verdict.json"
    assert (
        fit_verdict.main(
            [
                "--answers",
                str(folder),
                "--claims",
                str(claims),
                "--part",
                "all",
                "--out",
                str(out),
                "--min-questions",
                "100",
            ]
        )
        == 0
    )
    model = read_model(out)
    assert model.readers == {"cross": "a" * 64} and set(model.claims) == {"corpus", "documents"}
    strong = fit_verdict.claim_features(_answer("SUPPORT", random.Random(1))["readings"], "X increases Y", False, 0.9)
    strong["top_support"], strong["top_lean"] = 0.95, 0.9
    p = model.claim_probabilities(strong, "corpus")
    assert p["SUPPORT"] > max(p["CONTRADICT"], p["NOT_ENOUGH_INFO"])
    corpus = json.loads(out.read_text())["fit"]["settings"]["corpus"]
    assert corpus["chosen_on"] == "its own questions" and 0.0 < corpus["threshold"] <= 1.01


def test_it_refuses_to_choose_an_operating_point_on_too_few_questions(tmp_path, monkeypatch):
    monkeypatch.setattr(fit_verdict, "running_readers", lambda decider=None: {})
    folder, claims = _folder(tmp_path, 30)
    with pytest.raises(SystemExit) as exit_:
        fit_verdict.main(["--answers", str(folder), "--claims", str(claims), "--part", "all"])
    assert exit_.value.code == 2
