r"""The evidence reader's pairs: a claim against a whole record's findings -> does this record settle the claim?

    python -m training.evidence_pool --out ~/.cache/sparkit-train/evidence_pool.jsonl.gz
    python -m training.train_judge --pool-file ~/.cache/sparkit-train/evidence_pool.jsonl.gz \
        --init agent/models/stance_cross.npz --train-layers 2 --int8 --epochs 3 --max-len 256 \
        --out agent/models/evidence_reader.npz --report evals/data/evidence_reader_report.json

SciFact's NOT_ENOUGH_INFO is mostly "a cited abstract that is related but does not settle the claim": a citing author
linked the abstract to the claim, and it reports no finding that decides it. The stance judges read sentences, so
such a record's on-topic sentences read as weak support and the claim leans where it has no evidence. This pool
teaches a reader that question at the level the verdict is scored, the record (the court's `record` reading rows,
agent/verdict/readings.py `findings_text`, are exactly this text):

- SciFact claims_train: each claim against each cited abstract's findings; an evidence abstract is SUPPORT or
  CONTRADICT (its label), a cited abstract without rationales is NEUTRAL (related but silent: the hard negatives),
  plus the best BM25 match among abstracts the claim does not cite, NEUTRAL at half weight. Split by the fixed rule
  (benchmarks/splits.py): `train` trains, `val` selects, the held-out groups are left out entirely;
- Check-COVID: each claim against its own abstract's findings (NOT ENOUGH INFO -> NEUTRAL), train file -> train, dev
  file -> val (the test file is held back and never read);
- CliniFact: the pool's claim-against-abstract-tail pairs (training/pool.py), as they are.

The reader's P(SUPPORT) + P(CONTRADICT) is the probability that the record settles the claim; the verdict model takes
it as an input and keeps it only where it pays out of fold (training/fit_verdict.py). Training code: never imported
at run time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import bm25s

from agent.tools.index.corpus_records import records_from_dicts
from agent.verdict.readings import findings_text
from benchmarks.formats import check_covid_jsonl, read_corpus, read_jsonl
from benchmarks.splits import scifact_splits
from training.dataset import StancePair, default_data_dir
from training.pool import build_pool
from training.train_judge import write_pool

LABEL = {"SUPPORT": "SUPPORT", "CONTRADICT": "CONTRADICT", "NEUTRAL": "NEUTRAL"}


def _findings(doc: dict) -> str:
    return findings_text(records_from_dicts([doc])[0])


def _scifact_evidence_label(claim: dict, doc: int) -> str:
    labels = {item["label"] for item in claim["evidence"].get(str(doc), [])}
    return "SUPPORT" if labels == {"SUPPORT"} else "CONTRADICT" if labels == {"CONTRADICT"} else "NEUTRAL"


def scifact_pairs(data: Path, retrieved: int = 1) -> list[StancePair]:
    """Claim against each cited abstract (evidence: its label; silent: NEUTRAL) and its best uncited BM25 match."""
    claims = read_jsonl(data / "scifact" / "claims_train.jsonl")
    splits = scifact_splits(claims)
    corpus = {int(d["doc_id"]): d for d in read_jsonl(data / "scifact" / "corpus.jsonl")}
    ids = list(corpus)
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([f"{corpus[i]['title']} {' '.join(corpus[i]['abstract'])}" for i in ids], show_progress=False),
        show_progress=False,
    )
    pairs: list[StancePair] = []
    for claim in claims:
        split = splits[claim["id"]]
        if split == "heldout":
            continue
        cited = [int(d) for d in claim["cited_doc_ids"]]
        for doc in cited:
            label = _scifact_evidence_label(claim, doc) if str(doc) in claim["evidence"] else "NEUTRAL"
            kind = "evidence" if str(doc) in claim["evidence"] else "cited_silent"
            pairs.append(
                StancePair(claim["claim"], _findings(corpus[doc]), label, kind, str(claim["id"]), split, "scifact")
            )
        hits, _ = retriever.retrieve(
            bm25s.tokenize([claim["claim"]], show_progress=False), k=len(cited) + retrieved + 2, show_progress=False
        )
        uncited = [ids[int(i)] for i in hits[0] if ids[int(i)] not in cited][:retrieved]
        for doc in uncited:
            pairs.append(
                StancePair(
                    claim["claim"],
                    _findings(corpus[doc]),
                    "NEUTRAL",
                    "retrieved",
                    str(claim["id"]),
                    split,
                    "scifact",
                    0.5,
                )
            )
    return pairs


def check_covid_pairs(data: Path) -> list[StancePair]:
    """Each Check-COVID claim against its own abstract's findings, once per claim (train -> train, dev -> val)."""
    folder = data / "stance" / "check_covid"
    corpus = read_corpus(folder / "corpus.json")
    pairs: list[StancePair] = []
    for split, name in (
        ("train", "train/covidCheck_train_composed+extracted.json"),
        ("val", "dev/covidCheck_dev_composed+extracted.json"),
    ):
        seen: set[tuple[str, str]] = set()
        for pair in check_covid_jsonl(folder / name, corpus):
            key = (pair.statement, pair.extra["doc"])
            if key in seen:
                continue
            seen.add(key)
            doc = corpus[pair.extra["doc"]]
            text = _findings({"id": pair.extra["doc"], "title": doc.get("title") or "", "abstract": doc["sentences"]})
            pairs.append(
                StancePair(pair.statement, text, LABEL[pair.label], "abstract", pair.group, split, "check_covid")
            )
    return pairs


def clinifact_pairs(data: Path) -> list[StancePair]:
    pool, _ = build_pool(data, ["clinifact"], negations=False)
    return [p for p in pool if p.split in ("train", "val")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.evidence_pool", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, required=True, help="the pool file (gzipped JSON lines) train_judge reads")
    args = parser.parse_args(argv)
    pairs = scifact_pairs(args.data_dir) + check_covid_pairs(args.data_dir) + clinifact_pairs(args.data_dir)
    write_pool(args.out, pairs, {})
    counts: dict[str, int] = {}
    for p in pairs:
        key = f"{p.source}/{p.split}/{p.label}"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
