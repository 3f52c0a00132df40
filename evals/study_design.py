r"""The study-design and sample-size reader (agent/scoring/study.py) against abstracts labelled by hand.

    python -m evals.study_design --split final --json
    python -m evals.study_design --split unseen --json     # final and final2, the parts never tuned on
    python -m evals.study_design --split tune --errors

Reads evals/data/study_design.jsonl (doc ids of SciFact corpus abstracts with their design and sample size, labelled
by hand before the rules were written; evals/data/README.md says how) and the abstracts themselves from the SciFact
corpus (../shared/data/scifact/corpus.jsonl, `--corpus`). Scores design accuracy (target >= 0.85), sample size exact
match over all abstracts (none = none counts as a match; target >= 0.80) and over those with a stated size, and prints
the design confusion table (rows: the label; columns: the reader). `--split tune` is the part the rules were first
tuned on; `aside` and `heldout` parts kept aside at first, scored, then tuned on too (evals/HISTORY.md); `final` and
`final2` the parts never tuned on (report them, do not tune on their errors: label a new part first; `unseen` is both);
`all` every part. `--errors` lists the misread abstracts (never on a part never tuned on).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent.scoring.design import DESIGNS
from agent.scoring.study import StudyReading, read_study
from agent.tools.index.corpus_records import load_corpus
from benchmarks.metrics import confusion
from evals.report import publish

DATA = Path(__file__).parent / "data" / "study_design.jsonl"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "corpus.jsonl"
SHORT = {
    "meta-analysis": "meta",
    "systematic review": "sysrev",
    "RCT": "rct",
    "cohort": "cohort",
    "case-control": "cc",
    "cross-sectional": "cross",
    "case report or series": "case",
    "animal": "animal",
    "in vitro": "vitro",
    "narrative review": "review",
    "other": "other",
}


NEVER_TUNED = ("final", "final2")
"""The parts labelled before the rules last changed and never tuned on: scored, their errors never read."""


def labelled(path: Path, split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    parts = NEVER_TUNED if split == "unseen" else (split,)
    return [row for row in rows if split == "all" or row["split"] in parts]


def score(rows: list[dict[str, Any]], readings: list[StudyReading]) -> dict[str, Any]:
    """Design accuracy, sample-size exact match (all; and where the label states a size) and the confusion counts."""
    n = len(rows)
    stated = [(row, r) for row, r in zip(rows, readings, strict=True) if row["sample_size"] is not None]
    return {
        "abstracts": n,
        "design_accuracy": sum(row["design"] == r.design for row, r in zip(rows, readings)) / n if n else 0.0,
        "size_exact": sum(row["sample_size"] == r.sample_size for row, r in zip(rows, readings)) / n if n else 0.0,
        "size_stated": len(stated),
        "size_exact_where_stated": sum(row["sample_size"] == r.sample_size for row, r in stated) / len(stated)
        if stated
        else 0.0,
        "confusion": confusion([row["design"] for row in rows], [r.design for r in readings], DESIGNS),
    }


def print_confusion(counts: dict[str, int]) -> None:
    """Rows: the hand label; columns: the reader's design."""
    names = [SHORT[d] for d in DESIGNS]
    print("\nlabel \\ read  " + " ".join(f"{name:>6}" for name in names))
    for gold in DESIGNS:
        cells = " ".join(f"{counts[f'{gold}->{read}'] or '.':>6}" for read in DESIGNS)
        print(f"{SHORT[gold]:<13} {cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--split", choices=("tune", "aside", "heldout", "final", "final2", "unseen", "all"), default="final"
    )
    parser.add_argument("--errors", action="store_true", help="list the misread abstracts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.errors and args.split in (*NEVER_TUNED, "unseen", "all"):
        print(f"--errors lists the misread abstracts of a part tuned on, not of '{args.split}'", file=sys.stderr)
        return 2
    if not args.corpus.exists():
        print(f"no SciFact corpus at {args.corpus} (--corpus)", file=sys.stderr)
        return 2
    rows = labelled(args.data, args.split)
    records = {record.id: record for record in load_corpus(args.corpus)}
    missing = [row["doc_id"] for row in rows if str(row["doc_id"]) not in records]
    if missing:
        print(f"{len(missing)} labelled abstract(s) not in the corpus, e.g. {missing[0]}", file=sys.stderr)
        return 2
    readings = [read_study(records[str(row["doc_id"])]) for row in rows]
    results = score(rows, readings)
    counts = results.pop("confusion")
    if args.errors:
        for row, r in zip(rows, readings):
            if row["design"] != r.design or row["sample_size"] != r.sample_size:
                print(f"{row['doc_id']}: {row['design']} / {row['sample_size']} read as {r.design} / {r.sample_size}")
                print(f"    design: {r.design_sentence!r:.160}\n    size:   {r.size_sentence!r:.160}")
    print_confusion(counts)
    publish("Study design and sample size", results, {"split": args.split, "data": args.data.name}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
