"""Fit the relevance gate (agent/models/relevance.json): does the retrieved evidence address the question?

    python -m training.fit_relevance --corpus ../shared/data/scifact/corpus.jsonl [--index DIR] [--report PATH]

Answerable questions: the BEIR-SciFact train claims (= SciFact claims_train) against the SciFact corpus, and the
PubMedQA pqal_dev questions against their own abstract (as evals/pubmedqa.py asks them). Unanswerable: the
project's off-topic questions (evals/data/off_topic.jsonl: physics, chemistry, mathematics, computer science,
earth science, everyday facts, and biology the corpus does not cover) against the SciFact corpus.

Fitted on: SciFact claims outside the held-out groups (benchmarks/splits.py scifact_splits: train + val),
PubMedQA even PMIDs, off-topic questions marked `fit`. Reported on what the fit never saw: SciFact held-out
claims (all, and those with evidence), PubMedQA odd PMIDs, off-topic questions marked `heldout` (against the
SciFact corpus and against a one-record aspirin corpus, the `--documents` case).

For each question the top records are found as the product finds them for the gate (the plan's focus, hybrid
search, the offline reranker, the top `TOP_RECORDS`), the features are agent.scoring.relevance's, and a
class-balanced logistic regression gives the model; the gate passes at probability >= 0.5. The features do not
depend on the stance judge, so retraining the judge does not call for a refit.

The same run fits `claim_floor`, the best-sentence cosine a record needs before verify_claims counts it for or
against a claim: over SciFact fit claims with evidence, the value that best separates their gold evidence abstracts
from the other abstracts retrieved for them (balanced accuracy).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from agent.config import sparkit_home
from agent.literature import Record
from agent.reasoners.extractive import ExtractiveReasoner
from agent.scoring.relevance import FEATURES, TOP_RECORDS, RelevanceModel, default_model_path, relevance_features
from agent.tools.index.corpus_records import records_from_dicts
from agent.tools.index.index_refresh import open_index
from agent.tools.index.local_index import LocalIndex, default_index_dir
from agent.tools.index.offline_rerank import HybridReranker
from agent.tools.models.encoder import MODEL_NAME, shared_encoder
from benchmarks.cli import commit
from benchmarks.formats import read_jsonl
from benchmarks.questions import ASPIRIN, documents_of, load_off_topic
from benchmarks.splits import pubmedqa_split, scifact_splits

REPO = Path(__file__).resolve().parents[1]


async def focus_of(reasoner: ExtractiveReasoner, question: str, mode: str = "ask") -> str:
    """What the product compares with the evidence: the plan's claim, else the question."""
    plan = await reasoner.plan(question, [], mode)
    return plan.claim or question


def top_records(
    index: LocalIndex, reranker: HybridReranker, focus: str, k: int = TOP_RECORDS, depth: int = 20
) -> list[Record]:
    hits = [record for record, _ in index.search(focus, depth)]
    scores = reranker.scores(focus, [r.text for r in hits])
    return [hits[i] for i in np.argsort(-np.asarray(scores))[:k]]


async def rows(corpus: Path, index_dir: Path | None, claims_path: Path, pubmedqa_path: Path) -> list[dict]:
    encoder = shared_encoder()
    reasoner = ExtractiveReasoner(encoder)
    index = open_index(corpus, index_dir or default_index_dir(corpus, sparkit_home()))
    reranker = HybridReranker.for_index(index)
    aspirin = records_from_dicts(ASPIRIN)
    out: list[dict] = []

    async def add(kind: str, split: str, question: str, records: list[Record], mode: str = "ask", **extra) -> None:
        focus = await focus_of(reasoner, question, mode)
        features, best, _ = await relevance_features(focus, records[:TOP_RECORDS], encoder)
        out.append({"kind": kind, "split": split, "question": question, "best": best, **features, **extra})

    claims = read_jsonl(claims_path)
    splits = scifact_splits(claims)
    for claim in claims:
        focus = await focus_of(reasoner, claim["claim"], "verify")
        await add(
            "scifact",
            "heldout" if splits[claim["id"]] == "heldout" else "fit",
            claim["claim"],
            top_records(index, reranker, focus),
            "verify",
            evidence=bool(claim.get("evidence")),
        )
    for item in load_off_topic():
        focus = await focus_of(reasoner, item["question"])
        await add(
            "off_topic", item["split"], item["question"], top_records(index, reranker, focus), domain=item["domain"]
        )
        await add("off_topic_aspirin", item["split"], item["question"], aspirin, domain=item["domain"])
    for pmid, item in json.loads(pubmedqa_path.read_text()).items():
        split = "heldout" if pubmedqa_split(pmid) == "heldout" else "fit"
        await add("pubmedqa", split, item["QUESTION"], records_from_dicts(documents_of(pmid, item)), "verify")
    return out


async def claim_record_rows(corpus: Path, index_dir: Path | None, claims_path: Path, per_claim: int = 5) -> list[dict]:
    """For the verification floor: per (SciFact fit claim with evidence, record) among its gold evidence abstracts and
    its top retrieved abstracts, the best title/sentence cosine and whether the record is gold evidence. (Unannotated
    evidence among the retrieved records is label noise, as in training/dataset.py.)"""
    encoder = shared_encoder()
    index = open_index(corpus, index_dir or default_index_dir(corpus, sparkit_home()))
    by_id = {r.id: r for r in index.records}
    claims = read_jsonl(claims_path)
    splits = scifact_splits(claims)
    out = []
    for claim in claims:
        if splits[claim["id"]] == "heldout" or not claim.get("evidence"):
            continue
        gold = {str(d) for d in claim["evidence"]}
        retrieved = [r.id for r, _ in index.search(claim["claim"], per_claim)]
        for rid in dict.fromkeys([*gold, *retrieved]):
            if rid in by_id:
                features, _, _ = await relevance_features(claim["claim"], [by_id[rid]], encoder)
                out.append(
                    {"claim": claim["id"], "record": rid, "gold": rid in gold, "best_cosine": features["best_cosine"]}
                )
    return out


