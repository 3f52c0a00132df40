r"""SciFact, open setting: for each claim, retrieve from the whole corpus, predict evidence abstracts and a
label through the public API (`agent.averify`), and score with SciFact's abstract-level label-only
precision / recall / F1 (plus rationale selection where sentences are selected, claim-level accuracy,
calibration and speed).

    python -m evals.scifact --claims ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl

On claims_train the default split is the fixed hold-out that the stance model never saw (see
benchmarks/splits.py: claim groups containing an id % 5 == 0); `--split all` scores every claim.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from agent import Context, averify
from agent.llm_flags import add_llm_arguments, llm_overrides
from benchmarks.cli import parse_overrides
from benchmarks.metrics import calibration, prf, selective
from benchmarks.questions import gold_of, load_claims
from evals.report import chat_model_usage, publish, read_or_exit, write_answers

LABELS = ("SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO")


def predictions_of(answer: Any, max_docs: int = 1) -> tuple[dict[str, str], dict[str, set[int]]]:
    """Evidence abstracts for the verdict: docs whose ledger entries for the claim carry the verdict's stance,
    strongest contribution (confidence x weight, what the court ranks by) first."""
    if answer.verdict not in ("SUPPORT", "CONTRADICT"):
        return {}, {}
    claim_h = next((h.id for h in answer.hypotheses if h.polarity > 0), None)
    strength: dict[str, float] = {}
    sentences: dict[str, set[int]] = {}
    for entry in answer.ledger:
        if entry.hypothesis_id == claim_h and entry.stance == answer.verdict:
            strength[entry.record_id] = max(strength.get(entry.record_id, 0.0), entry.confidence * entry.weight)
            if entry.sentence_index is not None:  # a window's entry covers all its sentences
                sentences.setdefault(entry.record_id, set()).update(range(entry.sentence_index, entry.sentence_end or entry.sentence_index + 1))
    top = sorted(strength, key=lambda d: -strength[d])[:max_docs]
    return {d: answer.verdict for d in top}, {d: sentences.get(d, set()) for d in top}


async def evaluate(claims: list[dict], context: Context, max_docs: int = 1, answers_path: Path | None = None) -> dict[str, Any]:
    answers = []
    correct_docs = predicted_docs = gold_docs = 0
    correct_sents = predicted_sents = gold_sents = 0
    claim_correct, confidences, seconds = [], [], []
    answered, evidence_answered, gate_declined, faithfulness = [], [], 0, []
    for claim in claims:
        gold_labels, gold_sentences, gold_claim = gold_of(claim)
        started = time.perf_counter()
        answer = await averify(claim["claim"], context=context)
        seconds.append(time.perf_counter() - started)
        answers.append(answer)
        labels, sentences = predictions_of(answer, max_docs)
        predicted_docs += len(labels)
        gold_docs += len(gold_labels)
        gold_sents += sum(len(s) for s in gold_sentences.values())
        for doc, label in labels.items():
            hit = gold_labels.get(doc) == label
            correct_docs += hit
            predicted_sents += len(sentences[doc])
            if hit:
                correct_sents += len(sentences[doc] & gold_sentences[doc])
        verdict = answer.verdict or "NOT_ENOUGH_INFO"
        claim_correct.append(verdict == gold_claim)
        confidences.append(answer.confidence)
        answered.append(verdict != "NOT_ENOUGH_INFO")
        if gold_claim != "NOT_ENOUGH_INFO":
            evidence_answered.append(verdict != "NOT_ENOUGH_INFO")
        gate_declined += bool(answer.relevance) and not answer.relevance["relevant"]
        if answer.faithfulness is not None:
            faithfulness.append(answer.faithfulness)
    p, r, f = prf(correct_docs, predicted_docs, gold_docs)
    sp, sr, sf = prf(correct_sents, predicted_sents, gold_sents)
    ece, brier = calibration(confidences, claim_correct)
    total = sum(seconds)
    write_answers(answers_path, answers)
    return {
        "claims": len(claims),
        "abstract_label_precision": p, "abstract_label_recall": r, "abstract_label_f1": f,
        "rationale_precision": sp, "rationale_recall": sr, "rationale_f1": sf,
        "claim_label_accuracy": sum(claim_correct) / len(claims) if claims else 0.0,
        **selective(claim_correct, answered),
        "evidence_claims_answered": sum(evidence_answered) / len(evidence_answered) if evidence_answered else 0.0,
        "declined_by_relevance_gate": gate_declined,
        "faithfulness": statistics.mean(faithfulness) if faithfulness else None,
        "ece": ece, "brier": brier,
        "claims_per_second": len(claims) / total if total else 0.0,
        "seconds_per_claim_mean": statistics.mean(seconds) if seconds else 0.0,
        "seconds_per_claim_p95": sorted(seconds)[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
        **chat_model_usage(answers),
    }


def claims_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The options every SciFact eval takes: claims, corpus, split, limit, preset, overrides, --json."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--claims", required=True, type=Path)
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--split", choices=["heldout", "val", "all"], default="heldout",
                        help="heldout: the stance models' fixed hold-out; val: their validation part, for "
                            "tuning (claims_train only)")
    parser.add_argument("--limit", type=int, help="first N items of the split")
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="context override, e.g. stance_model=heuristic (ablations)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--answers", type=Path, metavar="FILE", help="write each run's Answer as one JSON line (what the model did, question by question)")
    add_llm_arguments(parser)
    return parser


def corpus_context(args: argparse.Namespace) -> tuple[Context, dict[str, Any]]:
    """The run context over the given corpus (answer-claim verification off unless overridden) and its overrides."""
    overrides = {"max_claims": 0, **llm_overrides(args), **parse_overrides(args.set)}
    return Context(preset=args.preset, corpus_path=str(args.corpus.resolve()), **overrides), overrides


def main(argv: list[str] | None = None) -> int:
    parser = claims_parser("python -m evals.scifact", __doc__.split("\n\n")[0])
    parser.add_argument("--max-docs", type=int, default=1, help="evidence abstracts predicted per claim (strongest first)")
    args = parser.parse_args(argv)
    claims = read_or_exit(parser, lambda: load_claims(args.claims, args.split, args.limit))
    context, overrides = corpus_context(args)
    results = asyncio.run(evaluate(claims, context, args.max_docs, args.answers))
    config = {"split": args.split, "preset": args.preset, "overrides": overrides, "max_docs": args.max_docs}
    publish(f"SciFact open setting, {results['claims']} claims ({args.split})", results, config, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
