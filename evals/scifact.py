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
import statistics
from pathlib import Path
from typing import Any

from agent import Context, averify
from agent.llm.flags import add_llm_arguments, llm_overrides
from agent.records import Answer
from benchmarks.cli import parse_overrides
from benchmarks.metrics import calibration, per_class_report, prf, selective
from benchmarks.questions import contrast_pairs, gold_of, load_claims
from evals.failures import error_rows, exit_code, scored
from evals.report import chat_model_usage, context_or_exit, publish, read_or_exit
from evals.sweep import Answered, add_sweep_arguments, code_version, sweep_or_exit

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
                sentences.setdefault(entry.record_id, set()).update(
                    range(entry.sentence_index, entry.sentence_end or entry.sentence_index + 1)
                )
    top = sorted(strength, key=lambda d: -strength[d])[:max_docs]
    return {d: answer.verdict for d in top}, {d: sentences.get(d, set()) for d in top}


def stated_of(verdict: str | None, abstained: bool) -> str:
    """What an answer states about the claim: its side when it answers or leans, else NOT_ENOUGH_INFO."""
    return verdict if verdict in ("SUPPORT", "CONTRADICT") and not abstained else "NOT_ENOUGH_INFO"


def stated_label(answer: Any) -> str:
    return stated_of(answer.verdict, answer.abstained)


def opposite_pairs(claims: list[dict], stated: list[str]) -> dict[str, Any]:
    """Pairs of claims about one abstract with opposite gold labels (a finding and its reversal): on how many both
    are read right, and on how many the two lean the same way (the reversal read like the finding)."""
    index = {c["id"]: k for k, c in enumerate(claims)}
    pairs = contrast_pairs(claims)
    both = sum(stated[index[s["id"]]] == "SUPPORT" and stated[index[c["id"]]] == "CONTRADICT" for s, c in pairs)
    same = sum(stated[index[s["id"]]] == stated[index[c["id"]]] != "NOT_ENOUGH_INFO" for s, c in pairs)
    return {
        "opposite_pairs": len(pairs),
        "opposite_pairs_both_right": both / len(pairs) if pairs else None,
        "opposite_pairs_same_side": same / len(pairs) if pairs else None,
    }


async def ask_claim(context: Context, claim: dict) -> Answer:
    """One claim through the public API: what every worker of the sweep runs."""
    return await averify(claim["claim"], context=context)


def tier_report(answers: list[Any], correct: list[bool]) -> dict[str, Any]:
    """Each answer tier's coverage and precision (the confident tier, ANSWERED; leans, LEANING), and how well the
    printed confidence ranks right against wrong over every claim that answers or leans (AUC)."""
    out: dict[str, Any] = {}
    for tier in ("confident", "leaning"):
        hits = [c for a, c in zip(answers, correct) if getattr(a, "tier", None) == tier]
        out[f"{tier}_coverage"] = len(hits) / len(answers) if answers else 0.0
        out[f"{tier}_precision"] = sum(hits) / len(hits) if hits else None
    stated = [(a.confidence, c) for a, c in zip(answers, correct) if getattr(a, "tier", None)]
    right = [p for p, c in stated if c]
    wrong = [p for p, c in stated if not c]
    pairs = len(right) * len(wrong)
    out["auc_stated_right_vs_wrong"] = (
        sum((r > w) + 0.5 * (r == w) for r in right for w in wrong) / pairs if pairs else None
    )
    return out


