"""The default corpus's document vectors, shipped with the package, so a first run loads them instead of encoding.

The offline default corpus is SciFact's 5,183 abstracts, fixed and checked by sha256 (agent/backend/corpus.py), so its
MiniLM vectors are the same for every user; encoding them was about 135 s of a first answer's 150 on 2 quiet cores. They
ship in agent/models/ as int8 with one fp32 scale per row (about 2 MB; BEIR-SciFact nDCG@10 within 0.005 of the fp32
vectors they were quantised from, evals/HISTORY.md "Shipped corpus vectors"), written by
training/pack_corpus_vectors.py, beside a small manifest naming the corpus's sha256, the digest of its texts as
agent.tools.index.corpus_records reads them, the encoder, the array's shape and dtype and the file's own sha256 and
size.

An index build asks here first (`LocalIndex.build`). Vectors are used only for the corpus they were made from, read
the same way: any other corpus (or the same file read differently by a later version) finds none and is encoded as
before, so an answer never comes from another corpus's vectors. A damaged file (another size or checksum, arrays of
another shape) is reported in one warning line on stderr and the corpus is encoded instead.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agent.tools.models.encoder import DIM, MODEL_NAME

MODELS = Path(__file__).resolve().parents[2] / "models"
MANIFEST = "scifact-vectors.json"
"""The manifest in agent/models/; its `file` names the vectors beside it."""
DTYPES = ("int8", "bf16")


def texts_digest(texts: list[str]) -> str:
    """sha256 over the texts in order, each ended by a NUL: what the vectors encode, as this code reads the corpus."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def quantised(vectors: np.ndarray, dtype: str) -> dict[str, np.ndarray]:
    """fp32 vectors stored as `dtype`: int8 with one scale per row (max |x| / 127), or bf16 as the top 16 bits of
    each fp32, rounded to nearest even (numpy has no bfloat16)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if dtype == "int8":
        scales = np.maximum(np.abs(vectors).max(axis=1), 1e-12) / 127.0
        return {
            "vectors": np.round(vectors / scales[:, None]).astype(np.int8),
            "scales": scales.astype(np.float32),
        }
    if dtype == "bf16":
        bits = vectors.view(np.uint32)
        rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
        return {"vectors": (rounded >> np.uint32(16)).astype(np.uint16)}
    raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")


def restored(arrays: dict[str, np.ndarray], dtype: str) -> np.ndarray:
    """The fp32 vectors back from `quantised`, renormalised to unit length (as the encoder returns them)."""
    if dtype == "int8":
        vectors = arrays["vectors"].astype(np.float32) * arrays["scales"][:, None].astype(np.float32)
    elif dtype == "bf16":
        vectors = (arrays["vectors"].astype(np.uint32) << np.uint32(16)).view(np.float32)
    else:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")
    return (vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def read_manifest(folder: Path | None = None) -> dict[str, Any] | None:
    """The shipped manifest (in `folder`, default agent/models), or None when none ships (or it is unreadable: then
    nothing is loaded)."""
    try:
        data = json.loads(((folder or MODELS) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def packaged_vectors(corpus_sha256: str, texts: list[str], folder: Path | None = None) -> np.ndarray | None:
    """The shipped fp32 vectors of a corpus of this digest whose texts these are, or None: when none ship for it (any
    other corpus), or the file is damaged (then with one warning line on stderr)."""
    manifest = read_manifest(folder)
    if (
        manifest is None
        or manifest.get("corpus_sha256") != corpus_sha256
        or manifest.get("model") != MODEL_NAME
        or manifest.get("texts_sha256") != texts_digest(texts)
    ):
        return None
    path = (folder or MODELS) / str(manifest.get("file"))
    vectors, problem = _read(path, manifest, len(texts))
    if vectors is None:
        print(
            f"warning: the packaged vectors {path.name} are damaged ({problem}); encoding the corpus instead",
            file=sys.stderr,
        )
    return vectors


def _read(path: Path, manifest: dict[str, Any], rows: int) -> tuple[np.ndarray | None, str]:
    """The vectors file checked against its manifest (present, its size and sha256, its arrays' shape), restored to
    fp32; else None and what is wrong."""
    try:
        data = path.read_bytes()
    except OSError:
        return None, "missing"
    if len(data) != manifest.get("bytes"):
        return None, f"{len(data):,} bytes, expected {manifest.get('bytes')}"
    if hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
        return None, "sha256 mismatch"
    try:
        with np.load(io.BytesIO(data)) as stored:
            vectors = restored({name: stored[name] for name in stored.files}, str(manifest.get("dtype")))
    except (OSError, ValueError, KeyError) as exc:
        return None, f"unreadable ({type(exc).__name__})"
    if not vectors.shape == tuple(manifest.get("shape") or ()) == (rows, DIM):
        return None, f"shape {vectors.shape}, the manifest says {manifest.get('shape')}, the corpus {(rows, DIM)}"
    if not np.isfinite(vectors).all():
        return None, "not finite"
    return vectors, ""
