"""training.fit_verdict_balanced on made-up answers where SUPPORT is the commonest class and the readings are noisy:
the balanced procedure states CONTRADICT where the plain one learns the prior, the file it writes is what the runtime
reads (the per-class biases folded into its intercepts, its confidence map monotone), and its report gives recall per
class beside always-SUPPORT."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from agent.verdict.apply import verdict_inputs
from agent.verdict.model import read_model
from tests.training.test_fit_verdict import _answer
from training import fit_verdict_balanced
from training.verdict_balance import balanced_log_loss, class_weights, confidence_map, stated_classes, vector_scaling

SHIPPED = Path(__file__).resolve().parents[2] / "agent" / "models" / "verdict.json"


def _imbalanced(tmp_path: Path, n: int = 420) -> tuple[Path, Path]:
    rng = random.Random(3)
    claims, lines = [], []
    for i in range(n):
        gold = "SUPPORT" if i % 10 < 7 else "CONTRADICT" if i % 10 < 9 else "NOT_ENOUGH_INFO"
        evidence = {str(5000 + i): [{"label": gold, "sentences": [0]}]} if gold != "NOT_ENOUGH_INFO" else {}
        claims.append({"id": i, "claim": f"claim {i}", "cited_doc_ids": [5000 + i], "evidence": evidence})
        answer = _answer(gold, rng)
        lean = {"SUPPORT": 0.1, "CONTRADICT": -0.1, "NOT_ENOUGH_INFO": 0.0}[gold] + rng.gauss(0, 0.2)
        weak = [0.4 + lean, 0.4 - lean, 0.2]  # a weak signal: the prior tempts
        answer["readings"][0].update(p=weak, readers={"cross": weak})
        answer["relevance"]["probability"] = 0.6 + rng.gauss(0, 0.2)
        lines.append({"family": "claims", "id": str(i), "gold": gold, "answer": answer})
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "claims.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    claims_file = tmp_path / "claims.jsonl"
    claims_file.write_text("".join(json.dumps(c) + "\n" for c in claims))
    return folder, claims_file


def test_balanced_fit_says_no_where_the_plain_one_learns_the_prior(tmp_path, monkeypatch):
    monkeypatch.setattr(fit_verdict_balanced, "running_readers", lambda decider=None: {"cross": "a" * 64})
    folder, claims = _imbalanced(tmp_path)
    out, report_path, oof = tmp_path / "verdict.json", tmp_path / "report.json", tmp_path / "oof.jsonl"
    args = ["--answers", str(folder), "--claims", str(claims), "--part", "all", "--options-from", str(SHIPPED)]
    args += ["--out", str(out), "--report", str(report_path), "--oof-out", str(oof), "--min-questions", "300"]
    assert fit_verdict_balanced.main(args) == 0
    report = json.loads(report_path.read_text())
    new, old = report["oof"]["all"]["recall_by_class"], report["old_procedure_oof"]["all"]["recall_by_class"]
    assert new["CONTRADICT"] > old["CONTRADICT"] + 0.1
    assert report["oof"]["all"]["always_support_accuracy"] == pytest.approx(0.7, abs=0.01)
    assert report["by_family"] == {"claims": 420} and len(oof.read_text().splitlines()) == 420
    model = read_model(out)
    linear = model.claim_model("corpus")
    assert linear.confidence_map is not None and linear.features[0].startswith("c_")
    against = _answer("CONTRADICT", random.Random(0))
    against["readings"][0]["p"] = [0.05, 0.9, 0.05]
    inputs = verdict_inputs(against["readings"], "X increases Y", False, 0.9, "corpus")
    p = model.claim_probabilities(inputs, "corpus")
    assert p["CONTRADICT"] > max(p["SUPPORT"], p["NOT_ENOUGH_INFO"])
    assert linear.confidence(0.3) < linear.confidence(0.6)


def test_vector_scaling_lowers_the_balanced_loss_of_a_prior_bent_model():
    rng = np.random.default_rng(0)
    y = np.asarray([0] * 700 + [1] * 200 + [2] * 100)
    logits = rng.normal(0, 1, (1000, 3)) + np.eye(3)[y] * 1.0 + np.asarray([2.0, 0.0, 0.0])  # bent to class 0
    t, bias = vector_scaling(logits, y)
    before = balanced_log_loss(y, np.exp(logits) / np.exp(logits).sum(1, keepdims=True))
    z = logits / t + bias
    after = balanced_log_loss(y, np.exp(z) / np.exp(z).sum(1, keepdims=True))
    assert after < before - 0.05 and bias[0] == 0.0 and bias[1] > 0
    assert class_weights(y)[y == 2][0] == pytest.approx(1000 / (3 * 100))


def test_the_confidence_map_rises_with_the_probability_and_states_the_three_tier_answer():
    p = np.asarray([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.45, 0.1, 0.45]] * 50)
    y = np.asarray([0, 2, 2, 0] * 50)
    assert stated_classes(p)[:4].tolist() == [0, 1, 2, 2]
    slope, _ = confidence_map(p, y)
    assert slope > 0
