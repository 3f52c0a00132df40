"""Encoding a large corpus in checkpointed chunks, so an embedded index build that stops resumes where it stopped.

Encoding is nearly all of an index build's cost (MiniLM: 30-70 ms of CPU per abstract, about 20 CPU-hours for a
million), and LocalIndex.build writes nothing until the end. A crash, a reboot or Ctrl-C used to cost everything
encoded so far. Here the texts are encoded CHUNK at a time and each chunk's vectors are saved (written to a temporary
file, then renamed) in a work folder beside the index; the next build of the same texts loads the chunks already
there and encodes the rest. A chunk's file is named by the sha256 of its texts, so a changed corpus never reuses the
vectors of other texts. The folder is removed once the index is saved.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agent.tools.models.encoder import DIM, MiniLMEncoder

CHUNK = 20_000  # about 20-25 minutes of encoding on 2 cores: what a stop can cost at most


def work_folder(index_dir: Path) -> Path:
    """Where the chunks of `index_dir`'s build are kept until it is saved."""
    return index_dir.parent / f".encoding-{index_dir.name}"


def _chunk_file(work: Path, number: int, texts: list[str]) -> Path:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return work / f"chunk-{number:05d}-{digest.hexdigest()[:16]}.npy"


def _load(path: Path, rows: int) -> np.ndarray | None:
    """A saved chunk, or None when it is absent or unreadable (a chunk is trusted only whole)."""
    if not path.is_file():
        return None
    try:
        vectors = np.load(path)
    except (OSError, ValueError):
        return None
    return vectors if vectors.shape == (rows, DIM) else None


def encode_resumable(
    texts: list[str],
    work: Path,
    encoder: MiniLMEncoder,
    *,
    on_progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    announce: bool = True,
) -> np.ndarray:
    """`encoder.encode(texts, bulk=True)`, CHUNK texts at a time, each chunk saved in `work` as it is done and
    loaded instead of encoded when a build of the same texts finds it there. A corpus of one chunk or less is encoded
    in one call and nothing is saved."""
    if len(texts) <= chunk:
        return encoder.encode(texts, on_progress=on_progress, bulk=True)
    work.mkdir(parents=True, exist_ok=True)
    parts: list[np.ndarray] = []
    reused = 0
    for number, start in enumerate(range(0, len(texts), chunk)):
        piece = texts[start : start + chunk]
        path = _chunk_file(work, number, piece)
        vectors = _load(path, len(piece))
        if vectors is not None:
            reused += len(piece)
            if on_progress is not None:
                on_progress(len(piece))
        else:
            if reused and announce and start == reused:
                print(
                    f"resuming: {reused:,} of {len(texts):,} records were encoded by an earlier build; they are "
                    "loaded, not encoded again",
                    file=sys.stderr,
                    flush=True,
                )
            vectors = encoder.encode(piece, on_progress=on_progress, bulk=True)
            partial = path.with_name(path.name + ".partial")
            with partial.open("wb") as handle:
                np.save(handle, vectors)
            os.replace(partial, path)
        parts.append(np.asarray(vectors, dtype=np.float32))
    return np.vstack(parts)


def discard(work: Path) -> None:
    """Remove a build's chunks once its index is saved."""
    shutil.rmtree(work, ignore_errors=True)
