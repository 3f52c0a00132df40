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
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from agent import Context, aask
from benchmarks.cli import parse_overrides
from benchmarks.questions import ASPIRIN, load_off_topic
from evals.report import publish


async def evaluate(questions: list[dict], context: Context, documents: list[dict] | None) -> dict[str, Any]:
    declined, gate, seconds, by_domain = 0, 0, [], {}
    for item in questions:
        started = time.perf_counter()
        answer = await aask(item["question"], documents=documents, context=context)
        seconds.append(time.perf_counter() - started)
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
        "seconds_per_question": statistics.mean(seconds) if seconds else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.off_topic", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--split", choices=("heldout", "fit", "all"), default="heldout")
    parser.add_argument("--documents", choices=("aspirin",), help="answer from a one-record aspirin corpus instead of the corpus")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    questions = [q for q in load_off_topic() if args.split == "all" or q["split"] == args.split][: args.limit]
    overrides = {"max_claims": 0, **parse_overrides(args.set)}
    context = Context(preset=args.preset, corpus_path=str(args.corpus.resolve()), **overrides)
    results = asyncio.run(evaluate(questions, context, ASPIRIN if args.documents else None))
    config = {"split": args.split, "documents": args.documents, "preset": args.preset, "overrides": overrides}
    publish(f"Off-topic questions, {results['questions']} ({args.split})", results, config, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
