"""The trained offline stance judge: a small MLP over frozen MiniLM pair features, run in numpy.

No NLI model ships with weights, so the project trains its own (training/train_stance.py) on SciFact
rationales and HealthVer. Inference needs only numpy and the shared encoder: statement and passage
embeddings come from the encoder's LRU cache, so judging hundreds of pairs costs one matrix product.
Weights live in `agent/models/stance_mlp.npz` (no pickle) and load lazily on first use.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from agent.errors import ConfigurationError
from agent.judges.features import FEATURE_NAMES, pair_features
from agent.judges.packaged import PackagedModelJudge, read_weights, softmax
from agent.records import STANCE_LABELS as LABELS
from agent.tools.models.encoder import MiniLMEncoder, shared_encoder

WEIGHTS_FILE = "stance_mlp.npz"


def default_weights_path() -> Path:
    """Where the packaged weights live (agent/models/stance_mlp.npz)."""
    # Not importlib.resources: under an editable install it can return a MultiplexedPath that cannot join files.
    return Path(__file__).resolve().parents[1] / "models" / WEIGHTS_FILE


class StanceMLP:
    """Standardise, ReLU hidden layers, temperature-scaled softmax over LABELS."""

    def __init__(self, path: Path):
        arrays = read_weights(path, "stance model", "python -m training.train_stance")
        names = tuple(str(n) for n in arrays.get("feature_names", ()))
        labels = tuple(str(n) for n in arrays.get("labels", ()))
        if names != FEATURE_NAMES or labels != LABELS:
            raise ConfigurationError(
                f"stance model weights at {path} were trained for other features or labels; retrain with "
                "`python -m training.train_stance`"
            )
        n_layers = int(arrays["n_layers"])
        self.weights = [arrays[f"w{i}"].astype(np.float32) for i in range(n_layers)]
        self.biases = [arrays[f"b{i}"].astype(np.float32) for i in range(n_layers)]
        self.mean = arrays["mean"].astype(np.float32)
        self.scale = arrays["scale"].astype(np.float32)
        self.temperature = float(arrays["temperature"])
        self.meta: dict = json.loads(str(arrays["meta"]))

    def logits(self, features: np.ndarray) -> np.ndarray:
        h = (features - self.mean) / self.scale
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < len(self.weights) - 1:
                np.maximum(h, 0.0, out=h)
        return h

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        """Class probabilities [n, 3] in LABELS order."""
        return softmax(self.logits(features), self.temperature)


class TrainedStanceJudge(PackagedModelJudge):
    """StanceJudge backed by the packaged MLP; batch-encodes unique texts once per call."""

    name = "trained"

    def __init__(self, weights: Path | None = None, encoder: MiniLMEncoder | None = None):
        super().__init__(weights)
        self._encoder = encoder

    def default_path(self) -> Path:
        return default_weights_path()

    def load(self, path: Path) -> StanceMLP:
        return StanceMLP(path)

    def probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Probabilities [n, 3] (LABELS order) for (statement, passage) pairs; synchronous, for evals."""
        model = self.model
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        statements = [s for s, _ in pairs]
        passages = [p for _, p in pairs]
        unique = list(dict.fromkeys(statements + passages))
        vectors = (self._encoder or shared_encoder()).encode(unique)
        row = {text: i for i, text in enumerate(unique)}
        u = vectors[[row[s] for s in statements]]
        v = vectors[[row[p] for p in passages]]
        return model.predict_proba(pair_features(u, v, statements, passages))
