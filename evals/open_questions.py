r"""Open questions: does the answer line state what the question asks, from the abstract that answers it?

    python -m evals.open_questions --claims ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl [--split tune|heldout|all]

SciFact has claims, PubMedQA yes / no questions and the MCQ eval two options; none asks "What ...?" or "How ...?",
the questions an open answer is for. evals/data/open_questions.jsonl holds the project's own wh-questions, each
written from one SciFact training claim with evidence so that the claim's gold abstracts answer it ("What is the
effect of folate deficiency on blood homocysteine?" from "A deficiency of folate increases blood levels of
homocysteine."): `tune` from claims of the stance models' validation part, `heldout` from their hold-out.

Per question, through the public API over the corpus:
- answered: the run gave an answer (status ANSWERED), not "insufficient evidence";
- headline_on_gold: the records the answer line cites include a gold abstract (precision when answering);
- headline_is_rationale: the answer line states one of the gold rationale sentences (content words, Jaccard >= 0.5);
- cites_gold: some citation of the answer is a gold abstract;
- gold_in_court: the court weighed a passage of a gold abstract (whether retrieval reached it at all).
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path
from typing import Any

from agent import Context, aask
from agent.common.text import jaccard
from agent.errors import InputError
from agent.records import Answer
from benchmarks.cli import parse_overrides
from benchmarks.formats import read_corpus, read_jsonl
from benchmarks.metrics import selective
from benchmarks.questions import gold_of
from evals.failures import error_rows, exit_code, scored
from evals.report import context_or_exit, publish, read_or_exit
from evals.sweep import add_sweep_arguments, code_version, sweep_or_exit

QUESTIONS = Path(__file__).parent / "data" / "open_questions.jsonl"
_CITED = re.compile(r"\[([^\[\]]+)\]")
RATIONALE_JACCARD = 0.5


def load_questions(split: str, claims_path: Path) -> list[dict]:
    """The split's questions, each with its claim's gold abstracts (`gold`) and their rationale sentences
    (`rationales`)."""
    claims = {c["id"]: c for c in read_jsonl(claims_path)}
    items = []
    for item in read_jsonl(QUESTIONS):
        if split != "all" and item["split"] != split:
            continue
        if item["scifact_claim"] not in claims:
            raise InputError(
                f"{claims_path} has no claim {item['scifact_claim']} ({item['id']}): give claims_train.jsonl"
            )
        _, sentences, _ = gold_of(claims[item["scifact_claim"]])
        items.append(
            {**item, "gold": sorted(sentences), "rationales": {doc: sorted(ids) for doc, ids in sentences.items()}}
        )
    return items


def headline_ids(answer_line: str) -> list[str]:
    """The record ids the answer line cites ('... [27446873, 123]' -> ['27446873', '123'])."""
    return [rid.strip() for group in _CITED.findall(answer_line) for rid in group.split(",") if rid.strip()]


def score(item: dict, answer: Any, corpus: dict[str, list[str]]) -> dict[str, bool]:
    """The per-question outcomes the docstring lists."""
    gold = set(item["gold"])
    line = _CITED.sub("", answer.answer)
    rationales = [
        corpus[doc][i] for doc, ids in item["rationales"].items() for i in ids if doc in corpus and i < len(corpus[doc])
    ]
    return {
        "answered": answer.status.value == "ANSWERED",
        "headline_on_gold": bool(gold & set(headline_ids(answer.answer))),
        "headline_is_rationale": any(jaccard(line, sentence) >= RATIONALE_JACCARD for sentence in rationales),
        "cites_gold": bool(gold & {c.id for c in answer.citations}),
        "gold_in_court": bool(gold & {e.record_id for e in answer.ledger}),
    }


def summarise(outcomes: list[dict[str, bool]], seconds: list[float]) -> dict[str, Any]:
    answered = [o["answered"] for o in outcomes]
    given = [o for o in outcomes if o["answered"]]
    share = lambda key, among: sum(o[key] for o in among) / len(among) if among else 0.0  # noqa: E731
    return {
        "questions": len(outcomes),
        **selective([o["answered"] and o["headline_on_gold"] for o in outcomes], answered),
        "headline_is_rationale_when_answering": share("headline_is_rationale", given),
        "cites_gold_when_answering": share("cites_gold", given),
        "gold_in_court": share("gold_in_court", outcomes),
        "seconds_per_question": statistics.mean(seconds) if seconds else 0.0,
    }


async def ask_question(context: Context, item: dict) -> Answer:
    """One question through the public API over the corpus: what every worker of the sweep runs."""
    return await aask(item["question"], context=context)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.open_questions", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--claims",
        required=True,
        type=Path,
        help="SciFact claims_train.jsonl (the gold abstracts of each question's claim)",
    )
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    add_sweep_arguments(parser)
    args = parser.parse_args(argv)
    items = read_or_exit(parser, lambda: load_questions(args.split, args.claims))[: args.limit]
    # what the rationale indices point into
    corpus = read_or_exit(parser, lambda: {doc: entry["sentences"] for doc, entry in read_corpus(args.corpus).items()})
    overrides = {"max_claims": 0, **parse_overrides(args.set)}
    context = context_or_exit(parser, preset=args.preset, corpus_path=str(args.corpus.resolve()), **overrides)
    config = {"split": args.split, "preset": args.preset, "overrides": overrides}
    fingerprint = {
        **config,
        "eval": parser.prog,
        "claims": str(args.claims.resolve()),
        "corpus": str(args.corpus.resolve()),
        "code": code_version(),
    }
    answered = sweep_or_exit(parser, args, ask_question, context, items, [item["id"] for item in items], fingerprint)
    good_items, good = scored(items, answered)
    outcomes = [score(item, a.answer, corpus) for item, a in zip(good_items, good)]
    results = {**summarise(outcomes, [a.seconds for a in good]), **error_rows(answered)}
    publish(f"Open questions, {results['questions']} ({args.split})", results, config, args.json)
    return exit_code(answered)


if __name__ == "__main__":
    raise SystemExit(main())
