"""Reading check: a floor under the stance judge on pairs that turn on one reading skill each.

    python -m evals.reading_check [--set stance_model=heuristic] [--errors] [--json]

The pairs are the project's own (evals/data/reading_check.jsonl: statement, passage, label, category), written
by hand across cardiology, oncology, infectious disease, nutrition, pharmacology, genetics, neuroscience,
chemistry, physics and ecology. Each category isolates one thing a careful reader gets right: a plain supporting
result, negation, the direction of an effect, the order of a comparison, a ratio and its confidence interval, a
null result against a claimed effect, hedges and aims (NEUTRAL), the same entity with another outcome or a
related entity (NEUTRAL), a changed subject whose result still bears on the claim, and requirement against
dispensability. The judge is the one the settings select (`agent.stance_judge`, as evals.stance builds it).
Prints accuracy overall and per category, macro-F1 and the confusion matrix; with --json, one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from agent import stance_judge
from agent.errors import InputError
from agent.records import Stance
from benchmarks.cli import parse_overrides, print_table
from benchmarks.formats import LabelledPair, read_jsonl
from evals.report import print_json, read_or_exit
from evals.stance import judge_pairs, print_confusion, score

DATA = Path(__file__).resolve().parent / "data" / "reading_check.jsonl"

Category = Literal[
    "plain_support",
    "negation",
    "direction",
    "comparative",
    "ratio",
    "no_difference",
    "hedge",
    "off_target",
    "subject_change",
    "requirement",
]
CATEGORIES: tuple[str, ...] = get_args(Category)


class CheckPair(BaseModel):
    """One hand-written (statement, passage) pair with its gold stance and the reading skill it tests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    statement: str
    passage: str
    label: Stance
    category: Category


def load_pairs(path: Path = DATA) -> list[CheckPair]:
    """The check set; a row that is not a well-formed pair is an InputError naming the file and line."""
    pairs = []
    for number, row in enumerate(read_jsonl(path), 1):
        try:
            pair = CheckPair.model_validate(row)
        except ValidationError as exc:
            raise InputError(f"{path} line {number}: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}") from None
        if not (pair.statement.strip() and pair.passage.strip()):
            raise InputError(f"{path} line {number}: a pair needs a non-empty statement and passage")
        pairs.append(pair)
    return pairs


def evaluate(pairs: list[CheckPair], predicted: list[str]) -> dict[str, Any]:
    """evals.stance's scores over all pairs, plus accuracy and size of every category (in CATEGORIES order)."""
    results = score([p.label for p in pairs], predicted)
    for category in CATEGORIES:
        hits = [p.label == guess for p, guess in zip(pairs, predicted) if p.category == category]
        if hits:
            results[f"accuracy/{category}"] = sum(hits) / len(hits)
            results[f"pairs/{category}"] = len(hits)
    return results


def print_errors(pairs: list[CheckPair], predicted: list[str]) -> None:
    """Every misread pair, by category: what to look at when a category's accuracy drops."""
    print("\nmisread pairs (category: gold -> predicted)")
    for pair, guess in zip(pairs, predicted):
        if pair.label != guess:
            print(f"  {pair.category}: {pair.label} -> {guess}\n    S: {pair.statement}\n    P: {pair.passage}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.reading_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="check set (default: evals/data/reading_check.jsonl)")
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="context override, e.g. stance_model=heuristic"
    )
    parser.add_argument("--errors", action="store_true", help="list the misread pairs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    pairs = read_or_exit(parser, lambda: load_pairs(args.data))
    if not pairs:
        parser.exit(2, f"{parser.prog}: no pairs in {args.data}\n")
    overrides = parse_overrides(args.set)
    judge = stance_judge(**overrides)
    labels, _, errors = asyncio.run(
        judge_pairs(judge, [LabelledPair(p.statement, p.passage, p.label, p.category) for p in pairs])
    )
    if errors:  # every pair of the check is scored, or none
        first = min(errors)
        parser.exit(1, f"{parser.prog}: the judge failed on {len(errors)} pairs (pair {first}: {errors[first]})\n")
    predicted = [label or "" for label in labels]
    results = evaluate(pairs, predicted)
    confusion = results.pop("confusion")
    config = {"data": args.data.name, "judge": judge.name, "overrides": overrides}
    shown = [(k, v) for k, v in results.items() if not k.startswith("pairs/")]
    print_table(f"Reading check, {len(pairs)} pairs, {config}", shown)
    print_confusion(confusion)
    if args.errors:
        print_errors(pairs, predicted)
    if args.json:
        print_json({**results, **config, "gold": dict(Counter(p.label for p in pairs)), "confusion": confusion})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
