"""The court's verdict from the fitted model: which hypothesis wins, its verdict, and the probability that it is right.

For a claim (or yes / no question) the model reads the claim's readings into P(SUPPORT), P(CONTRADICT) and
P(NOT_ENOUGH_INFO); the likelier side wins, with its probability as the chance that the verdict is right, and the
answer abstains below the model's operating point (chosen out of fold, training/fit_verdict.py). For a multiple-choice
question each option's readings are compared by a softmax: the likeliest option is named with its probability
(exam-style use answers every question; `answer.mcq_abstain_below` makes it abstain). An open question keeps the
court's formula. The hypotheses' scores become the model's probabilities; the court's routing margin is computed
before, from the formula's scores, so the discrimination loop still gathers evidence where the formula saw little.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.records import Hypothesis, HypothesisVerdict, LedgerEntry
from agent.records import Stance as StanceLabel
from agent.verdict.compact import compact_claim_features
from agent.verdict.features import claim_features, decider_row, option_features
from agent.verdict.model import VerdictModel
from agent.verdict.readings import claim_negation


@dataclass(frozen=True)
class ModelVerdict:
    """What the model decided for one court: the family, each class's (or option's) probability, the winner's
    probability of being right, the probability that abstaining is right, and the threshold below which the answer
    abstains."""

    family: str
    probabilities: dict[str, float]
    probability: float
    abstention: float
    threshold: float

    def as_state(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "probabilities": {k: round(v, 4) for k, v in self.probabilities.items()},
            "probability": round(self.probability, 4),
            "abstention": round(self.abstention, 4),
            "threshold": self.threshold,
        }


def _with(h: Hypothesis, score: float, verdict: HypothesisVerdict) -> Hypothesis:
    return h.model_copy(update={"score": float(score), "verdict": verdict})


def verdict_inputs(
    readings: list[dict[str, Any]], statement: str, polar: bool, relevance: float | None, setting: str
) -> dict[str, float]:
    """Every input a claim model may name: the full list, the compact one (agent/verdict/compact.py) and whether the
    evidence came with the question (a model fitted on both settings at once tells them apart by it)."""
    return {
        **claim_features(readings, statement, polar, relevance),
        **compact_claim_features(readings, statement, polar, relevance),
        "c_setting_documents": float(setting == "documents"),
    }


def decide_claim(
    model: VerdictModel,
    hypotheses: list[Hypothesis],
    readings: list[dict[str, Any]],
    polar: bool,
    relevance: float | None,
    threshold: float | None,
    setting: str = "corpus",
) -> tuple[list[Hypothesis], ModelVerdict] | None:
    """The claim's verdict (None when the hypotheses are not a claim and its negation, or nothing was read);
    `setting` says whether the evidence was searched for ('corpus') or given with the question ('documents')."""
    claim, negation = claim_negation(hypotheses)
    if claim is None or negation is None or not readings:
        return None
    p = model.claim_probabilities(verdict_inputs(readings, claim.statement, polar, relevance, setting), setting)
    side = "SUPPORT" if p["SUPPORT"] >= p["CONTRADICT"] else "CONTRADICT"
    other = "CONTRADICT" if side == "SUPPORT" else "SUPPORT"
    winner, loser = (claim, negation) if side == "SUPPORT" else (negation, claim)
    linear = model.claim_model(setting)
    updated = {
        winner.id: _with(winner, linear.confidence(p[side]), HypothesisVerdict.SUPPORTED),
        loser.id: _with(loser, linear.confidence(p[other]), HypothesisVerdict.CONTRADICTED),
    }
    chosen = linear.threshold if threshold is None else threshold
    verdict = ModelVerdict("claim", p, linear.confidence(p[side]), linear.confidence(p["NOT_ENOUGH_INFO"]), chosen)
    return [updated.get(h.id, h) for h in hypotheses], verdict


def decide_options(
    model: VerdictModel, hypotheses: list[Hypothesis], readings: list[dict[str, Any]], abstain_below: float
) -> tuple[list[Hypothesis], ModelVerdict] | None:
    """The options' probabilities (None when there are fewer than two options or nothing was read)."""
    options = [h for h in hypotheses if h.origin == "option"]
    if len(options) < 2 or not readings:
        return None
    statements = list(dict.fromkeys(h.statement for h in hypotheses))
    probabilities = model.option_probabilities(
        [option_features(readings, statements.index(h.statement), h.statement) for h in options]
    )
    best = max(range(len(options)), key=probabilities.__getitem__)
    updated = {
        h.id: _with(h, p, HypothesisVerdict.SUPPORTED if k == best else HypothesisVerdict.INSUFFICIENT)
        for k, (h, p) in enumerate(zip(options, probabilities, strict=True))
    }
    verdict = ModelVerdict(
        "option",
        {h.id: p for h, p in zip(options, probabilities, strict=True)},
        probabilities[best],
        1.0 - probabilities[best],
        abstain_below,
    )
    return [updated.get(h.id, h) for h in hypotheses], verdict


def with_decider(
    ledger: list[LedgerEntry],
    judged: dict[tuple[str, int], LedgerEntry],
    readings: list[dict[str, Any]],
    hypotheses: list[Hypothesis],
    family: str,
) -> list[LedgerEntry]:
    """The ledger with the sentence that decided the verdict first, on the winning side: for a claim, its eligible
    sentence read most strongly on the side the model chose (for the claim, and reversed for its negation); for a
    multiple-choice question, the winning option's sentence read most strongly as supporting it
    (agent.verdict.features.decider_row). The formula's caps may have left it out, or read it as neutral when the
    judge's probability fell below its floor; the quote a scientist reads first is the finding the verdict rests on."""
    if family == "claim":
        claim, negation = claim_negation(hypotheses)
        if claim is None or negation is None:
            return ledger
        side: StanceLabel = "SUPPORT" if claim.verdict == HypothesisVerdict.SUPPORTED else "CONTRADICT"
        flipped: StanceLabel = "CONTRADICT" if side == "SUPPORT" else "SUPPORT"
        statement, sides = 0, [(claim, side), (negation, flipped)]
    else:
        best = next((h for h in hypotheses if h.origin == "option" and h.verdict == HypothesisVerdict.SUPPORTED), None)
        if best is None:
            return ledger
        side = "SUPPORT"
        statement = list(dict.fromkeys(h.statement for h in hypotheses)).index(best.statement)
        sides = [(best, "SUPPORT")]
    row = decider_row(readings, side, statement)
    if row is None:
        return ledger
    confidence = float(row["p"][0 if side == "SUPPORT" else 1])
    promoted = [
        judged[(h.id, row["passage"])].model_copy(update={"stance": s, "confidence": confidence, "decided": True})
        for h, s in sides
        if (h.id, row["passage"]) in judged
    ]
    if not promoted:
        return ledger
    ids, text = {h.id for h, _ in sides}, promoted[0].text
    return promoted + [e for e in ledger if not (e.text == text and e.hypothesis_id in ids)]
