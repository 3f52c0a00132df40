"""BEIR-style retrieval eval (BEIR-SciFact): first-stage retrieval over the whole corpus, then rerank.

    python -m evals.beir --corpus ../shared/data/beir-scifact/corpus.jsonl \\
        --queries ../shared/data/beir-scifact/queries.jsonl --qrels ../shared/data/beir-scifact/qrels/train.tsv

Configurations (`--configs`, default all):
- `bm25`, `dense`, `hybrid`: the local index alone (BM25, MiniLM cosine, their reciprocal-rank fusion);
- `rerank`: hybrid top-100 reranked by the offline reranker on document-level signals (BM25 + cosine);
- `rerank+sentences`: the same with the best-sentence cosine from the index's SentenceStore (built on first
  use: minutes), i.e. what the offline backend runs when the store exists;
- `learned-cv`: logistic regression over the reranker's signals, k-fold cross-validated over queries grouped
  by shared relevant documents (evals/rerank_cv.py): every query is scored by a model that never saw it.

Prints nDCG@10, recall@100, MRR@10, queries per second (retrieval + rerank, sequential) and rerank time per
query; `--json` prints one JSON object on the last line for `--reranker`/`--config` (default
`rerank+sentences`), with every configuration's numbers under "runs". `--reranker NAME` alone runs only NAME.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from agent.config import sparkit_home
from agent.errors import CorpusError
from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.index_refresh import open_index as open_corpus_index
from agent.tools.index.local_index import LocalIndex, default_index_dir
from agent.tools.index.offline_rerank import HybridReranker, SentenceStore
from agent.tools.models.encoder import shared_encoder
from benchmarks.cli import commit
from benchmarks.formats import read_jsonl
from evals.report import print_json, read_or_exit
from evals.rerank_cv import cross_validated_scores, features, grouped_folds

CONFIGS = ("bm25", "dense", "hybrid", "rerank", "rerank+sentences", "learned-cv")
DEPTH = 100
Qrels = dict[str, dict[str, int]]


# ------------------------------------------------------------------------------------------- metrics
def ndcg_at_10(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k as pytrec_eval computes it: gain = relevance grade, discount log2(rank + 1)."""
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_100(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    positives = {d for d, g in relevant.items() if g > 0}
    return len(positives & set(ranked[:k])) / len(positives) if positives else 0.0


def mrr_at_10(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    return next((1.0 / (i + 1) for i, d in enumerate(ranked[:k]) if relevant.get(d, 0) > 0), 0.0)


def summarise(rankings: Mapping[str, Sequence[str]], qrels: Qrels) -> dict[str, float]:
    n = len(rankings) or 1
    return {
        "ndcg@10": sum(ndcg_at_10(r, qrels[q]) for q, r in rankings.items()) / n,
        "recall@100": sum(recall_at_100(r, qrels[q]) for q, r in rankings.items()) / n,
        "mrr@10": sum(mrr_at_10(r, qrels[q]) for q, r in rankings.items()) / n,
    }


# ------------------------------------------------------------------------------------------- inputs
def load_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] == "query-id":
            continue
        qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load_queries(path: Path, qrels: Qrels) -> list[tuple[str, str]]:
    """(id, text) of every query that has judgements, in file order."""
    queries = read_jsonl(path)
    return [(str(q["_id"]), q["text"]) for q in queries if str(q["_id"]) in qrels]


def open_index(corpus: Path, index_dir: Path | None) -> LocalIndex:
    """The index of `corpus` under $SPARKIT_HOME (built on first use), or a given one checked to hold the
    same documents, whitespace aside (the SciFact and BEIR-SciFact files differ as files, not as documents)."""
    if index_dir is None:
        return open_corpus_index(corpus, default_index_dir(corpus, sparkit_home()), progress=True)
    index = LocalIndex.load(index_dir)
    given = {r.id: " ".join(r.text.split()) for r in load_corpus(corpus)}
    if given != {r.id: " ".join(r.text.split()) for r in index.records}:
        raise CorpusError(f"index at {index_dir} holds other documents than {corpus}: drop --index to build one")
    return index


# ------------------------------------------------------------------------------------------- runs
def first_stage(index: LocalIndex, rows_by_id: Mapping[str, int], query: str, config: str) -> list[int]:
    """Rows of the top DEPTH documents for a first-stage configuration (bm25, dense or hybrid)."""
    if config == "bm25":
        return [d for d, _ in index.lexical(query, DEPTH)]
    if config == "dense":
        return [d for d, _ in index.dense(shared_encoder().encode([query])[0], DEPTH)]
    return [rows_by_id[r.id] for r, _ in index.search(query, DEPTH)]


def forget_queries(queries: list[tuple[str, str]]) -> None:
    """Drop the queries' embeddings from the shared encoder's cache, so every configuration pays for its
    query encodings (qps would otherwise credit later configurations with earlier ones' work)."""
    encoder = shared_encoder()
    with encoder._lock:
        for _, text in queries:
            encoder._cache.pop(encoder._key(text), None)


def run_config(
    index: LocalIndex,
    queries: list[tuple[str, str]],
    qrels: Qrels,
    config: str,
    reranker: HybridReranker | None,
    folds: int,
) -> dict[str, float]:
    ids = [r.id for r in index.records]
    rows_by_id = {doc: row for row, doc in enumerate(ids)}
    rankings: dict[str, list[str]] = {}
    blocks: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    candidates: list[list[int]] = []
    rerank_seconds = 0.0
    forget_queries(queries)
    started = time.perf_counter()
    for qid, text in queries:
        rows = first_stage(index, rows_by_id, text, "hybrid" if reranker else config)
        if reranker is None:
            rankings[qid] = [ids[d] for d in rows]
            continue
        tick = time.perf_counter()
        docs = [index.records[d].text for d in rows]
        if config == "learned-cv":
            blocks.append(features(reranker.signals(text, docs)))
            labels.append(np.array([1.0 if qrels[qid].get(ids[d], 0) > 0 else 0.0 for d in rows]))
            candidates.append(rows)
        else:
            order = np.argsort(-np.asarray(reranker.scores(text, docs)), kind="stable")
            rankings[qid] = [ids[rows[i]] for i in order]
        rerank_seconds += time.perf_counter() - tick
    elapsed = time.perf_counter() - started
    if config == "learned-cv":
        query_ids = [qid for qid, _ in queries]
        scored = cross_validated_scores(
            query_ids, blocks, labels, grouped_folds({q: qrels[q] for q in query_ids}, folds)
        )
        for qid, rows, scores in zip(query_ids, candidates, scored):
            rankings[qid] = [ids[rows[i]] for i in np.argsort(-scores, kind="stable")]
    n = len(queries) or 1
    return {
        **summarise(rankings, qrels),
        "qps": len(queries) / elapsed if elapsed else 0.0,
        "rerank_ms": 1000 * rerank_seconds / n,
        "queries": len(queries),
    }


def reranker_for(config: str, store: Callable[[], SentenceStore]) -> HybridReranker | None:
    if config == "rerank":
        return HybridReranker(use_sentences=False)
    if config in ("rerank+sentences", "learned-cv"):
        return HybridReranker(sentences=store(), max_new_sentences=0)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.beir", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--queries", required=True, type=Path)
    parser.add_argument("--qrels", required=True, type=Path)
    parser.add_argument(
        "--index",
        "--index-dir",
        dest="index_dir",
        type=Path,
        help="an existing index of the same documents (default: $SPARKIT_HOME/index/<corpus>-<sha>, built on "
        "first use)",
    )
    parser.add_argument(
        "--configs", help=f"comma-separated subset of {', '.join(CONFIGS)} (default: all, or only --reranker's)"
    )
    parser.add_argument(
        "--reranker",
        "--config",
        dest="config",
        help="the configuration --json reports (default rerank+sentences); alone, the only one run",
    )
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds for learned-cv")
    parser.add_argument("--limit", type=int, help="evaluate only the first N judged queries")
    parser.add_argument(
        "--json", action="store_true", help="print the --reranker configuration's numbers as JSON on the last line"
    )
    args = parser.parse_args(argv)

    if args.configs:
        configs = [c for c in args.configs.split(",") if c]
    else:
        configs = [args.config] if args.config else list(CONFIGS)
    args.config = args.config or ("rerank+sentences" if "rerank+sentences" in configs else configs[-1])
    if args.config not in configs:
        configs.append(args.config)
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; choose from {', '.join(CONFIGS)}")
    qrels = load_qrels(args.qrels)
    queries = read_or_exit(parser, lambda: load_queries(args.queries, qrels))
    queries = queries[: args.limit] if args.limit else queries
    index = open_index(args.corpus, args.index_dir)
    shared_encoder().encode(["warm-up"])  # model load is not query time

    stores: list[SentenceStore] = []

    def store() -> SentenceStore:
        if not stores:
            found = SentenceStore.load(index)
            if found is None:
                print("building the sentence store (once per corpus; minutes on 2 cores)...", file=sys.stderr)
                found = SentenceStore.build(index, progress=True)
            stores.append(found)
        return stores[0]

    results = {
        config: run_config(index, queries, qrels, config, reranker_for(config, store), args.folds) for config in configs
    }
    print(
        f"\nBEIR retrieval: {len(queries)} queries, corpus {args.corpus.name} ({len(index.records)} docs), "
        f"commit {commit()}"
    )
    print(f"{'config':<18} {'nDCG@10':>8} {'R@100':>8} {'MRR@10':>8} {'q/s':>7} {'rerank ms':>10}")
    for config, r in results.items():
        print(
            f"{config:<18} {r['ndcg@10']:>8.4f} {r['recall@100']:>8.4f} {r['mrr@10']:>8.4f} {r['qps']:>7.1f} "
            f"{r['rerank_ms']:>10.1f}"
        )
    if args.json:
        print_json(
            {**results[args.config], "config": args.config, "depth": DEPTH, "folds": args.folds, "runs": results}
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
