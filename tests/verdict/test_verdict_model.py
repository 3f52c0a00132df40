"""The fitted verdict model: its file is refused for other readers or features, and the court's verdict and the
answer's confidence are the model's (agent/verdict)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from agent.backend import register_backend
from agent.config import Context
from agent.errors import ConfigurationError
from agent.interfaces import StanceResult
from agent.nodes.report import report
from agent.records import STANCE_LABELS
from agent.verdict.features import claim_features
from agent.verdict.model import CLASSES, read_model, verdict_model_for
from tests.fakes import ListSource, RuleStance, make_backend, unique_backend_name
from tests.nodes.test_nodes import RECORDS, _courted, run

NAMES = ["top_lean", "relevance", "bias"]


def model_file(tmp_path: Path, readers: dict[str, str], threshold: float = 0.6, names: list[str] = NAMES) -> Path:
    """A claim model that reads SUPPORT from a positive lean of the strongest eligible sentence, CONTRADICT from a
    negative one, and NOT_ENOUGH_INFO when there is none; options prefer the larger lean."""
    path = tmp_path / "verdict.json"
    coef = [[3.0, 0.0, 0.0], [-3.0, 0.0, 0.0], [0.0, 0.0, 0.5]][: len(CLASSES)]
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "readers": readers,
                "claim": {
                    "corpus": {
                        "features": names,
                        "mean": [0.0] * len(names),
                        "scale": [1.0] * len(names),
                        "coef": [row[: len(names)] for row in coef],
                        "intercept": [0.0, 0.0, 0.0],
                        "temperature": 1.0,
                        "threshold": threshold,
                    }
                },
                "option": {
                    "features": ["top_lean"],
                    "mean": [0.0],
                    "scale": [1.0],
                    "coef": [[2.0]],
                    "intercept": [0.0],
                    "temperature": 1.0,
                    "threshold": 0.0,
                },
            }
        ),
        encoding="utf-8",
    )
    return path


def test_claim_probabilities_are_the_softmax_of_the_file_coefficients(tmp_path):
    model = read_model(model_file(tmp_path, {"rule": ""}))
    p = model.claim_probabilities({"top_lean": 0.5, "relevance": 1.0, "bias": 1.0})
    z = [1.5, -1.5, 0.5]
    expected = [math.exp(v) / sum(math.exp(w) for w in z) for v in z]
    assert [round(p[c], 6) for c in CLASSES] == [round(v, 6) for v in expected]
    assert model.option_probabilities([{"top_lean": 0.4}, {"top_lean": -0.1}])[0] == pytest.approx(
        1 / (1 + math.exp(-1.0))
    )


def test_a_model_of_other_weights_or_features_is_refused_with_one_line(tmp_path):
    stale = model_file(tmp_path, {"rule": "0" * 64})
    with pytest.raises(ConfigurationError) as caught:
        verdict_model_for(stale, {"rule": "f" * 64})
    assert "refit it" in str(caught.value) and "\n" not in str(caught.value)
    odd = read_model(model_file(tmp_path, {"rule": ""}, names=["top_lean", "no_such_feature", "bias"]))
    with pytest.raises(ConfigurationError, match="no_such_feature"):
        odd.claim_probabilities({"top_lean": 1.0, "bias": 1.0})
    with pytest.raises(ConfigurationError, match="does not exist"):
        verdict_model_for(tmp_path / "missing.json", {"rule": ""})
    # other readers (a chat model, the heuristic alone): the court's formula decides, no error
    assert verdict_model_for(model_file(tmp_path, {"cross": "", "heuristic": ""}), {"rule": ""}) is None


class ProbableRule(RuleStance):
    """RuleStance with probabilities, as the offline readers give them: what the readings keep."""

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        results = await super().judge(pairs)
        rows = {"SUPPORT": [0.7, 0.1, 0.2], "CONTRADICT": [0.1, 0.8, 0.1], "NEUTRAL": [0.1, 0.1, 0.8]}
        return [StanceResult.from_probabilities(STANCE_LABELS, rows[r.stance]) for r in results]


def _runtime(tmp_path: Path, **settings) -> Runtime:
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)], stance=ProbableRule()))
    path = model_file(tmp_path, {"rule": ""}, threshold=settings.pop("threshold", 0.6))
    return Runtime(context=Context(backend=name, enable_relevance_gate=False, verdict_model_path=str(path), **settings))


def test_the_court_verdict_and_the_answer_confidence_are_the_models(tmp_path):
    rt = _runtime(tmp_path)
    state = _courted(rt)
    decided = state["verdict_model"]
    model = read_model(Path(rt.context.court.verdict_model_path))
    p = model.claim_probabilities(claim_features(state["readings"], "Statins increase muscle pain.", True, None))
    assert decided["family"] == "claim" and decided["probability"] == pytest.approx(
        max(p["SUPPORT"], p["CONTRADICT"]), abs=1e-4
    )
    h1, h2 = state["hypotheses"]
    assert (h1.score, h2.score) == (pytest.approx(p["SUPPORT"]), pytest.approx(p["CONTRADICT"]))
    winner, loser = (h1, h2) if p["SUPPORT"] >= p["CONTRADICT"] else (h2, h1)
    assert (winner.verdict.value, loser.verdict.value) == ("SUPPORTED", "CONTRADICTED")
    first = next(e for e in state["ledger"] if e.hypothesis_id == winner.id)  # the sentence that decided leads
    assert first.decided and first.stance == "SUPPORT" and "decreases" in first.text
    assert sum(e.decided for e in state["ledger"]) == 2  # and reversed for the losing hypothesis
    ablated = _courted(_runtime(tmp_path, verdict_model=False))
    assert ablated["verdict_model"] is None  # the formula's verdict, as before the model


def test_below_the_models_operating_point_the_answer_leans_with_the_models_probability(tmp_path):
    answered = _answered(tmp_path, threshold=0.01)
    assert (answered.status.value, answered.tier, answered.abstained) == ("ANSWERED", "confident", False)
    assert answered.scores == "probability"  # the hypotheses' scores are the model's: printed as probabilities
    assert answered.leading_confidence == pytest.approx(answered_probability := answered.confidence)
    leaning = _answered(tmp_path, threshold=0.99)
    assert (leaning.status.value, leaning.tier, leaning.abstained) == ("LEANING", "leaning", False)
    assert leaning.confidence == pytest.approx(answered_probability) and leaning.verdict == answered.verdict
    side = "yes" if leaning.verdict == "SUPPORT" else "no"
    assert leaning.answer.startswith(f"The evidence leans towards {side} ({answered_probability:.2f}): statins")
    withheld = _answered(tmp_path, threshold=0.99, confident_only=True)
    assert withheld.abstained and withheld.leading_confidence == pytest.approx(answered_probability)
    assert withheld.tier is None and "below the 0.99 needed to answer" in withheld.answer


def _answered(tmp_path: Path, threshold: float, **settings):
    from agent.nodes.synthesize import synthesize

    rt = _runtime(tmp_path, threshold=threshold, **settings)
    state = _courted(rt)
    state.update(run(synthesize, state, rt))
    return run(report, state, rt)["answer"]
