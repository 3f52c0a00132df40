r"""Risk-coverage curves of the verdict model's printed confidence, one per benchmark, as a plot and a table.

    python -m evals.risk_plot --claims ../shared/data/scifact/claims_train.jsonl \
        --scifact A.jsonl --mcq M.jsonl --pubmedqa P.jsonl --pubmedqa-data ../shared/data/pubmedqa/pqal_dev.json \
        --out evals/figures/risk_coverage.png [--json]

Each answers file is an eval's `--answers` of the held-out split (evals.scifact, evals.scifact_mcq, evals.pubmedqa
`--split heldout`). Every question is ranked by the probability that the run's leading answer is right
(`leading_confidence`: the verdict model's) whether or not it was given; the curve is the precision of the
leading answers at each coverage, the marker where the shipped operating point stopped answering. The leading answer
of an abstention is the side the court's hypothesis scores favour (for a claim, the claim or its negation; for an MCQ
the likeliest option), as the runs would have said it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.formats import read_jsonl
from benchmarks.questions import contrast_pairs, gold_of, load_claims, question_of
from benchmarks.splits import pubmedqa_split

CHECKPOINTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)


def leading_side(answer: dict[str, Any]) -> str:
    """SUPPORT or CONTRADICT: the verdict, or for an abstention the side its hypotheses' scores favour."""
    if answer.get("verdict") in ("SUPPORT", "CONTRADICT"):
        return str(answer["verdict"])
    scores = {h.get("polarity", 1): h.get("score", 0.0) for h in answer.get("hypotheses") or []}
    return "SUPPORT" if scores.get(1, 0.0) >= scores.get(-1, 0.0) else "CONTRADICT"


def confidence_of(answer: dict[str, Any]) -> float:
    value = answer.get("leading_confidence")
    return float(value if value is not None else answer.get("confidence") or 0.0)


def scifact_rows(claims: list[dict], answers: list[dict]) -> list[tuple[float, bool, bool]]:
    """(confidence, answered, leading answer right) per held-out claim; a claim without evidence is right only
    abstained (its leading answer is wrong whatever side it takes)."""
    rows = []
    for claim, answer in zip(claims, answers, strict=True):
        gold = gold_of(claim)[2]
        rows.append((confidence_of(answer), not answer.get("abstained"), leading_side(answer) == gold))
    return rows


def mcq_rows(claims: list[dict], answers: list[dict]) -> list[tuple[float, bool, bool]]:
    rows = []
    for index, ((supported, contradicted), answer) in enumerate(zip(contrast_pairs(claims), answers, strict=True)):
        _, right = question_of(index, supported, contradicted)
        options = [h for h in answer.get("hypotheses") or [] if h.get("option_index") is not None]
        best = max(options, key=lambda h: h.get("score", 0.0), default=None)
        chosen = answer.get("selected_option")
        chosen = chosen if chosen is not None else (best or {}).get("option_index")
        rows.append((confidence_of(answer), not answer.get("abstained"), chosen == right))
    return rows


def pubmedqa_rows(items: dict[str, dict], answers: list[dict]) -> list[tuple[float, bool, bool]]:
    decision = {"SUPPORT": "yes", "CONTRADICT": "no"}
    held = [item for pmid, item in items.items() if pubmedqa_split(pmid) == "heldout"]
    return [
        (confidence_of(a), not a.get("abstained"), decision[leading_side(a)] == item["final_decision"])
        for item, a in zip(held, answers, strict=True)
    ]


def curve(rows: list[tuple[float, bool, bool]]) -> dict[str, Any]:
    """Precision of the leading answers at each coverage checkpoint, and at the shipped operating point."""
    ranked = sorted(rows, key=lambda r: -r[0])
    n = len(ranked)
    points = []
    for share in CHECKPOINTS:
        k = max(1, round(share * n))
        points.append({"coverage": share, "answered": k, "precision": round(sum(r[2] for r in ranked[:k]) / k, 4)})
    answered = [r for r in rows if r[1]]
    return {
        "questions": n,
        "curve": points,
        "full": [(i / n, sum(r[2] for r in ranked[:i]) / i) for i in range(1, n + 1)],
        "operating_point": {
            "coverage": round(len(answered) / max(1, n), 4),
            "precision": round(sum(r[2] for r in answered) / len(answered), 4) if answered else None,
        },
    }


def plot(curves: dict[str, dict[str, Any]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for name, data in curves.items():
        xs, ys = zip(*data["full"])
        line = axes.plot(xs, ys, label=f"{name} ({data['questions']})")[0]
        point = data["operating_point"]
        if point["precision"] is not None:
            axes.plot([point["coverage"]], [point["precision"]], "o", color=line.get_color())
    axes.set_xlabel("coverage (questions answered, most confident first)")
    axes.set_ylabel("precision of the answers given")
    axes.set_ylim(0.3, 1.02)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower left")
    axes.set_title("Held-out risk-coverage; dots: the shipped operating point")
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.risk_plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=Path, required=True, help="SciFact claims_train.jsonl")
    parser.add_argument("--scifact", type=Path, help="answers of `evals.scifact` (held-out split)")
    parser.add_argument("--mcq", type=Path, help="answers of `evals.scifact_mcq` (held-out split)")
    parser.add_argument("--pubmedqa", type=Path, help="answers of `evals.pubmedqa --split heldout`")
    parser.add_argument("--pubmedqa-data", type=Path, help="pqal_dev.json")
    parser.add_argument("--out", type=Path, required=True, help="the plot (PNG)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    held = load_claims(args.claims, "heldout")
    curves = {}
    if args.scifact:
        curves["SciFact claims"] = curve(scifact_rows(held, read_jsonl(args.scifact)))
    if args.mcq:
        curves["two-option MCQ"] = curve(mcq_rows(held, read_jsonl(args.mcq)))
    if args.pubmedqa and args.pubmedqa_data:
        items = json.loads(args.pubmedqa_data.read_text(encoding="utf-8"))
        curves["PubMedQA"] = curve(pubmedqa_rows(items, read_jsonl(args.pubmedqa)))
    if not curves:
        parser.error("give at least one answers file")
    plot(curves, args.out)
    table = {name: {k: v for k, v in data.items() if k != "full"} for name, data in curves.items()}
    if args.json:
        print(json.dumps(table))
        return 0
    for name, data in table.items():
        cells = "  ".join(f"{p['coverage']:.0%}: {p['precision']:.3f}" for p in data["curve"])
        point = data["operating_point"]
        shipped = f"shipped: coverage {point['coverage']}, precision {point['precision']}"
        print(f"{name} ({data['questions']}): {cells}  | {shipped}")
    print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
