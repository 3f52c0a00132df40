r"""Pair-level stance eval: how well the judge a context selects reads (statement, passage) pairs.

    python -m evals.stance --data ../shared/data/healthver/healthver_dev.csv --json
    python -m evals.stance --data ../shared/data/stance/check_covid/dev/covidCheck_dev_composed+extracted.json --json
    python -m evals.stance --data ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl --split heldout
    python -m evals.stance --data ../shared/data/stance/clinifact/validation_set.csv --set stance_model=heuristic \
        --limit 200

The format (HealthVer CSV, CliniFact CSV, SciFact / MultiVerS claims JSONL with a corpus, Check-COVID JSON lines
with its corpus.json) is detected from the content (benchmarks/formats.py says how each becomes pairs). Prints a
table and, with --json, one JSON line: macro_f1, accuracy, per-label precision / recall / F1, pairs,
pairs_per_second. `--split` applies to SciFact's claims_train only: the judges' fixed hold-out (default there),
their validation part, or all claims. A pair the judge fails on (an exception) does not end the eval: its batch is
judged again pair by pair, the pair that fails is left out of the scores and counted (`errors`, `failed_items`), and the
exit code is 1 (evals/failures.py's codes).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agent import stance_judge
from agent.records import STANCE_LABELS
from benchmarks.cli import parse_overrides, print_table
from benchmarks.formats import FormatError, LabelledPair, read_jsonl, read_pairs
from benchmarks.metrics import confusion as confusion_of
from benchmarks.metrics import prf
from benchmarks.splits import scifact_splits
from evals.failures import FAILED, SHOWN
from evals.report import print_json

BATCH = 256


def score(gold: list[str], predicted: list[str]) -> dict[str, Any]:
    """Accuracy, macro-F1 over the three labels, per-label precision / recall / F1 and the confusion counts."""
    results: dict[str, Any] = {
        "pairs": len(gold),
        "accuracy": sum(g == p for g, p in zip(gold, predicted)) / len(gold) if gold else 0.0,
    }
    f1s = []
    for label in STANCE_LABELS:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        p, r, f = prf(tp, sum(p == label for p in predicted), sum(g == label for g in gold))
        results.update({f"{label.lower()}_precision": p, f"{label.lower()}_recall": r, f"{label.lower()}_f1": f})
        f1s.append(f)
    results["macro_f1"] = sum(f1s) / len(f1s)
    results["confusion"] = confusion_of(gold, predicted, STANCE_LABELS)
    return results


async def judge_pairs(judge: Any, pairs: list[LabelledPair]) -> tuple[list[str | None], float, dict[int, str]]:
    """The judge's label for every pair (batched; None for a pair it failed on), the seconds it took, and the errors
    by pair index."""
    predicted: list[str | None] = []
    errors: dict[int, str] = {}
    await _judged(judge, pairs[:1])  # load the model before the clock starts (a failure here is met again below)
    started = time.perf_counter()
    for start in range(0, len(pairs), BATCH):
        labels, failed = await _judged(judge, pairs[start : start + BATCH])
        predicted += labels
        errors |= {start + i: kind for i, kind in failed.items()}
    return predicted, time.perf_counter() - started, errors


async def _judged(judge: Any, batch: list[LabelledPair]) -> tuple[list[str | None], dict[int, str]]:
    """A batch's labels; a batch that raises is judged again pair by pair, so one bad pair costs only itself (its
    label None, its error's kind by its index in the batch)."""
    try:
        return [r.stance for r in await judge.judge([(p.statement, p.passage) for p in batch])], {}
    except Exception:
        labels: list[str | None] = []
        errors: dict[int, str] = {}
        for i, pair in enumerate(batch):
            try:
                labels.append((await judge.judge([(pair.statement, pair.passage)]))[0].stance)
            except Exception as exc:
                labels.append(None)
                errors[i] = type(exc).__name__
        return labels, errors


def scifact_split(path: Path, fmt: str, pairs: list[LabelledPair], split: str) -> list[LabelledPair]:
    """SciFact claims_train pairs of one split of benchmarks/splits.py's rule (other files pass through)."""
    if fmt != "multivers_jsonl":
        return pairs
    claims = read_jsonl(path)
    if split == "all" or not claims or "cited_doc_ids" not in claims[0]:
        return pairs
    splits = scifact_splits(claims)
    return [p for p in pairs if splits.get(int(p.group)) == split]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.stance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="labelled file (format detected from its content)")
    parser.add_argument(
        "--corpus", type=Path, help="corpus for SciFact/MultiVerS or Check-COVID claims (default: beside the file)"
    )
    parser.add_argument(
        "--split", choices=["heldout", "val", "all"], default="heldout", help="SciFact claims_train only"
    )
    parser.add_argument("--limit", type=int, help="first N pairs")
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="context override, e.g. stance_model=heuristic"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        fmt, pairs = read_pairs(args.data, args.corpus)
    except (FormatError, OSError) as exc:
        parser.exit(2, f"evals.stance: {exc}\n")
    pairs = scifact_split(args.data, fmt, pairs, args.split)
    pairs = pairs[: args.limit] if args.limit else pairs
    if not pairs:
        parser.exit(2, f"evals.stance: no labelled pairs in {args.data}\n")
    overrides = parse_overrides(args.set)
    judge = stance_judge(**overrides)
    predicted, seconds, errors = asyncio.run(judge_pairs(judge, pairs))
    judged = [(pair.label, label) for pair, label in zip(pairs, predicted) if label is not None]
    results = score([gold for gold, _ in judged], [label for _, label in judged])
    results["pairs_per_second"] = len(judged) / seconds if seconds else 0.0
    results |= error_rows(pairs, errors)
    confusion = results.pop("confusion")
    config = {
        "data": args.data.name,
        "format": fmt,
        "judge": judge.name,
        "overrides": overrides,
        "split": args.split if fmt == "multivers_jsonl" else "all",
    }
    print_table(f"Stance, {len(judged)} pairs of {args.data.name}, {config}", list(results.items()))
    print_confusion(confusion)
    if args.json:
        print_json({**results, **config, "gold": dict(Counter(gold for gold, _ in judged)), "confusion": confusion})
    return FAILED if errors else 0


def error_rows(pairs: list[LabelledPair], errors: dict[int, str]) -> dict[str, Any]:
    """The table's rows on the pairs the judge failed on: how many, and which (pair index, its claim group, the
    error's kind; the first SHOWN)."""
    rows: dict[str, Any] = {"errors": len(errors)}
    if errors:
        named = [f"pair {i} of {pairs[i].group or 'no group'} ({kind})" for i, kind in list(errors.items())[:SHOWN]]
        rows["failed_items"] = ", ".join(named) + (f" and {len(errors) - SHOWN} more" if len(errors) > SHOWN else "")
    return rows


def print_confusion(confusion: dict[str, int]) -> None:
    """Gold labels as rows, predictions as columns."""
    print("\n" + "gold / predicted".ljust(18) + "".join(f"{label:>12}" for label in STANCE_LABELS))
    for gold in STANCE_LABELS:
        print(f"{gold:<18}" + "".join(f"{confusion[f'{gold}->{p}']:>12}" for p in STANCE_LABELS))


if __name__ == "__main__":
    raise SystemExit(main())