def score(claims: list[dict], answered: list[Answered], max_docs: int = 1) -> dict[str, Any]:
    """The table's results from each claim's answer (in claim order)."""
    answers = [a.answer for a in answered]
    seconds = [a.seconds for a in answered]
    correct_docs = predicted_docs = gold_docs = 0
    correct_sents = predicted_sents = gold_sents = 0
    claim_correct, confidences = [], []
    answered_claims, evidence_answered, gate_declined, faithfulness = [], [], 0, []
    on_gold, support_on_gold, stated_without_evidence = [], [], []
    for claim, answer in zip(claims, answers):
        gold_labels, gold_sentences, gold_claim = gold_of(claim)
        labels, sentences = predictions_of(answer, max_docs)
        for doc, label in labels.items():  # direction where the record it rests on carries gold evidence
            if doc in gold_labels:
                on_gold.append(label == gold_labels[doc])
                support_on_gold.append(gold_labels[doc] == "SUPPORT")
        if labels:
            stated_without_evidence.append(gold_claim == "NOT_ENOUGH_INFO")
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
        answered_claims.append(verdict != "NOT_ENOUGH_INFO")
        if gold_claim != "NOT_ENOUGH_INFO":
            evidence_answered.append(verdict != "NOT_ENOUGH_INFO")
        gate_declined += bool(answer.relevance) and not answer.relevance["relevant"]
        if answer.faithfulness is not None:
            faithfulness.append(answer.faithfulness)
    p, r, f = prf(correct_docs, predicted_docs, gold_docs)
    stated = [stated_label(a) for a in answers]
    gold_claims = [gold_of(c)[2] for c in claims]
    sp, sr, sf = prf(correct_sents, predicted_sents, gold_sents)
    ece, brier = calibration(confidences, claim_correct)
    total = sum(seconds)
    return {
        "claims": len(claims),
        "abstract_label_precision": p,
        "abstract_label_recall": r,
        "abstract_label_f1": f,
        "rationale_precision": sp,
        "rationale_recall": sr,
        "rationale_f1": sf,
        "claim_label_accuracy": sum(claim_correct) / len(claims) if claims else 0.0,
        **selective(claim_correct, answered_claims),
        "evidence_claims_answered": sum(evidence_answered) / len(evidence_answered) if evidence_answered else 0.0,
        "declined_by_relevance_gate": gate_declined,
        "faithfulness": statistics.mean(faithfulness) if faithfulness else None,
        "ece": ece,
        "brier": brier,
        **tier_report(answers, claim_correct),
        "direction_on_gold_records": sum(on_gold) / len(on_gold) if on_gold else None,
        "always_support_on_gold_records": sum(support_on_gold) / len(support_on_gold) if support_on_gold else None,
        "gold_records_chosen": len(on_gold),
        "stated_without_evidence_share": (
            sum(stated_without_evidence) / len(stated_without_evidence) if stated_without_evidence else None
        ),
        **per_class_report(gold_claims, stated, LABELS, "SUPPORT"),
        **opposite_pairs(claims, stated),
        "claims_per_second": len(claims) / total if total else 0.0,
        "seconds_per_claim_mean": statistics.mean(seconds) if seconds else 0.0,
        "seconds_per_claim_p95": sorted(seconds)[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
        **chat_model_usage(answers),
    }


def claims_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The options every SciFact eval takes: claims, corpus, split, limit, preset, overrides, --json, the sweep's."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--claims", required=True, type=Path)
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument(
        "--split",
        choices=["heldout", "val", "all"],
        default="heldout",
        help="heldout: the stance models' fixed hold-out; val: their validation part, for tuning (claims_train only)",
    )
    parser.add_argument("--limit", type=int, help="first N items of the split")
    parser.add_argument("--preset", default="fast")
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="context override, e.g. stance_model=heuristic (ablations)"
    )
    parser.add_argument("--json", action="store_true")
    add_sweep_arguments(parser)
    add_llm_arguments(parser)
    return parser


def corpus_context(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Context, dict[str, Any]]:
    """The run context over the given corpus (answer-claim verification off unless overridden) and its overrides; a
    bad `--set` ends the eval with one line and exit 2."""
    overrides = {"max_claims": 0, **llm_overrides(args), **parse_overrides(args.set)}
    return context_or_exit(parser, preset=args.preset, corpus_path=str(args.corpus.resolve()), **overrides), overrides


def data_settings(prog: str, args: argparse.Namespace) -> dict[str, Any]:
    """What a SciFact sweep's answers depend on besides its configuration: the eval, the data files, the code."""
    return {
        "eval": prog,
        "claims": str(args.claims.resolve()),
        "corpus": str(args.corpus.resolve()),
        "code": code_version(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = claims_parser("python -m evals.scifact", __doc__.split("\n\n")[0])
    parser.add_argument(
        "--max-docs", type=int, default=1, help="evidence abstracts predicted per claim (strongest first)"
    )
    args = parser.parse_args(argv)
    claims = read_or_exit(parser, lambda: load_claims(args.claims, args.split, args.limit))
    context, overrides = corpus_context(parser, args)
    config = {"split": args.split, "preset": args.preset, "overrides": overrides, "max_docs": args.max_docs}
    answered = sweep_or_exit(
        parser,
        args,
        ask_claim,
        context,
        claims,
        [str(c["id"]) for c in claims],
        {**config, **data_settings(parser.prog, args)},
    )
    results = {**score(*scored(claims, answered), args.max_docs), **error_rows(answered)}
    publish(f"SciFact open setting, {results['claims']} claims ({args.split})", results, config, args.json)
    return exit_code(answered)


if __name__ == "__main__":
    raise SystemExit(main())
