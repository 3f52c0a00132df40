r"""Where the no is lost: recall per class at every stage from the sentences read to the answer stated.

    python -m evals.trace_no --data ../shared/data --collected ~/.cache/sparkit-verdict \
        [--oof OOF.jsonl] [--answers SWEEP.jsonl ...] [--model agent/models/verdict.json] [--json]

A claim whose evidence says no can lose it at four places, and each has its own table (rows: benchmark and part;
columns: recall of each gold class, the questions of each, always-SUPPORT's recall being 1 / 0 / 0):
1. `sentences`: the gold rationale sentences the run read (SciFact, which marks them), each reader's lean on them
   (SUPPORT when P(SUPPORT) > P(CONTRADICT)), per gold side;
2. `record`: per gold record (SciFact) or per given document (PubMedQA, HealthVer, Check-COVID), its most evidential
   sentence (highest P(SUPPORT) + P(CONTRADICT)) and the record read whole (the claim against its findings), by
   their three-way argmax;
3. `verdict`: the verdict model's three-way argmax: out of fold for a training question (`--oof`, from
   training/fit_verdict_balanced.py), else `--model` applied to the answer's readings;
4. `stated`: what the answer states: for a sweep's answer (`--answers`, the held-out evals) the answer itself; for a
   collected training question the three-tier rule on the verdict stage's probabilities (a side when it is likelier
   than NOT_ENOUGH_INFO: agent/answer/status.py without the ladder's other rungs).
Parts: SciFact `val` / `train` / `heldout` (benchmarks/splits.py), PubMedQA even / odd PMIDs, HealthVer topic parts,
Check-COVID train. Held-out answers come only from the once-scored final evals.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agent.verdict.apply import verdict_inputs
from agent.verdict.model import CLASSES, read_model
from benchmarks.collected import claim_statement, relevance_of
from benchmarks.formats import read_jsonl
from benchmarks.questions import gold_of
from benchmarks.splits import healthver_split, pubmedqa_split, scifact_splits
from evals.report import print_table
from evals.scifact import stated_of

S, C, N = 0, 1, 2
GOLD = {"yes": "SUPPORT", "no": "CONTRADICT", "maybe": "NOT_ENOUGH_INFO", "NEUTRAL": "NOT_ENOUGH_INFO"}
DOCUMENTS = ("pubmedqa", "healthver", "check_covid")
SENTENCE_READERS = ("combined", "cross", "direction", "heuristic")


def part_of(family: str, key: str, splits: dict[int, str]) -> str:
    if family == "claims":
        return f"scifact {splits.get(int(key), 'train')}"
    if family == "pubmedqa":
        return "pubmedqa odd" if pubmedqa_split(key) == "heldout" else "pubmedqa even"
    if family == "healthver":
        return f"healthver {healthver_split(int(key.split('_')[0]))}"
    return f"{family} train"


def _lean(p: list[float] | None) -> str | None:
    return None if not p else CLASSES[S] if p[S] > p[C] else CLASSES[C]


def _argmax(p: list[float]) -> str:
    return CLASSES[int(np.argmax(p))]


def _rows(answer: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in answer.get("readings") or [] if r["kind"] == kind and r["statement"] == 0]


def sentence_stage(answer: dict[str, Any], claim: dict) -> Iterator[tuple[str, str, str | None]]:
    """(reader, gold side, the reader's lean) for every gold rationale sentence the run read."""
    labels, sentences, _ = gold_of(claim)
    for row in _rows(answer, "sentence"):
        doc = str(row["record"])
        if doc not in labels or row["sentence"] is None:
            continue
        span = set(range(row["sentence"], (row["sentence_end"] or row["sentence"] + 1)))
        if span & sentences[doc]:
            yield "combined", labels[doc], _lean(row["p"])
            for reader in SENTENCE_READERS[1:]:
                yield reader, labels[doc], _lean(row["readers"].get(reader))


def record_stage(answer: dict[str, Any], gold: dict[str, str]) -> Iterator[tuple[str, str, str]]:
    """('deciding sentence' | 'record read whole', gold label, its three-way reading) for each gold record read."""
    sentences, records = _rows(answer, "sentence"), _rows(answer, "record")
    for doc, label in gold.items():
        mine = [r for r in sentences if str(r["record"]) == doc]
        if mine:
            yield "deciding sentence", label, _argmax(max(mine, key=lambda r: r["p"][S] + r["p"][C])["p"])
        whole = [r for r in records if str(r["record"]) == doc]
        if whole:
            yield "record read whole", label, _argmax(whole[0]["p"])


class Tally:
    """Counts of (stage, row, gold) -> [right, all]."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])

    def add(self, stage: str, row: str, gold: str, said: str | None) -> None:
        if said is None:
            return
        cell = self.counts[(stage, row, gold)]
        cell[0] += said == gold
        cell[1] += 1

    def tables(self) -> dict[str, dict[str, dict[str, Any]]]:
        out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        for stage, row, gold in sorted(self.counts):
            right, total = self.counts[(stage, row, gold)]
            entry = out[stage].setdefault(row, {"recall": {}, "n": {}})
            entry["recall"][gold] = round(right / total, 3)
            entry["n"][gold] = total
        return dict(out)


def three_tier(p: list[float]) -> str:
    side = S if p[S] >= p[C] else C
    return CLASSES[side] if p[side] > p[N] else CLASSES[N]


def trace(
    questions: list[dict[str, Any]], claims: dict[str, dict], oof: dict[tuple[str, str], list[float]], model: Any
) -> Tally:
    """Every question through the four stages (module docstring)."""
    tally = Tally()
    for q in questions:
        family, key, answer, part = q["family"], q["id"], q["answer"], q["part"]
        gold = GOLD.get(q["gold"], q["gold"])
        if family == "claims":
            claim = claims[key]
            for reader, side, lean in sentence_stage(answer, claim):
                tally.add("sentences", f"{part} / {reader}", side, lean)
            gold_records = gold_of(claim)[0]
        else:
            docs = [str(r["record"]) for r in _rows(answer, "record")][:1]
            gold_records = {d: gold for d in docs}
        for what, label, said in record_stage(answer, gold_records):
            tally.add("record", f"{part} / {what}", label, said)
        p = oof.get((family, key))
        if p is None and model is not None and answer.get("readings"):
            p = verdict_probabilities(model, answer, family)
        if p is not None:
            tally.add("verdict", part, gold, _argmax(p))
        said = q.get("stated") or (three_tier(p) if p is not None else None)
        tally.add("stated", part, gold, said)
    return tally


def verdict_probabilities(model: Any, answer: dict[str, Any], family: str) -> list[float]:
    """The model's three probabilities from a stored answer's readings, read as the fit reads them."""
    setting = "documents" if family in DOCUMENTS else "corpus"
    polar = answer["task"] == "polar"
    inputs = verdict_inputs(answer["readings"], claim_statement(answer), polar, relevance_of(answer), setting)
    probabilities = model.claim_probabilities(inputs, setting)
    return [probabilities[label] for label in CLASSES]


def collected(folder: Path, splits: dict[int, str]) -> Iterator[dict[str, Any]]:
    for family in ("claims", "pubmedqa", "healthver", "check_covid"):
        path = folder / f"{family}.jsonl"
        for line in read_jsonl(path) if path.is_file() else []:
            if line.get("answer"):
                yield {**line, "part": part_of(family, line["id"], splits)}


def swept(path: Path, data: Path, splits: dict[int, str]) -> Iterator[dict[str, Any]]:
    """A held-out eval's answers (evals.scifact or evals.pubmedqa --answers) with their gold labels."""
    pubmedqa = json.loads((data / "pubmedqa" / "pqal_dev.json").read_text(encoding="utf-8"))
    claims = {str(c["id"]): c for c in read_jsonl(data / "scifact" / "claims_train.jsonl")}
    for line in read_jsonl(path):
        meta = line.pop("sweep")
        family = "pubmedqa" if "pubmedqa" in str(meta["settings"].get("eval")) else "claims"
        key = str(meta["id"])
        gold = pubmedqa[key]["final_decision"] if family == "pubmedqa" else gold_of(claims[key])[2]
        stated = stated_of(line.get("verdict"), bool(line.get("abstained")))
        yield {
            "family": family,
            "id": key,
            "gold": gold,
            "answer": line,
            "stated": stated,
            "part": part_of(family, key, splits),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.trace_no", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--collected", type=Path, help="evals.verdict_collect's folder (training parts)")
    parser.add_argument("--answers", type=Path, action="append", default=[], help="a held-out eval's answers file")
    parser.add_argument("--oof", type=Path, help="training.fit_verdict_balanced --oof-out's file")
    parser.add_argument("--model", type=Path, help="a verdict model file for questions without out-of-fold rows")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    claim_list = read_jsonl(args.data / "scifact" / "claims_train.jsonl")
    splits = scifact_splits(claim_list)
    claims = {str(c["id"]): c for c in claim_list}
    questions = list(collected(args.collected, splits)) if args.collected else []
    for path in args.answers:
        questions += list(swept(path, args.data, splits))
    oof = {(r["family"], r["id"]): r["p"] for r in read_jsonl(args.oof)} if args.oof else {}
    model = read_model(args.model) if args.model else None
    tables = trace(questions, claims, oof, model).tables()
    for stage, rows in tables.items():
        print_table(
            f"stage: {stage} (recall per gold class; n)",
            [
                (row, " ".join(f"{g[:3]} {v['recall'][g]:.2f} ({v['n'][g]})" for g in v["recall"]))
                for row, v in rows.items()
            ],
        )
    if args.json:
        print(json.dumps(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
