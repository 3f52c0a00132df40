r"""Why claims with evidence got no verdict: reads the answers an `evals.scifact --answers FILE` run wrote, beside
the claims, and sorts every claim that has gold evidence into where its verdict was lost.

    python -m evals.scifact --claims ../shared/data/scifact/claims_train.jsonl \
        --corpus ../shared/data/scifact/corpus.jsonl \
        --split val --set neutral_kept=16 --answers /tmp/val_answers.jsonl --json
    python -m evals.unanswered --claims ../shared/data/scifact/claims_train.jsonl \
        --answers /tmp/val_answers.jsonl [--json]

Issue 16 asks that >= 90 % of such claims get a verdict; this says which part of the pipeline stands in the way:
- `gate`: the relevance gate declined the question;
- `judge_neutral`: no passage took a side although a gold abstract was judged (the stance judge read it as neutral);
- `gold_not_judged`: no passage took a side and no passage of a gold abstract was among those the court judged
  (retrieval, reranking or the choice of the closest sentences). The ledger keeps only `neutral_kept` neutral
  passages per hypothesis (2 by default), so run the eval with `--set neutral_kept=16` (= sentences_per_hypothesis,
  which changes no verdict): with fewer, a gold passage judged neutral but not kept counts here;
- `abstained`: some passage took a side but the leading answer's confidence was below the abstention threshold
  (`abstained_leaning_right` counts those whose leaning verdict was the gold one);
- `answered`, with `answered_right`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from benchmarks.questions import gold_of, load_claims
from evals.report import read_answers, read_or_exit

NO_SIDE = "no retrieved passage supports or contradicts"
OUTCOMES = ("answered", "abstained", "judge_neutral", "gold_not_judged", "gate")


def outcome(answer: dict, gold_docs: set[str]) -> str:
    """Where this claim's verdict went (module docstring)."""
    relevance = answer.get("relevance") or {}
    if relevance and not relevance.get("relevant", True):
        return "gate"
    if answer["status"] == "ANSWERED":
        return "answered"
    if NO_SIDE in answer.get("answer", ""):
        judged = {str(entry["record_id"]) for entry in answer.get("ledger") or []}
        return "judge_neutral" if judged & gold_docs else "gold_not_judged"
    return "abstained"


def leaning_verdict(answer: dict) -> str | None:
    """The side an answer's court leaned to: its verdict when it answered, else the hypothesis the scores favour
    (an abstention's `verdict` is NOT_ENOUGH_INFO, so comparing that to the gold label never counts a lean)."""
    if answer["status"] == "ANSWERED":
        return answer.get("verdict")
    scores = {h.get("polarity"): h.get("score") or 0.0 for h in answer.get("hypotheses") or []}
    claim, negation = scores.get(1, 0.0), scores.get(-1, 0.0)
    return None if claim == negation else ("SUPPORT" if claim > negation else "CONTRADICT")


def tally(claims: list[dict], answers: list[dict]) -> dict:
    """Counts and shares per outcome over the claims with gold evidence (answers matched by claim text)."""
    by_text = {claim["claim"].strip(): claim for claim in claims}
    counts: Counter[str] = Counter()
    unmatched = 0
    for answer in answers:
        claim = by_text.get(answer["question"].strip())
        if claim is None:
            unmatched += 1
            continue
        labels, _, claim_label = gold_of(claim)
        if not labels:
            continue
        where = outcome(answer, set(labels))
        counts[where] += 1
        if where in ("answered", "abstained") and leaning_verdict(answer) == claim_label:
            counts[f"{where}_right"] += 1
    total = sum(counts[o] for o in OUTCOMES)
    return {
        "evidence_claims": total,
        "unmatched_answers": unmatched,
        **{k: counts[k] for k in (*OUTCOMES, "answered_right", "abstained_right")},
        "shares": {o: round(counts[o] / total, 4) if total else 0.0 for o in OUTCOMES},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.unanswered", description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=Path, required=True, help="SciFact claims JSON lines (with evidence)")
    parser.add_argument("--answers", type=Path, required=True, help="the --answers file of an evals.scifact run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for path in (args.claims, args.answers):
        if not path.is_file():
            parser.error(f"no such file: {path}")
    claims = read_or_exit(
        parser, lambda: load_claims(args.claims, "all")
    )  # answers are matched by claim text, whatever split the eval ran
    answers = read_or_exit(parser, lambda: read_answers(args.answers))
    result = tally(claims, answers)
    for name in OUTCOMES:
        print(f"{name:<18}{result[name]:>5}  {result['shares'][name]:.3f}")
    print(
        f"{'evidence claims':<18}{result['evidence_claims']:>5}  (answered right {result['answered_right']}, "
        f"abstained leaning right {result['abstained_right']})"
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
