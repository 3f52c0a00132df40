"""The fitted verdict model: from one court's readings to a verdict and the probability that it is right.

The court's hand-set rule (weighted sums, caps, a decisive floor, thresholds) read the direction of evidence little
better than always-SUPPORT, and its confidence did not tell right verdicts from wrong ones. This model is fitted
(training/fit_verdict.py) on the training parts of every benchmark at once and shipped as data
(agent/models/verdict.json): standardised features (agent/verdict/features.py) into a multinomial logistic
regression for a claim (SUPPORT / CONTRADICT / NOT_ENOUGH_INFO) and a conditional logit over a multiple-choice
question's options, each with its temperature and the operating point chosen out of fold (the file's `fit`
section says how). It holds only for the readers it was fitted on: the file names them with their weights' sha256,
and a file that does not match the running readers is refused with one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agent.errors import ConfigurationError
from agent.judges.breakdown import decider_readers, leaf_readers, record_readers

CLASSES = ("SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO")


def default_verdict_path() -> Path:
    return Path(__file__).resolve().parents[1] / "models" / "verdict.json"


def packaged_verdict_path(running: dict[str, str]) -> Path:
    """The packaged verdict model fitted on the running readers (agent/models/verdict*.json: one without the decider,
    one with it, agent/judges/decider.py), else the default file (whose refusal then says why)."""
    for path in sorted(default_verdict_path().parent.glob("verdict*.json")):
        if _reader_names(str(path), path.stat().st_mtime_ns) == frozenset(running):
            return path
    return default_verdict_path()


@lru_cache(maxsize=8)
def _reader_names(path: str, mtime_ns: int) -> frozenset[str] | None:
    """The readers a verdict model file names, parsed once per version of the file (None when it is unreadable)."""
    try:
        return frozenset(json.loads(Path(path).read_text(encoding="utf-8")).get("readers") or {})
    except (OSError, ValueError):
        return None


def reader_versions(judge: Any) -> dict[str, str]:
    """Each leaf reader of a judge by name, with its weights' sha256 ('' for a reader without weights)."""
    from agent.judges.packaged import weights_digest

    versions: dict[str, str] = {}
    for reader in leaf_readers(judge) + record_readers(judge) + decider_readers(judge):
        path = getattr(reader, "_path", None) or (reader.default_path() if hasattr(reader, "default_path") else None)
        versions[str(getattr(reader, "name", type(reader).__name__))] = weights_digest(Path(path)) if path else ""
    return versions


@dataclass(frozen=True)
class Linear:
    """Standardised features times coefficients: one row per class (a claim) or one row (options)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    temperature: float
    threshold: float
    confidence_map: tuple[float, float] | None = None  # (slope, offset) on the logit of a stated class's probability

    @classmethod
    def of(cls, section: dict[str, Any], what: str) -> Linear:
        try:
            features = tuple(section["features"])
            linear = cls(
                features=features,
                mean=np.asarray(section["mean"], dtype=np.float64),
                scale=np.asarray(section["scale"], dtype=np.float64),
                coef=np.atleast_2d(np.asarray(section["coef"], dtype=np.float64)),
                intercept=np.atleast_1d(np.asarray(section.get("intercept", [0.0]), dtype=np.float64)),
                temperature=float(section.get("temperature", 1.0)),
                threshold=float(section["threshold"]),
                confidence_map=_pair(section.get("confidence_map")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigurationError(f"verdict model's {what} section is malformed: {exc}") from exc
        if not (len(linear.mean) == len(linear.scale) == linear.coef.shape[1] == len(features)):
            raise ConfigurationError(f"verdict model's {what} section: feature list and coefficients differ in length")
        return linear

    def confidence(self, p: float) -> float:
        """The probability that a stated class is right, from the model's probability of it: a class-balanced model
        gives a rare class (CONTRADICT) the same chance to be stated as a common one, so its probabilities are not the
        chance of being right; the map, fitted out of fold (training/fit_verdict_balanced.py), is. Monotone, so it
        never changes which class leads. Without a map the probability is the model's own."""
        if self.confidence_map is None:
            return float(p)
        slope, offset = self.confidence_map
        q = min(max(float(p), 1e-6), 1 - 1e-6)
        return float(1.0 / (1.0 + np.exp(-(slope * np.log(q / (1 - q)) + offset))))

    def logits(self, rows: list[dict[str, float]]) -> np.ndarray:
        missing = sorted({name for row in rows for name in self.features if name not in row})
        if missing:
            raise ConfigurationError(f"verdict model needs features the court does not compute: {missing[:4]}")
        x = np.asarray([[row[name] for name in self.features] for row in rows], dtype=np.float64)
        z = (x - self.mean) / np.where(self.scale > 0, self.scale, 1.0)
        return (z @ self.coef.T + self.intercept) / self.temperature


