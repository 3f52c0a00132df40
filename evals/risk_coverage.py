r"""The abstention threshold chosen for precision, by a stated procedure, from validation answers.

    python -m evals.risk_coverage --claims ../shared/data/scifact/claims_train.jsonl \
        --answers VAL.jsonl [--target 0.85] [--delta 0.1] [--json]

`VAL.jsonl` is `python -m evals.scifact --split val --answers VAL.jsonl` (one Answer per validation claim, in the
split's order). A claim counts as answered when the run gave a verdict (SUPPORT or CONTRADICT), and as right when
that verdict is the gold claim label; `leading_confidence` is what the threshold is set on.

Procedure (selection with guaranteed risk, Geifman & El-Yaniv 2017): for every candidate threshold t (the distinct
confidences of answered claims, highest first), the answers at or above t have an exact one-sided Clopper-Pearson
upper bound on their error rate at level delta / (number of candidates) (Bonferroni over the candidates); the chosen
threshold is the lowest t whose bound is at most 1 - target. With probability at least 1 - delta, precision when
answering at that threshold is at least `target` on claims drawn like the validation claims. None qualifies: the
procedure says so (answering nothing is then the only threshold it can vouch for), and the curve shows what each
threshold would give. Prints the whole risk-coverage curve.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.formats import read_jsonl
from benchmarks.questions import gold_of, load_claims
from benchmarks.selection import choose, curve


def observations(claims: list[dict], answers: list[dict]) -> list[tuple[float, bool, bool]]:
    if len(claims) != len(answers):
        raise SystemExit(
            f"{len(answers)} answers for {len(claims)} claims: use the answers of the same split, in its order"
        )
    rows = []
    for claim, answer in zip(claims, answers, strict=True):
        gold = gold_of(claim)[2]
        verdict = answer.get("verdict")
        answered = verdict in ("SUPPORT", "CONTRADICT") and not answer.get("abstained")
        confidence = (
            answer.get("leading_confidence")
            if answer.get("leading_confidence") is not None
            else answer.get("confidence", 0.0)
        )
        rows.append((float(confidence), answered, answered and verdict == gold))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.risk_coverage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=Path, required=True)
    parser.add_argument(
        "--answers", type=Path, required=True, help="answers of `evals.scifact --split val --answers FILE`"
    )
    parser.add_argument("--split", default="val", choices=["val", "heldout", "all"])
    parser.add_argument("--target", type=float, default=0.85, help="precision when answering to guarantee")
    parser.add_argument("--delta", type=float, default=0.1, help="the guarantee fails with probability at most delta")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = observations(load_claims(args.claims, args.split), read_jsonl(args.answers))
    points = curve(rows)
    chosen = choose(points, args.target, args.delta)
    result = {
        "claims": len(rows),
        "answered": sum(a for _, a, _ in rows),
        "target": args.target,
        "delta": args.delta,
        "chosen": chosen,
        "curve": points,
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{'threshold':>9} {'answered':>8} {'coverage':>8} {'precision':>9} {'error bound':>11}")
    for p in points:
        print(
            f"{p['threshold']:>9.4f} {p['answered']:>8} {p['coverage']:>8.3f} {p['precision']:>9.3f} "
            f"{p['error_bound']:>11.3f}"
        )
    if chosen:
        print(
            f"\nchosen: abstain below {chosen['threshold']} (precision {chosen['precision']} at coverage "
            f"{chosen['coverage']}, "
            f"guaranteed >= {args.target} with probability {1 - args.delta})"
        )
    else:
        print(f"\nno threshold guarantees precision >= {args.target} at delta {args.delta} on these {len(rows)} claims")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
