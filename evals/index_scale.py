"""The embedded index against the Qdrant one as the corpus grows: build time, peak memory, disk, query latency, quality.

    python -m evals.index_scale --corpus ../shared/data/scifact/corpus.jsonl \\
        --queries ../shared/data/beir-scifact/queries.jsonl --qrels ../shared/data/beir-scifact/qrels/train.tsv \\
        --vectors-from /tmp/sk-base/index/corpus-b8d6c89624 --sizes 5183,10000,100000 --work /dev/shm/sk-scale

A corpus of N records is the SciFact abstracts repeated with fresh ids (`<id>~<copy>`) until N: no larger real
corpus is at hand. Repeated texts reuse the vectors of an embedded index of the corpus (`--vectors-from`, primed into
the encoder's cache) instead of being encoded again: encoding a million abstracts on two shared cores would take days.
So build time is everything but the encoding (reading, tokenising, BM25, writing); add about 50 ms of CPU per new
abstract for MiniLM in bf16, 1.7 times that in fp32 (`agent.tools.index.local_index.estimated_build_s`).

Each engine and size runs in two child processes, one building and one serving (open the index, then the queries),
so each peak RSS (ru_maxrss from wait4) is that step's alone. Disk is the index folder's size. Latency is one
`search_scored(query, 100)` call (query encoding included, the encoder's cache cleared), what the agent pays per
query; nDCG@10 and recall@100 are BEIR-SciFact's on the judged queries (train qrels) over the returned ranking. With
copies, a copy of a relevant document counts as that document, and a ranking keeps each source document once (its
first copy), so quality at N is comparable with quality at 5,183.

Engines: `embedded` (agent.tools.index.local_index), `qdrant` (a Qdrant folder: Qdrant Edge, the server's engine
in-process, with HNSW, int8 quantisation and the sparse index; its build time includes building the HNSW graph) and
`qdrant-local` (qdrant-client's local mode: exact search in Python, quantisation and HNSW accepted and ignored, each
point written with its own SQLite commit; put --work on tmpfs (/dev/shm) so those commits do not measure the disk's
fsync). No Qdrant server can be installed here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COPY_MARK = "~"


def source_id(record_id: str) -> str:
    return record_id.split(COPY_MARK, 1)[0]


def write_corpus(corpus: Path, size: int, target: Path) -> int:
    """`corpus`'s records, then copies with fresh ids, until `size` lines; returns the lines written."""
    lines = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    key = "doc_id" if "doc_id" in lines[0] else "_id" if "_id" in lines[0] else "id"
    written = 0
    with target.open("w", encoding="utf-8") as out:
        copy = 0
        while written < size:
            for obj in lines:
                if written >= size:
                    break
                out.write(json.dumps({**obj, key: f"{obj[key]}{COPY_MARK}{copy}" if copy else obj[key]}) + "\n")
                written += 1
            copy += 1
    return written


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def run_child(args: list[str]) -> tuple[dict[str, Any], int]:
    """A child step's JSON result (its last stdout line) and its peak RSS in bytes."""
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
    }  # one torch thread: on shared cores OpenMP's spinning threads cost more than they give
    proc = subprocess.Popen(
        [sys.executable, "-m", "evals.index_scale", *args], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child {' '.join(args[:3])} failed with exit {proc.returncode}")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss * 1024


# ------------------------------------------------------------------------------------------- child steps
def _prime(vectors_from: str | None) -> None:
    if vectors_from:
        from agent.tools.index.qdrant_build import prime_from_embedded

        prime_from_embedded(Path(vectors_from))


def _location(engine: str, target: Path) -> Any:
    from agent.tools.index.qdrant_index import QdrantLocation

    return QdrantLocation(collection="scale", path=str(target), local="client" if engine == "qdrant-local" else "edge")


def child_build(engine: str, corpus: Path, target: Path, vectors_from: str | None) -> dict[str, Any]:
    _prime(vectors_from)
    started = time.perf_counter()
    if engine == "embedded":
        from agent.tools.index.local_index import LocalIndex

        LocalIndex.build(corpus, target, progress=False)
    else:
        from agent.tools.index.qdrant_build import build_qdrant_index

        build_qdrant_index(corpus, _location(engine, target), batch_size=512)
    return {"build_s": time.perf_counter() - started}


def child_serve(
    engine: str, target: Path, queries: list[tuple[str, str]], qrels: dict[str, dict[str, int]]
) -> dict[str, Any]:
    from agent.tools.models.encoder import shared_encoder
    from evals.beir import forget_queries, summarise

    started = time.perf_counter()
    if engine == "embedded":
        from agent.tools.index.local_index import LocalIndex

        index: Any = LocalIndex.load(target)
    else:
        from agent.tools.index.qdrant_index import QdrantIndex

        index = QdrantIndex.open(_location(engine, target))
    open_s = time.perf_counter() - started
    shared_encoder().encode(["warm-up"])
    forget_queries(queries)
    latencies, rankings = [], {}
    for qid, text in queries:
        tick = time.perf_counter()
        hits = index.search_scored(text, 100)
        latencies.append(time.perf_counter() - tick)
        rankings[qid] = list(dict.fromkeys(source_id(r.id) for r, _ in hits))
    quality = summarise(rankings, qrels)
    ordered = sorted(latencies)
    return {
        "open_s": open_s,
        "latency_ms_median": 1000 * statistics.median(latencies),
        "latency_ms_p95": 1000 * ordered[max(0, round(0.95 * len(ordered)) - 1)],
        "ndcg@10": quality["ndcg@10"],
        "recall@100": quality["recall@100"],
        "queries": len(queries),
        "top10": {q: r[:10] for q, r in rankings.items()},
    }


# ------------------------------------------------------------------------------------------- driver
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.index_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the JSONL corpus to repeat (SciFact)")
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--qrels", type=Path, required=True)
    parser.add_argument("--vectors-from", help="an embedded index of --corpus whose vectors are reused")
    parser.add_argument("--sizes", default="5183,10000,100000", help="comma-separated record counts")
    parser.add_argument("--engines", default="embedded,qdrant", help="embedded, qdrant (Edge), qdrant-local")
    parser.add_argument("--query-limit", default="100", help="judged queries per size, one count or one per size")
    parser.add_argument("--work", type=Path, default=Path("/dev/shm/sk-scale"))
    parser.add_argument("--out", type=Path, help="append each result as a JSON line to this file")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep each index folder (not removed before or after): a Qdrant build stopped midway resumes",
    )
    parser.add_argument("--child", nargs=3, metavar=("STEP", "ENGINE", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    from evals.beir import load_qrels, load_queries

    qrels = load_qrels(args.qrels)
    all_queries = load_queries(args.queries, qrels)
    sizes = [int(s) for s in args.sizes.split(",")]
    limits = [int(n) for n in args.query_limit.split(",")]
    limits = limits * len(sizes) if len(limits) == 1 else limits
    if args.child:
        step, engine, target = args.child
        if step == "build":
            result = child_build(engine, args.corpus, Path(target), args.vectors_from)
        else:
            result = child_serve(engine, Path(target), all_queries[: limits[0]], qrels)
        print(json.dumps(result))
        return 0

    from evals.report import commit

    args.work.mkdir(parents=True, exist_ok=True)
    print(f"index scale: corpus {args.corpus.name} repeated, commit {commit()}", file=sys.stderr)
    rows = []
    for size, limit in zip(sizes, limits, strict=True):
        corpus = args.work / f"corpus-{size}.jsonl"
        if not (args.keep and corpus.exists()):
            write_corpus(args.corpus, size, corpus)
        for engine in args.engines.split(","):
            target = args.work / f"{engine}-{size}"
            if not args.keep:
                shutil.rmtree(target, ignore_errors=True)
            common = [
                "--corpus",
                str(corpus),
                "--queries",
                str(args.queries),
                "--qrels",
                str(args.qrels),
                "--query-limit",
                str(limit),
            ] + (["--vectors-from", args.vectors_from] if args.vectors_from else [])
            built, build_rss = run_child(["--child", "build", engine, str(target), *common])
            served, serve_rss = run_child(["--child", "serve", engine, str(target), *common])
            row = {
                "engine": engine,
                "records": size,
                "commit": commit(),
                **built,
                "build_peak_rss_mb": build_rss / 2**20,
                "disk_mb": du(target) / 2**20,
                **served,
                "serve_peak_rss_mb": serve_rss / 2**20,
            }
            rows.append(row)
            shown = {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items() if k != "top10"}
            print(json.dumps(shown), file=sys.stderr, flush=True)
            if args.out:
                with args.out.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(row) + "\n")
            if not args.keep:
                shutil.rmtree(target, ignore_errors=True)
        if not args.keep:
            corpus.unlink(missing_ok=True)
    print(
        f"{'engine':<9} {'records':>9} {'build s':>8} {'build RSS MB':>12} {'disk MB':>8} {'open s':>7} "
        f"{'serve RSS MB':>12} {'p50 ms':>8} {'p95 ms':>8} {'nDCG@10':>8} {'R@100':>7} {'queries':>7}"
    )
    for r in rows:
        print(
            f"{r['engine']:<9} {r['records']:>9,} {r['build_s']:>8.1f} {r['build_peak_rss_mb']:>12.0f} "
            f"{r['disk_mb']:>8.0f} {r['open_s']:>7.1f} {r['serve_peak_rss_mb']:>12.0f} "
            f"{r['latency_ms_median']:>8.0f} {r['latency_ms_p95']:>8.0f} {r['ndcg@10']:>8.4f} "
            f"{r['recall@100']:>7.4f} {r['queries']:>7}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
