r"""PubMedQA's yes / no / maybe rule, chosen by cross-validation on pqal_dev (issue 15).

The graph answers a polar question with a verdict or an abstention; PubMedQA wants yes / no / maybe. This maps
the court's evidence for the question's claim (its weighted support `s` and contradiction `c`, read from the
answers an `evals.pubmedqa --answers FILE` run wrote) to a label with two parameters:

- `maybe` only when the evidence really is mixed: both sides reach `mixed` (min(s, c) >= mixed);
- otherwise `yes` when s - c >= `threshold`, else `no`.

The parameters are chosen by stratified 10-fold cross-validation (each fold scored by the rule fitted on the
other nine, the protocol of the PubMedQA paper), so the reported accuracy and confusion matrix are out of
sample; `--write FILE` stores the rule fitted on all questions, for `evals.pubmedqa --rule FILE` on other data.

    python -m evals.pubmedqa --data ../shared/data/pubmedqa/pqal_dev.json --answers /tmp/pqa.jsonl
    python -m evals.pubmedqa_rule --data ../shared/data/pubmedqa/pqal_dev.json \
        --answers /tmp/pqa.jsonl [--write FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from benchmarks.metrics import confusion, macro_f1, stratified_folds
from evals.report import publish, read_answers

LABELS = ("yes", "no", "maybe")
THRESHOLDS = tuple(round(float(x), 2) for x in np.arange(-1.5, 1.51, 0.05))
MIXED: tuple[float | None, ...] = (None,) + tuple(round(float(x), 2) for x in np.arange(0.1, 2.01, 0.1))


class Rule(BaseModel):
    """yes / no / maybe from the claim's weighted support and contradiction (module docstring)."""

    threshold: float = Field(description="yes when support - contradiction reaches this, else no (unless mixed).")
    mixed: float | None = Field(description="maybe when both support and contradiction reach this (None: never maybe).")

    def decide(self, support: float, contradiction: float) -> str:
        if self.mixed is not None and min(support, contradiction) >= self.mixed:
            return "maybe"
        return "yes" if support - contradiction >= self.threshold else "no"


def evidence_of(answer: dict[str, Any]) -> tuple[float, float]:
    """The claim's (support, contradiction): its positive-polarity hypothesis's, or nothing when the gate
    declined or the court judged nothing."""
    relevance = answer.get("relevance") or {}
    if relevance and not relevance.get("relevant", True):
        return 0.0, 0.0
    claim = next((h for h in answer.get("hypotheses") or [] if h.get("polarity", 1) > 0), None)
    return (float(claim.get("support") or 0.0), float(claim.get("contradiction") or 0.0)) if claim else (0.0, 0.0)


def accuracy(rule: Rule, evidence: Sequence[tuple[float, float]], gold: Sequence[str]) -> float:
    return sum(rule.decide(s, c) == g for (s, c), g in zip(evidence, gold)) / len(gold) if gold else 0.0


def fit(evidence: Sequence[tuple[float, float]], gold: Sequence[str]) -> Rule:
    """The grid's most accurate rule; ties go to fewer maybes (larger `mixed`), then a threshold nearer 0."""
    values = np.asarray(evidence, dtype=float).reshape(-1, 2)
    net, both = values[:, 0] - values[:, 1], values.min(axis=1)
    truth = np.asarray(gold)
    thresholds = np.asarray(THRESHOLDS)
    best: tuple[tuple[float, float, float], Rule] | None = None
    for mixed in MIXED:
        maybe = np.zeros(len(truth), dtype=bool) if mixed is None else both >= mixed
        says_yes = net[None, :] >= thresholds[:, None]  # [threshold, item]
        label = np.where(maybe[None, :], "maybe", np.where(says_yes, "yes", "no"))
        correct = (label == truth[None, :]).mean(axis=1)
        for threshold, score in zip(THRESHOLDS, correct):
            key = (float(score), float("inf") if mixed is None else mixed, -abs(threshold))
            if best is None or key > best[0]:
                best = (key, Rule(threshold=threshold, mixed=mixed))
    assert best is not None
    return best[1]


def cross_validate(
    evidence: Sequence[tuple[float, float]], gold: Sequence[str], folds: int = 10, seed: int = 0
) -> tuple[list[str], list[Rule]]:
    """Out-of-fold predictions and the rule fitted for each fold."""
    fold_of = stratified_folds(gold, folds, seed)
    predicted = [""] * len(gold)
    rules = []
    for fold in range(folds):
        train = [i for i in range(len(gold)) if fold_of[i] != fold]
        rule = fit([evidence[i] for i in train], [gold[i] for i in train])
        rules.append(rule)
        for i in range(len(gold)):
            if fold_of[i] == fold:
                predicted[i] = rule.decide(*evidence[i])
    return predicted, rules


def load_rule(path: Path) -> Rule:
    return Rule.model_validate_json(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.pubmedqa_rule", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", required=True, type=Path, help="PQA-L JSON (PMID -> QUESTION, CONTEXTS, final_decision)"
    )
    parser.add_argument(
        "--answers", required=True, type=Path, help="the answers an `evals.pubmedqa --answers FILE` run wrote"
    )
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", type=Path, metavar="FILE", help="store the rule fitted on all the questions as JSON")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        items = json.loads(args.data.read_text(encoding="utf-8"))
        answers = read_answers(args.answers)
    except (OSError, ValueError) as exc:
        parser.exit(2, f"evals.pubmedqa_rule: {exc}\n")
    by_question: dict[str, list[str]] = defaultdict(list)
    for item in items.values():
        by_question[" ".join(item["QUESTION"].split())].append(item["final_decision"])  # the agent collapses whitespace
    gold, evidence = [], []
    for answer in answers:
        labels = by_question.get(" ".join(answer["question"].split()))
        if not labels:
            parser.exit(
                2,
                f"evals.pubmedqa_rule: an answer's question is not in {args.data.name}: {answer['question'][:80]!r}\n",
            )
        gold.append(labels.pop(0))
        evidence.append(evidence_of(answer))
    if len(set(gold)) < 2 or len(gold) < args.folds:
        parser.exit(2, f"evals.pubmedqa_rule: {len(gold)} answers are too few for {args.folds}-fold cross-validation\n")
    predicted, rules = cross_validate(evidence, gold, args.folds, args.seed)
    final = fit(evidence, gold)
    if args.write:
        args.write.write_text(final.model_dump_json() + "\n", encoding="utf-8")
    results = {
        "questions": len(gold),
        "cv_accuracy": sum(g == p for g, p in zip(gold, predicted)) / len(gold),
        "cv_macro_f1": macro_f1(gold, predicted, LABELS),
        "majority_baseline": max(gold.count(label) for label in LABELS) / len(gold),
        "fitted_rule": final.model_dump(),
        "in_sample_accuracy": accuracy(final, evidence, gold),
        "fold_rules": [r.model_dump() for r in rules],
        "confusion": confusion(gold, predicted, LABELS),
    }
    publish(
        f"PubMedQA yes / no / maybe rule, {args.folds}-fold cross-validation over {len(gold)} answers",
        results,
        {"answers": args.answers.name, "seed": args.seed},
        args.json,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
