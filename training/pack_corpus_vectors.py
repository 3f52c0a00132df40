"""Pack the default corpus's document vectors into agent/models/ (agent/tools/index/packaged_vectors.py reads them).

    python -m training.pack_corpus_vectors --corpus ../shared/data/scifact/corpus.jsonl --dtype int8 \\
        [--fp32 /tmp/scifact-fp32.npy] [--index-dirs /tmp/sk-vectors]

The corpus is encoded once in fp32 (the query encoder's precision, not the index build's bf16, so the shipped vectors
do not depend on the CPU that made them; `--fp32 PATH` keeps them and reuses them on a rerun), then stored as
`--dtype` (int8: one scale per row; bf16: the top 16 bits). `--index-dirs DIR` also writes three index folders,
DIR/fp32, DIR/int8 and DIR/bf16, over the same records with each set of vectors, for

    python -m evals.beir --corpus ../shared/data/beir-scifact/corpus.jsonl --index DIR/int8 \\
        --queries ../shared/data/beir-scifact/queries.jsonl --qrels ../shared/data/beir-scifact/qrels/train.tsv

which is how the dtype was chosen (evals/HISTORY.md, "Shipped corpus vectors"): the smaller one whose nDCG@10 stays
within 0.005 of fp32. Rewrite agent/models/MODEL_CARD.md's digests after packing (tests/test_model_card.py).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
from pathlib import Path

import numpy as np

from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.local_index import LocalIndex, file_digest
from agent.tools.index.packaged_vectors import DTYPES, MANIFEST, MODELS, quantised, restored, texts_digest
from agent.tools.models.encoder import DIM, MODEL_NAME, shared_encoder
from benchmarks.cli import commit


def fp32_vectors(texts: list[str], cache: Path | None) -> np.ndarray:
    """The texts encoded by the fp32 model (normalised), read from `cache` when it holds them."""
    if cache is not None and cache.is_file():
        vectors = np.load(cache)
        if vectors.shape == (len(texts), DIM):
            return vectors.astype(np.float32)
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        print(f"encoded {done[0]:,} of {len(texts):,}", flush=True)

    vectors = shared_encoder().encode(texts, on_progress=progress, bulk=False)
    if cache is not None:
        np.save(cache, vectors)
    return vectors


def pack(vectors: np.ndarray, corpus: Path, texts: list[str], dtype: str, out: Path) -> dict:
    """Write the vectors file and its manifest into `out`; the manifest."""
    buffer = io.BytesIO()
    np.savez(buffer, **quantised(vectors, dtype))
    data = buffer.getvalue()
    name = f"scifact-vectors-{dtype}.npz"
    (out / name).write_bytes(data)
    manifest = {
        "file": name,
        "corpus_sha256": file_digest(corpus),
        "texts_sha256": texts_digest(texts),
        "model": MODEL_NAME,
        "shape": [len(texts), DIM],
        "dtype": dtype,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "encoded": f"fp32, training/pack_corpus_vectors.py at {commit()}",
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.pack_corpus_vectors", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--dtype", choices=DTYPES, default="int8")
    parser.add_argument("--fp32", type=Path, help="keep the fp32 vectors here (reused when present)")
    parser.add_argument("--out", type=Path, default=MODELS, help="where to write (default agent/models)")
    parser.add_argument("--index-dirs", type=Path, help="also write DIR/fp32, DIR/int8, DIR/bf16 index folders")
    args = parser.parse_args(argv)

    records = load_corpus(args.corpus)
    texts = [r.text for r in records]
    vectors = fp32_vectors(texts, args.fp32)
    manifest = pack(vectors, args.corpus, texts, args.dtype, args.out)
    print(json.dumps(manifest))
    if args.index_dirs:
        for dtype in ("fp32", *DTYPES):
            chosen = vectors if dtype == "fp32" else restored(quantised(vectors, dtype), dtype)
            LocalIndex.from_vectors(args.corpus, args.index_dirs / dtype, records, chosen)
            drift = float(np.abs(np.einsum("ij,ij->i", chosen, vectors) - 1.0).max())
            print(f"{dtype}: {args.index_dirs / dtype} (largest change of a vector's cosine to itself {drift:.6f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
