r"""Read the collected answers' whole-record rows again with a record reader trained after they were collected.

    python -m training.reread --answers ~/.cache/sparkit-verdict --reader agent/models/evidence_reader.npz \
        --out ~/.cache/sparkit-verdict-evidence

Every reading row keeps the text it read (agent/verdict/readings.py), so a new record reader joins the verdict model's
inputs without rerunning retrieval: each `record` row gets the reader's probabilities under `readers['evidence']`,
exactly what the court's `_whole_records` gives it at run time (the same statement, the same findings text). Writes
one JSONL file per family, the lines as they were with the rows read; training.fit_verdict then fits on `--out`.
Training code: never imported at run time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agent.judges.evidence import EvidenceReader
from benchmarks.formats import read_jsonl

FAMILIES = ("claims", "mcq", "pubmedqa", "healthver", "check_covid")


def statements_of(answer: dict[str, Any]) -> list[str]:
    """The court's statements in the order its reading rows number them (one per distinct hypothesis statement)."""
    return list(dict.fromkeys(str(h.get("claim") or h["text"]) for h in answer["hypotheses"]))  # Hypothesis.statement


def record_pairs(answer: dict[str, Any]) -> list[tuple[dict[str, Any], tuple[str, str]]]:
    """Each record row that kept its text, with the (statement, findings) pair the reader reads."""
    statements = statements_of(answer)
    return [
        (row, (statements[row["statement"]], row["text"]))
        for row in answer.get("readings") or []
        if row["kind"] == "record" and row.get("text") and row["statement"] < len(statements)
    ]


def reread(lines: list[dict[str, Any]], reader: EvidenceReader, name: str = "evidence") -> int:
    """Adds the reader's row to every readable record row, in place; returns how many rows it read."""
    todo = [item for line in lines if line.get("answer") for item in record_pairs(line["answer"])]
    if not todo:
        return 0
    probabilities = reader.probabilities([pair for _, pair in todo])
    for (row, _), p in zip(todo, probabilities, strict=True):
        row["readers"][name] = [round(float(x), 4) for x in p]
    return len(todo)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.reread", description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=Path, required=True, help="folder of evals.verdict_collect")
    parser.add_argument("--reader", type=Path, required=True, help="the record reader's weights (.npz)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the answers with the rows read")
    args = parser.parse_args(argv)
    reader = EvidenceReader(args.reader)
    args.out.mkdir(parents=True, exist_ok=True)
    for family in FAMILIES:
        path = args.answers / f"{family}.jsonl"
        if not path.is_file():
            continue
        lines = read_jsonl(path)
        read = reread(lines, reader)
        with (args.out / path.name).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)
        print(f"{family}: {len(lines)} answers, {read} record rows read", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