def claim_floor(rows: list[dict]) -> float:
    """The best-cosine floor for a record to count in a claim's verification: the value that maximises balanced
    accuracy between gold evidence abstracts and the other retrieved abstracts."""
    values = np.array([r["best_cosine"] for r in rows])
    gold = np.array([r["gold"] for r in rows])
    best, floor = -1.0, 0.0
    for t in np.unique(np.round(values, 3)):
        accuracy = 0.5 * ((values[gold] >= t).mean() + (values[~gold] < t).mean())
        if accuracy > best:
            best, floor = accuracy, float(t)
    return round(floor, 3)


def fit(observations: list[dict]) -> LogisticRegression:
    fit_rows = [r for r in observations if r["split"] == "fit" and r["kind"] in ("scifact", "pubmedqa", "off_topic")]
    x = np.array([[r[name] for name in FEATURES] for r in fit_rows])
    y = np.array([r["kind"] != "off_topic" for r in fit_rows], dtype=int)
    return LogisticRegression(C=10.0, class_weight="balanced").fit(x, y)


def report(observations: list[dict], model: RelevanceModel) -> dict[str, float]:
    """Share passed (answerable) or declined (off-topic) per part, on the fit and the held-back questions."""

    def passed(r: dict) -> bool:
        return model.probability(r) >= model.threshold

    out = {}
    for split in ("fit", "heldout"):
        part = [r for r in observations if r["split"] == split]
        groups = {
            "scifact_passed": [r for r in part if r["kind"] == "scifact"],
            "scifact_with_evidence_passed": [r for r in part if r["kind"] == "scifact" and r.get("evidence")],
            "pubmedqa_passed": [r for r in part if r["kind"] == "pubmedqa"],
            "off_topic_declined": [r for r in part if r["kind"] == "off_topic"],
            "off_topic_aspirin_declined": [r for r in part if r["kind"] == "off_topic_aspirin"],
        }
        for name, members in groups.items():
            hits = sum(passed(r) != name.endswith("declined") for r in members)
            out[f"{split}/{name}"] = round(hits / len(members), 4) if members else 0.0
            out[f"{split}/{name.rsplit('_', 1)[0]}_n"] = len(members)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "data" / "scifact" / "corpus.jsonl")
    parser.add_argument(
        "--claims", type=Path, default=REPO.parent / "shared" / "data" / "scifact" / "claims_train.jsonl"
    )
    parser.add_argument("--pubmedqa", type=Path, default=REPO.parent / "shared" / "data" / "pubmedqa" / "pqal_dev.json")
    parser.add_argument("--index", type=Path, help="the corpus' index (default: $SPARKIT_HOME/index/<corpus>)")
    parser.add_argument("--features", type=Path, help="cache of the computed features (JSON); reused when present")
    parser.add_argument("--report", type=Path, help="write the per-part shares here (JSON)")
    parser.add_argument("--no-write", action="store_true", help="report without writing agent/models/relevance.json")
    args = parser.parse_args(argv)
    if args.features and args.features.exists():
        observations = json.loads(args.features.read_text())
    else:
        observations = asyncio.run(rows(args.corpus.resolve(), args.index, args.claims, args.pubmedqa))
        if args.features:
            args.features.parent.mkdir(parents=True, exist_ok=True)
            args.features.write_text(json.dumps(observations))
    claim_rows_path = args.features.with_name(args.features.stem + "-claims.json") if args.features else None
    if claim_rows_path and claim_rows_path.exists():
        claim_rows = json.loads(claim_rows_path.read_text())
    else:
        claim_rows = asyncio.run(claim_record_rows(args.corpus.resolve(), args.index, args.claims))
        if claim_rows_path:
            claim_rows_path.write_text(json.dumps(claim_rows))
    regression = fit(observations)
    fitted = [r for r in observations if r["split"] == "fit" and r["kind"] in ("scifact", "pubmedqa", "off_topic")]
    model = RelevanceModel(
        weights={name: round(float(w), 4) for name, w in zip(FEATURES, regression.coef_[0])},
        intercept=round(float(regression.intercept_[0]), 4),
        top_records=TOP_RECORDS,
        encoder=MODEL_NAME,
        fitted_on="SciFact claims_train outside the held-out groups (answerable, SciFact corpus), PubMedQA "
        "pqal_dev even PMIDs "
        "(answerable, own abstract), evals/data/off_topic.jsonl split=fit (off-topic, SciFact "
        "corpus); class-balanced "
        "logistic regression, threshold 0.5",
        examples=len(fitted),
        commit=commit(),
        claim_floor=claim_floor(claim_rows),
    )
    shares = report(observations, model)
    values = np.array([r["best_cosine"] for r in claim_rows])
    gold = np.array([r["gold"] for r in claim_rows])
    shares |= {
        "claim_floor/gold_kept": round(float((values[gold] >= model.claim_floor).mean()), 4),
        "claim_floor/other_kept": round(float((values[~gold] >= model.claim_floor).mean()), 4),
        "claim_floor/pairs": len(claim_rows),
    }
    print(json.dumps({"model": model.model_dump(), "shares": shares}, indent=1))
    if args.report:
        args.report.write_text(json.dumps({"model": model.model_dump(), "shares": shares}, indent=1))
    if not args.no_write:
        default_model_path().write_text(model.model_dump_json(indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
