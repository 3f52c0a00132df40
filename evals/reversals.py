r"""Textbook findings and their reversals: does the reversal of a finding the corpus states plainly lean the other way?

    python -m evals.reversals --corpus ../shared/data/scifact/corpus.jsonl [--pairs evals/data/reversals.jsonl] [--json]

Each pair is a finding every textbook states ("Smoking increases the risk of lung cancer") and its reversal, written
for this check by the project (evals/data/reversals.jsonl; none is a benchmark's claim). Both go through the public
API (`agent.averify`) on the offline default. A system that reads direction says SUPPORT (or leans so) for the true
form and not for the false one; one that reads topic says SUPPORT for both. Scored: pairs whose false form leans
SUPPORT while the true form does (the target is none), pairs read both right (true SUPPORT, false CONTRADICT), and
each form's stated labels beside always-SUPPORT (right on every true form, wrong on every false one).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from agent import Context, averify
from benchmarks.formats import read_jsonl
from evals.report import context_or_exit, publish, read_or_exit
from evals.scifact import stated_label

PAIRS = Path(__file__).resolve().parent / "data" / "reversals.jsonl"


def score(pairs: list[dict[str, str]], stated: list[tuple[str, str]]) -> dict[str, Any]:
    """The check's results from each pair's (true form, false form) stated labels."""
    n = len(pairs)
    false_with_true = sum(t == "SUPPORT" and f == "SUPPORT" for t, f in stated)
    return {
        "pairs": n,
        "false_leans_support_where_true_does": false_with_true,
        "both_right": sum(t == "SUPPORT" and f == "CONTRADICT" for t, f in stated),
        "true_support": sum(t == "SUPPORT" for t, _ in stated),
        "false_contradict": sum(f == "CONTRADICT" for _, f in stated),
        "false_support": sum(f == "SUPPORT" for _, f in stated),
        "always_support_both_right": 0,
        "stated": [
            {"true": p["true"], "true_says": t, "false": p["false"], "false_says": f}
            for p, (t, f) in zip(pairs, stated, strict=True)
        ],
    }


async def ask_all(context: Context, pairs: list[dict[str, str]]) -> list[tuple[str, str]]:
    stated = []
    for pair in pairs:
        true_answer = await averify(pair["true"], context=context)
        false_answer = await averify(pair["false"], context=context)
        stated.append((stated_label(true_answer), stated_label(false_answer)))
    return stated


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.reversals", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    pairs = read_or_exit(parser, lambda: read_jsonl(args.pairs))
    bad = [k for k, p in enumerate(pairs) if not (isinstance(p, dict) and p.get("true") and p.get("false"))]
    if bad:
        parser.exit(2, f"{parser.prog}: --pairs line {bad[0] + 1} lacks a 'true' or a 'false' statement\n")
    context = context_or_exit(parser, preset=args.preset, corpus_path=str(args.corpus.resolve()), max_claims=0)
    stated = asyncio.run(ask_all(context, pairs))
    publish(f"Textbook findings and their reversals, {len(pairs)} pairs", score(pairs, stated), {}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
