"""What the judges with packaged weights share: reading the weights file with clear errors, loading it once
(lazily, thread-safe) and judging off the event loop."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agent.errors import ConfigurationError
from agent.interfaces import StanceResult
from agent.records import STANCE_LABELS as LABELS


def read_weights(path: Path, what: str, retrain: str) -> dict[str, np.ndarray]:
    """The arrays of an npz weights file (no pickle); ConfigurationError when it is missing or unreadable."""
    if not path.is_file():
        raise ConfigurationError(
            f"{what} weights not found at {path}; run `{retrain}` or use another stance_model (e.g. 'heuristic')"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"{what} weights at {path} are unreadable: {exc}") from exc


def weights_digest(path: Path) -> str:
    """sha256 of a weights file ('' when absent): what a calibration fitted for one judge's weights is checked
    against."""
    if not path.is_file():
        return ""
    stat = path.stat()
    return _digest(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def softmax(logits: np.ndarray, temperature: float = 1.0, bias: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax of logits / temperature + bias (the log-prior shift)."""
    z = logits / temperature + (0.0 if bias is None else bias)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class PackagedModelJudge:
    """A StanceJudge over a model loaded from packaged weights on first use.

    Subclasses say where the weights live (`default_path`), how to load them (`load`) and how to turn pairs into
    class probabilities in LABELS order (`probabilities`).
    """

    name = "packaged"

    def __init__(self, weights: Path | None = None):
        self._path = weights
        self._model: Any = None
        self._lock = threading.Lock()

    def default_path(self) -> Path:
        raise NotImplementedError

    def load(self, path: Path) -> Any:
        raise NotImplementedError

    def probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Probabilities [n, 3] (LABELS order) for (statement, passage) pairs; synchronous, for evals."""
        raise NotImplementedError

    @property
    def model(self) -> Any:
        """The model, loaded on first use; raises ConfigurationError when the weights are missing or stale."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self.load(self._path or self.default_path())
        return self._model

    def judge_sync(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        return [StanceResult.from_probabilities(LABELS, p) for p in self.probabilities(pairs)]

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        """Stance of each (statement, passage) pair; the CPU work runs in a thread."""
        return await asyncio.to_thread(self.judge_sync, pairs)


class RecentPairsJudge(PackagedModelJudge):
    """A packaged judge whose model has `predict_proba(pairs)`, reading one call at a time (one intra-op thread pool:
    calls from several threads queue) and keeping its recent pairs' rows: the composed judges and the court's
    readers ask the same pairs more than once (the direction reader re-asks the ensemble's)."""

    recent_pairs = 4096

    def __init__(self, weights: Path | None = None):
        super().__init__(weights)
        self._inference = threading.Lock()
        self._recent: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    def probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Probabilities [n, 3] (LABELS order) for (statement, passage) pairs; synchronous, for evals."""
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        model = self.model
        with self._inference:
            missing = list(dict.fromkeys(pair for pair in pairs if pair not in self._recent))
            if missing:
                for pair, row in zip(missing, model.predict_proba(missing), strict=True):
                    self._recent[pair] = row
            for pair in pairs:
                self._recent.move_to_end(pair)
            result = np.stack([self._recent[pair] for pair in pairs])
            while len(self._recent) > self.recent_pairs:
                self._recent.popitem(last=False)
            return result
