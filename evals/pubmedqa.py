"""PubMedQA PQA-L, reasoning-required setting: question + the given contexts -> yes / no / maybe,
answered through the public API (`agent.aask` with the contexts as the only documents).

    python -m evals.pubmedqa --data ../shared/data/pubmedqa/pqal_dev.json [--split heldout]

The shipped judges never saw PubMedQA. `--split heldout` scores only the 246 odd-PMID questions, which no
training run uses: the PubMedQA-trained judge variant (`training/train_cross_stance.py --pubmedqa`, not
shipped) learns from the even ones, so this is the split on which the two can be compared.

Two decision rules are scored: `strict`, what the answer states (verdict SUPPORT -> yes, CONTRADICT -> no, a lean's
included: a LEANING answer states its side; NOT_ENOUGH_INFO or abstention -> maybe: the benchmark's own scoring, and
the headline since answers lean) and `lean` (when the system abstains, the side its court's hypothesis scores
favour; maybe only when the court saw no evidence either way). `accuracy` is the lean rule's. With `--rule FILE` (a
rule `evals.pubmedqa_rule` chose by cross-validation on pqal_dev), `accuracy_rule` and its confusion are added.
Calibration is scored for both: `ece` with the lean rule (the leading answer's confidence when the run abstained but
leaned) and `ece_strict` with the reported confidence (an abstention's is the probability that "maybe" is right)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agent import Context, aask
from agent.llm.flags import add_llm_arguments, llm_overrides
from agent.records import Answer
from benchmarks.cli import parse_overrides
from benchmarks.metrics import calibration, macro_f1, per_class_report, selective
from benchmarks.metrics import confusion as confusion_of
from benchmarks.questions import documents_of
from benchmarks.splits import pubmedqa_split
from evals.failures import error_rows, exit_code, scored
from evals.pubmedqa_rule import LABELS, Rule, evidence_of, load_rule
from evals.report import chat_model_usage, context_or_exit, publish
from evals.sweep import Answered, add_sweep_arguments, code_version, sweep_or_exit

DECISION = {"SUPPORT": "yes", "CONTRADICT": "no"}


def decide_strict(answer: Any) -> str:
    return DECISION.get(answer.verdict or "", "maybe") if not answer.abstained else "maybe"


def decide_lean(answer: Any) -> str:
    if not answer.abstained and answer.verdict in DECISION:
        return DECISION[answer.verdict]
    yes = next((h.score for h in answer.hypotheses if h.polarity > 0), 0.0)
    no = next((h.score for h in answer.hypotheses if h.polarity < 0), 0.0)
    return "maybe" if yes == no else ("yes" if yes > no else "no")


def lean_confidence(answer: Any) -> float:
    """The lean decision's confidence: the leading answer's when the run abstained but leaned, else the reported one."""
    if answer.abstained and answer.leading_confidence is not None and decide_lean(answer) != "maybe":
        return answer.leading_confidence
    return answer.confidence


async def ask_item(context: Context, question: tuple[str, dict]) -> Answer:
    """One question over its own contexts through the public API: what every worker of the sweep runs."""
    pmid, item = question
    return await aask(item["QUESTION"], mode="verify", documents=documents_of(pmid, item), context=context)


def score(items: dict[str, dict], answered: list[Answered], rule: Rule | None = None) -> dict[str, Any]:
    """The table's results from each question's answer (in the file's order)."""
    answers = [a.answer for a in answered]
    gold, predicted, strict, confidences, strict_confidences = [], [], [], [], []
    faithfulness, gate_declined = [], 0
    for item, answer in zip(items.values(), answers):
        gold.append(item["final_decision"])
        predicted.append(decide_lean(answer))
        strict.append(decide_strict(answer))
        confidences.append(lean_confidence(answer))
        strict_confidences.append(answer.confidence)
        gate_declined += bool(answer.relevance) and not answer.relevance["relevant"]
        if answer.faithfulness is not None:
            faithfulness.append(answer.faithfulness)
    elapsed = sum(a.seconds for a in answered)
    correct = [g == p for g, p in zip(gold, predicted)]
    ece, brier = calibration(confidences, correct)
    ece_strict, brier_strict = calibration(strict_confidences, [g == p for g, p in zip(gold, strict)])
    confusion = confusion_of(gold, predicted, LABELS)
    by_rule = {}
    if rule is not None:
        ruled = [rule.decide(*evidence_of(answer.model_dump())) for answer in answers]
        by_rule = {
            "accuracy_rule": sum(g == p for g, p in zip(gold, ruled)) / len(gold) if gold else 0.0,
            "macro_f1_rule": macro_f1(gold, ruled, LABELS),
            "confusion_rule": confusion_of(gold, ruled, LABELS),
        }
    return {
        "questions": len(gold),
        "accuracy": sum(correct) / len(gold) if gold else 0.0,
        "macro_f1": macro_f1(gold, predicted, LABELS),
        "accuracy_strict": sum(g == p for g, p in zip(gold, strict)) / len(gold) if gold else 0.0,
        "macro_f1_strict": macro_f1(gold, strict, LABELS),
        "ece": ece,
        "brier": brier,
        "ece_strict": ece_strict,
        "brier_strict": brier_strict,
        "questions_per_second": len(gold) / elapsed if elapsed else 0.0,
        "majority_baseline": max(gold.count(label) for label in LABELS) / len(gold) if gold else 0.0,
        **selective([g == p for g, p in zip(gold, strict)], [p != "maybe" for p in strict]),
        "declined_by_relevance_gate": gate_declined,
        "faithfulness": sum(faithfulness) / len(faithfulness) if faithfulness else None,
        "stated": per_class_report(gold, strict, LABELS, "yes"),
        "lean_rule": per_class_report(gold, predicted, LABELS, "yes"),
        "confusion": confusion,
        **by_rule,
        **chat_model_usage(answers),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.pubmedqa", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", required=True, type=Path, help="PQA-L JSON (PMID -> QUESTION, CONTEXTS, final_decision)"
    )
    parser.add_argument(
        "--split",
        choices=("all", "heldout"),
        default="all",
        help="all: the whole file; heldout: the odd-PMID questions no training run uses",
    )
    parser.add_argument("--limit", type=int)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    add_sweep_arguments(parser)
    parser.add_argument(
        "--rule",
        type=Path,
        metavar="FILE",
        help="also score a yes / no / maybe rule `evals.pubmedqa_rule --write` stored",
    )
    add_llm_arguments(parser)
    args = parser.parse_args(argv)
    try:
        rule = load_rule(args.rule) if args.rule else None
    except (OSError, ValueError) as exc:
        parser.exit(2, f"evals.pubmedqa: --rule {args.rule}: {exc}\n")
    items = json.loads(args.data.read_text())
    if args.split == "heldout":
        items = {pmid: item for pmid, item in items.items() if pubmedqa_split(pmid) == "heldout"}
    if args.limit:
        items = dict(list(items.items())[: args.limit])
    overrides = {"max_claims": 0, **llm_overrides(args), **parse_overrides(args.set)}
    context = context_or_exit(parser, preset=args.preset, **overrides)
    config = {"preset": args.preset, "split": args.split, "overrides": overrides}
    fingerprint = {**config, "eval": parser.prog, "data": str(args.data.resolve()), "code": code_version()}
    answered = sweep_or_exit(parser, args, ask_item, context, list(items.items()), list(items), fingerprint)
    good_items, good = scored(list(items.items()), answered)
    results = {**score(dict(good_items), good, rule), **error_rows(answered)}
    confusions = ("confusion", "confusion_rule")
    confusion_last = {k: v for k, v in results.items() if k not in confusions} | {
        k: results[k] for k in confusions if k in results
    }
    publish(f"PubMedQA PQA-L reasoning-required, {results['questions']} questions", confusion_last, config, args.json)
    return exit_code(answered)


if __name__ == "__main__":
    raise SystemExit(main())
