r"""Read the collected answers' rows again with a reader trained after they were collected.

    python -m training.reread --answers ~/.cache/sparkit-verdict --reader agent/models/evidence_reader.npz \
        --out ~/.cache/sparkit-verdict-evidence
    python -m training.reread --answers ~/.cache/sparkit-verdict --decider agent/models/decider_mpnet.npz \
        --out ~/.cache/sparkit-verdict-decider

Every reading row keeps the text it read (agent/verdict/readings.py), so a new record reader joins the verdict model's
inputs without rerunning retrieval: each `record` row gets the reader's probabilities under `readers['evidence']`,
exactly what the court's `_whole_records` gives it at run time (the same statement, the same findings text); with
`--decider`, a claim's cascade rows get the MPNet decider's under `readers['decider']`, chosen and paired by the
same function the court uses (agent/verdict/readings.py `cascade_pairs`). Writes
one JSONL file per family, the lines as they were with the rows read; training.fit_verdict then fits on `--out`.
Training code: never imported at run time.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.judges.decider import DeciderReader
from agent.judges.evidence import EvidenceReader
from agent.verdict.readings import cascade_pairs
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


def read_into(
    lines: list[dict[str, Any]],
    pairs_of: Callable[[dict[str, Any]], list[tuple[dict[str, Any], tuple[str, str]]]],
    reader: EvidenceReader | DeciderReader,
    name: str,
) -> int:
    """Adds the reader's row, under `name`, to every row `pairs_of` picks from each answer, in place; returns how many
    rows it read (one call for all of them, so the reader batches by length)."""
    todo = [item for line in lines if line.get("answer") for item in pairs_of(line["answer"])]
    if not todo:
        return 0
    probabilities = reader.probabilities([pair for _, pair in todo])
    for (row, _), p in zip(todo, probabilities, strict=True):
        row["readers"][name] = [round(float(x), 4) for x in p]
    return len(todo)


def reread(lines: list[dict[str, Any]], reader: EvidenceReader, name: str = "evidence") -> int:
    """Adds the reader's row to every readable record row, in place; returns how many rows it read."""
    return read_into(lines, record_pairs, reader, name)


def claim_pairs(answer: dict[str, Any]) -> list[tuple[dict[str, Any], tuple[str, str]]]:
    """A claim's cascade rows with the pairs the decider reads (none for an answer without a claim and negation)."""
    hypotheses = answer.get("hypotheses") or []
    claim = next((h for h in hypotheses if h.get("origin") == "claim" and h.get("polarity", 1) > 0), None)
    negation = next((h for h in hypotheses if h.get("origin") == "negation"), None)
    if claim is None or negation is None:
        return []
    statements = statements_of(answer)
    text = str(claim.get("claim") or claim["text"])
    return cascade_pairs(answer.get("readings") or [], statements.index(text), text)


def reread_cascade(lines: list[dict[str, Any]], reader: DeciderReader) -> int:
    """Adds the decider's row to every claim's cascade rows, in place; returns how many rows it read."""
    return read_into(lines, claim_pairs, reader, reader.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.reread", description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=Path, required=True, help="folder of evals.verdict_collect")
    parser.add_argument("--reader", type=Path, help="the record reader's weights (.npz)")
    parser.add_argument("--decider", type=Path, help="the MPNet decider's adapter (.npz, training/pack_decider.py)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the answers with the rows read")
    args = parser.parse_args(argv)
    if args.reader is None and args.decider is None:
        parser.error("nothing to read with: give --reader, --decider or both")
    reader = EvidenceReader(args.reader) if args.reader else None
    decider = DeciderReader(args.decider) if args.decider else None
    args.out.mkdir(parents=True, exist_ok=True)
    for family in FAMILIES:
        path = args.answers / f"{family}.jsonl"
        if not path.is_file():
            continue
        lines = read_jsonl(path)
        read = reread(lines, reader) if reader else 0
        cascade = reread_cascade(lines, decider) if decider and family != "mcq" else 0
        with (args.out / path.name).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)
        print(f"{family}: {len(lines)} answers, {read} record rows, {cascade} cascade rows read", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
