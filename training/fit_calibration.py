r"""Fit the confidence calibration (agent/models/calibration.json) on SciFact validation claims.

    python -m training.fit_calibration --claims ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl

Runs every claim of the validation part (benchmarks/splits.py; the stance judges were not trained on it,
and the held-out part is left for evals/scifact.py) through the public API with the raw evidence score and
the eval's settings (preset `fast`, answer-claim verification off), then fits two one-feature logistic maps
from that score:

- leading: P(the court's leading answer is right), over every run with a leading hypothesis;
- abstention: P(NOT_ENOUGH_INFO is right), over the runs that abstained.

The maps hold for the stance judge they were fitted with, whose name is stored in the table. Prints the
in-sample reliability of both confidences and, by `--folds`-fold cross-validation over the same runs (each
claim's confidence from maps fitted on the other folds), their out-of-fold reliability; the held-out numbers
come from evals/scifact.py.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from agent import Context, averify
from agent.backend import backend_for
from agent.backend.judging_parts import judge_for
from agent.judges.cross import cross_weights_in_use, direction_weights_in_use, readers_in_use
from agent.judges.packaged import weights_digest
from agent.reasoners.extractive import winner
from agent.records import Answer
from agent.scoring.calibration import CalibrationTable, PlattScale, default_table_path, evidence_score
from agent.scoring.court import margin_of
from benchmarks.cli import commit, parse_overrides, print_table
from benchmarks.formats import read_jsonl
from benchmarks.metrics import calibration, stratified_folds
from benchmarks.questions import gold_of, load_claims


def row_of(claim: dict, answer: Answer, score: float) -> dict:
    """One run's row: the evidence score, the leading verdict, whether the run abstained, and the gold label."""
    best = winner(answer.hypotheses)
    return {
        "score": score,
        "lead": None if best is None else ("SUPPORT" if best.polarity > 0 else "CONTRADICT"),
        "abstained": answer.abstained,
        "verdict": answer.verdict or "NOT_ENOUGH_INFO",
        "gold": gold_of(claim)[2],
    }


async def observations(claims: list[dict], context: Context) -> list[dict]:
    """Per claim, run with the raw calibration: its row (`answer.confidence` is the evidence score)."""
    rows = []
    for claim in claims:
        answer = await averify(claim["claim"], context=context)
        rows.append(row_of(claim, answer, answer.confidence))
    return rows


def observations_from_answers(claims: list[dict], answers: list[dict]) -> list[dict]:
    """The same rows from a finished eval's answers (`evals.scifact --split val --answers FILE`, the claims in the
    split's order): the raw evidence score is a function of what an Answer records (its hypotheses' scores, claims and
    ledger), so it is recomputed rather than run again."""
    if len(claims) != len(answers):
        raise SystemExit(
            f"{len(answers)} answers for {len(claims)} claims: use the answers of the validation split, in its order"
        )
    rows = []
    for claim, raw in zip(claims, answers, strict=True):
        answer = Answer.model_validate(raw)
        score = evidence_score(
            margin_of([h.score for h in answer.hypotheses]) if answer.hypotheses else None,
            answer.hypotheses,
            answer.claims,
            answer.ledger,
        )
        rows.append(row_of(claim, answer, score))
    return rows


def platt(scores: list[float], outcomes: list[bool]) -> PlattScale:
    """A weakly regularised one-feature logistic regression."""
    model = LogisticRegression(C=100.0).fit(np.array(scores).reshape(-1, 1), np.array(outcomes, dtype=int))
    return PlattScale(slope=round(float(model.coef_[0][0]), 4), intercept=round(float(model.intercept_[0]), 4))


def fitted_maps(rows: list[dict]) -> tuple[PlattScale, PlattScale]:
    """(leading, abstention) maps from these runs; ValueError when a map lacks right or wrong outcomes."""
    led = [r for r in rows if r["lead"]]
    abstained = [r for r in rows if r["abstained"]]
    if len({r["lead"] == r["gold"] for r in led}) < 2 or len({r["gold"] == "NOT_ENOUGH_INFO" for r in abstained}) < 2:
        raise ValueError("each map needs both right and wrong outcomes among the runs: use more claims")
    return (
        platt([r["score"] for r in led], [r["lead"] == r["gold"] for r in led]),
        platt([r["score"] for r in abstained], [r["gold"] == "NOT_ENOUGH_INFO" for r in abstained]),
    )


