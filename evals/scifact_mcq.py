r"""SciFact as multiple choice: which of two statements does the literature support?

    python -m evals.scifact_mcq --claims ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl

Each question pairs a claim that an abstract SUPPORTS with a claim that the same abstract CONTRADICTS (SciFact's
annotators wrote most contradicting claims by negating or reversing a supported one), so exactly one option is
right and the evidence for both sits in the corpus. The run goes through the MCQ path of the public API
(`agent.aask` with two options) over the whole 5,183-abstract corpus; the system may also abstain ("insufficient
evidence"). Scored as LitQA2 scores: accuracy = right / all questions, precision = right / answered, coverage =
answered / all. Option order alternates by pair so that always picking the first option scores 0.5.
"""

from __future__ import annotations

import statistics
from typing import Any

from agent import Context, aask
from agent.records import Answer
from benchmarks.metrics import calibration
from benchmarks.questions import contrast_pairs, load_claims, question_of
from evals.failures import error_rows, exit_code, scored
from evals.report import chat_model_usage, publish, read_or_exit
from evals.scifact import claims_parser, corpus_context, data_settings
from evals.sweep import Answered, sweep_or_exit

QUESTION = "Which statement does the published evidence support?"


async def ask_question(context: Context, question: tuple[list[str], int]) -> Answer:
    """One two-option question through the public API: what every worker of the sweep runs."""
    options, _ = question
    return await aask(QUESTION, options=options, context=context)


def score(questions: list[tuple[list[str], int]], answered: list[Answered]) -> dict[str, Any]:
    """The table's results from each question's answer (in question order)."""
    answers = [a.answer for a in answered]
    correct = [answer.selected_option == gold for (_, gold), answer in zip(questions, answers)]
    given = sum(answer.selected_option is not None for answer in answers)
    right = sum(correct)
    n = len(questions)
    ece, brier = calibration([answer.confidence for answer in answers], correct)
    return {
        "questions": n,
        "accuracy": right / n if n else 0.0,
        "precision": right / given if given else 0.0,
        "coverage": given / n if n else 0.0,
        "ece": ece,
        "brier": brier,
        "seconds_per_question": statistics.mean(a.seconds for a in answered) if answered else 0.0,
        **chat_model_usage(answers),
    }


def main(argv: list[str] | None = None) -> int:
    """Both claims of a pair always fall in the same split (claims sharing an abstract are grouped)."""
    parser = claims_parser("python -m evals.scifact_mcq", __doc__.split("\n\n")[0])
    args = parser.parse_args(argv)
    pairs = contrast_pairs(read_or_exit(parser, lambda: load_claims(args.claims, args.split)))[: args.limit]
    context, overrides = corpus_context(parser, args)
    config = {"split": args.split, "preset": args.preset, "overrides": overrides}
    questions = [question_of(i, supported, contradicted) for i, (supported, contradicted) in enumerate(pairs)]
    ids = [f"{supported['id']}/{contradicted['id']}" for supported, contradicted in pairs]
    fingerprint = {**config, **data_settings(parser.prog, args)}
    answered = sweep_or_exit(parser, args, ask_question, context, questions, ids, fingerprint)
    results = {**score(*scored(questions, answered)), **error_rows(answered)}
    publish(f"SciFact two-option MCQ, {results['questions']} questions ({args.split})", results, config, args.json)
    return exit_code(answered)


if __name__ == "__main__":
    raise SystemExit(main())
