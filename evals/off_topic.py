r"""Off-topic questions: does the system decline what its evidence does not address?

    python -m evals.off_topic \
        --corpus ../shared/data/scifact/corpus.jsonl [--split heldout|fit|all] [--documents aspirin]

The questions are the project's own (evals/data/off_topic.jsonl: physics, chemistry, mathematics, computer
science, earth science, everyday facts, and biology the SciFact corpus does not cover); `heldout` is the part
the relevance gate was not fitted on. Each goes through the public API (`agent.aask`) over the corpus, or with
`--documents aspirin` over a one-record aspirin corpus (the `--documents` case). Every answer here is wrong, so
selective accuracy is: declined share (the right outcome), coverage = answered share, precision when
answering = 0 by construction; `declined_by_relevance_gate` says how many the gate declined before the court.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from agent import Context, aask
from agent.records import Answer
from benchmarks.cli import parse_overrides
from benchmarks.questions import ASPIRIN, load_off_topic
from evals.failures import error_rows, exit_code, scored
from evals.report import context_or_exit, publish
from evals.sweep import Answered, add_sweep_arguments, code_version, sweep_or_exit


async def ask_question(context: Context, item: dict) -> Answer:
    """One question through the public API, over the corpus or the item's documents: what every worker runs."""
    return await aask(item["question"], documents=item.get("documents"), context=context)


def score(questions: list[dict], answered: list[Answered]) -> dict[str, Any]:
    """The table's results from each question's answer (in question order)."""
    declined, gate, by_domain = 0, 0, {}
    for item, answer in zip(questions, (a.answer for a in answered)):
        refused = answer.status.value == "INSUFFICIENT_EVIDENCE"
        declined += refused
        gate += bool(answer.relevance) and not answer.relevance["relevant"]
        hits, total = by_domain.get(item["domain"], (0, 0))
        by_domain[item["domain"]] = (hits + refused, total + 1)
    n = len(questions)
    return {
        "questions": n,
        "declined": declined / n if n else 0.0,
        "coverage": (n - declined) / n if n else 0.0,
        "precision_when_answering": 0.0,
        "declined_by_relevance_gate": gate,
        **{f"declined/{domain}": round(h / t, 4) for domain, (h, t) in sorted(by_domain.items())},
        "seconds_per_question": statistics.mean(a.seconds for a in answered) if answered else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.off_topic", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--split", choices=("heldout", "fit", "all"), default="heldout")
    parser.add_argument(
        "--documents", choices=("aspirin",), help="answer from a one-record aspirin corpus instead of the corpus"
    )
    parser.add_argument("--limit", type=int)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    add_sweep_arguments(parser)
    args = parser.parse_args(argv)
    questions = [q for q in load_off_topic() if args.split == "all" or q["split"] == args.split][: args.limit]
    overrides = {"max_claims": 0, **parse_overrides(args.set)}
    context = context_or_exit(parser, preset=args.preset, corpus_path=str(args.corpus.resolve()), **overrides)
    config = {"split": args.split, "documents": args.documents, "preset": args.preset, "overrides": overrides}
    fingerprint = {**config, "eval": parser.prog, "corpus": str(args.corpus.resolve()), "code": code_version()}
    items = [{**q, "documents": ASPIRIN if args.documents else None} for q in questions]
    answered = sweep_or_exit(parser, args, ask_question, context, items, [q["id"] for q in questions], fingerprint)
    results = {**score(*scored(questions, answered)), **error_rows(answered)}
    publish(f"Off-topic questions, {results['questions']} ({args.split})", results, config, args.json)
    return exit_code(answered)


if __name__ == "__main__":
    raise SystemExit(main())