def confidence_of(row: dict, leading: PlattScale, abstention: PlattScale) -> float:
    return abstention(row["score"]) if row["abstained"] else leading(row["score"])


def out_of_fold(rows: list[dict], folds: int, seed: int = 0) -> list[float]:
    """Each run's calibrated confidence from maps fitted on the other folds (folds stratified by correctness)."""
    fold_of = stratified_folds([str(r["verdict"] == r["gold"]) + str(r["abstained"]) for r in rows], folds, seed)
    confidences = [0.0] * len(rows)
    for fold in range(folds):
        leading, abstention = fitted_maps([r for r, f in zip(rows, fold_of) if f != fold])
        for i, (row, f) in enumerate(zip(rows, fold_of)):
            if f == fold:
                confidences[i] = confidence_of(row, leading, abstention)
    return confidences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", required=True, type=Path)
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--limit", type=int, help="first N validation claims (quick check)")
    parser.add_argument("--out", type=Path, default=default_table_path())
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--folds", type=int, default=5, help="cross-validation folds for the out-of-fold reliability (0: skip)"
    )
    parser.add_argument(
        "--answers",
        type=Path,
        help="fit from this eval's answers (evals.scifact --split val --answers FILE, run with the "
        "same --set) instead of running the claims again",
    )
    parser.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="context override, e.g. stance_model=cross (the maps hold for that judge)",
    )
    args = parser.parse_args(argv)
    claims = load_claims(args.claims, "val", args.limit)
    context = Context(
        preset="fast",
        corpus_path=str(args.corpus.resolve()),
        max_claims=0,
        calibration="raw",
        **parse_overrides(args.set),
    )
    judge = (judge_for(context) if args.answers else backend_for(context).stance).name  # answers: no index to open
    rows = (
        observations_from_answers(claims, read_jsonl(args.answers))
        if args.answers
        else asyncio.run(observations(claims, context))
    )
    led = [r for r in rows if r["lead"]]
    abstained = [r for r in rows if r["abstained"]]
    try:
        leading, abstention = fitted_maps(rows)
        cross_validated = out_of_fold(rows, args.folds) if args.folds > 1 else None
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    table = CalibrationTable(
        stance_model=judge,
        stance_weights_sha256=weights_digest(cross_weights_in_use(context.judges.stance_weights)),
        direction_weights_sha256=weights_digest(direction)
        if (direction := direction_weights_in_use(context.judges.stance_direction_weights))
        else "",
        reader_weights_sha256=[weights_digest(path) for path in readers_in_use(context.judges.stance_readers)],
        leading=leading,
        abstention=abstention,
        fitted_on=f"SciFact claims_train validation part, {len(rows)} claims, preset fast, max_claims 0, judge {judge}",
        examples=len(rows),
        commit=commit(),
    )
    correct = [r["verdict"] == r["gold"] for r in rows]
    raw_ece, raw_brier = calibration([r["score"] for r in rows], correct)
    ece, brier = calibration([confidence_of(r, leading, abstention) for r in rows], correct)
    lines = [
        ("judge", judge),
        ("leading map", table.leading.model_dump()),
        ("abstention map", table.abstention.model_dump()),
        ("runs with a leading answer / abstained", f"{len(led)} / {len(abstained)}"),
        ("ECE raw -> fitted (in-sample)", f"{raw_ece:.3f} -> {ece:.3f}"),
        ("Brier raw -> fitted (in-sample)", f"{raw_brier:.3f} -> {brier:.3f}"),
    ]
    if cross_validated is not None:
        cv_ece, cv_brier = calibration(cross_validated, correct)
        lines += [(f"ECE / Brier out-of-fold ({args.folds}-fold)", f"{cv_ece:.3f} / {cv_brier:.3f}")]
    print_table(f"Calibration fitted on {len(rows)} validation claims", lines)
    if not args.no_write:
        args.out.write_text(table.model_dump_json(indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