def _pair(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    slope, offset = (float(v) for v in value)
    if slope <= 0:
        raise ValueError("a confidence map must increase with the probability (slope > 0)")
    return slope, offset


def softmax(logits: np.ndarray, axis: int = 1) -> np.ndarray:
    """Probabilities along `axis` (training/fit_verdict.py uses the same, so fit and runtime normalise alike)."""
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


SETTINGS = ("corpus", "documents")  # a claim checked against the searched literature, or against given documents


@dataclass(frozen=True)
class VerdictModel:
    claims: dict[str, Linear]  # by setting (SETTINGS): the two read evidence differently (a corpus's many records
    # of which few are on the claim, or the one abstract the question comes with)
    option: Linear
    readers: dict[str, str]
    fit: dict[str, Any]

    def claim_model(self, setting: str) -> Linear:
        return self.claims.get(setting) or self.claims["corpus"]

    def claim_probabilities(self, features: dict[str, float], setting: str = "corpus") -> dict[str, float]:
        """P(SUPPORT), P(CONTRADICT), P(NOT_ENOUGH_INFO) of one claim in one setting."""
        row = softmax(self.claim_model(setting).logits([features]), axis=1)[0]
        return {label: float(p) for label, p in zip(CLASSES, row, strict=True)}

    def option_probabilities(self, options: list[dict[str, float]]) -> list[float]:
        """Each option's probability of being the right one (they sum to 1)."""
        if not options:
            return []
        return [float(p) for p in softmax(self.option.logits(options)[:, 0], axis=0)]


def read_model(path: Path) -> VerdictModel:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        readers = {str(k): str(v) for k, v in data["readers"].items()}
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        raise ConfigurationError(f"verdict model at {path} is unreadable: {exc}") from exc
    sections = data.get("claim") or {}
    if "corpus" not in sections:
        raise ConfigurationError(f"verdict model at {path} has no 'corpus' claim model")
    return VerdictModel(
        claims={name: Linear.of(section, f"claim/{name}") for name, section in sections.items()},
        option=Linear.of(data.get("option") or {}, "option"),
        readers=readers,
        fit=dict(data.get("fit") or {}),
    )


@lru_cache(maxsize=4)
def _cached(path: str, mtime_ns: int) -> VerdictModel:
    return read_model(Path(path))


def verdict_model_for(path: Path, running: dict[str, str]) -> VerdictModel | None:
    """The model at `path` when it was fitted on the running readers; None when they are other readers (a chat
    model, a heuristic-only judge: the court's formula decides); ConfigurationError when the same readers run
    with other weights (the file is stale: refit it) or the file is missing or malformed."""
    if not path.is_file():
        raise ConfigurationError(
            f"verdict model {path} does not exist: fit one with `python -m training.fit_verdict` or set "
            "court.verdict_model=false"
        )
    model = _cached(str(path.resolve()), path.stat().st_mtime_ns)
    if set(model.readers) != set(running):
        return None
    stale = sorted(name for name, digest in model.readers.items() if running[name] != digest)
    if stale:
        raise ConfigurationError(
            f"verdict model {path} was fitted on other weights of {', '.join(stale)}: refit it with "
            "`python -m training.fit_verdict`"
        )
    return model
