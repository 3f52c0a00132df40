"""The decider: an MPNet direction reader for the few sentences a verdict rests on (a cascade).

The MiniLM readers read every sentence the court judges; which side a finding takes is where they are weakest
(direction on records with gold evidence barely above always-SUPPORT). all-mpnet-base-v2, trained the same way,
reads the side markedly better (evals/HISTORY.md, "A larger base") but seven times slower, so it reads only the
sentences a verdict could rest on: a claim's eligible findings read most strongly on either side, at most
`CASCADE_LIMIT` of them (agent/verdict/features.py `cascade_rows`). Its P(SUPPORT) and P(CONTRADICT) join those rows
under `readers['decider']` and reach the verdict model as features; a verdict model fitted with it names the adapter's
sha256 and is refused without it (agent/verdict/model.py).

Shipped as an adapter: MPNet's top layers and a two-way head as int8 with a scale per row
(training/pack_decider.py), read over the registry's base (agent/judges/mpnet_base.py), whose sha256 the adapter
names and the loader checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agent.errors import ConfigurationError
from agent.interfaces import StanceJudge, StanceResult
from agent.judges.cross import dequantized
from agent.judges.packaged import RecentPairsJudge, read_weights, softmax
from agent.records import STANCE_LABELS as LABELS

if TYPE_CHECKING:
    import torch

DECIDER_FILE = "decider_mpnet.npz"
SIDES = ("SUPPORT", "CONTRADICT")
BATCH = 16


def default_decider_weights_path() -> Path:
    return Path(__file__).resolve().parents[1] / "models" / DECIDER_FILE


def decider_weights_in_use(setting: str | None) -> Path | None:
    """The decider a run loads (`stance_decider_weights`: 'packaged', a file, or 'off' / null for none)."""
    if setting == "packaged":
        return default_decider_weights_path()
    return Path(setting).expanduser() if setting and setting != "off" else None


def build_reader(base: Path) -> torch.nn.Module:
    """The base encoder, mean-pooled, with a two-way head (SIDES order): training/trial_base.py's network."""
    import torch
    from transformers import AutoModel

    class DirectionNetwork(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base))
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, len(SIDES))

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return self.head((hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0))

    return DirectionNetwork()


class DeciderModel:
    """The base with the adapter's layers and head loaded; the base must be the one the adapter was trained over."""

    def __init__(self, path: Path):
        arrays = read_weights(path, "MPNet decider", "python -m training.pack_decider")
        try:
            self.meta: dict[str, Any] = json.loads(str(arrays.pop("meta")))
            labels = tuple(self.meta["labels"])
            self.temperature = float(self.meta.get("temperature", 1.0))
            self.max_len = int(self.meta.get("max_len", 128))
            wanted = str(self.meta["base_sha256"])
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigurationError(f"MPNet decider at {path} lacks its meta (labels, base_sha256): {exc}") from None
        if labels != SIDES:
            raise ConfigurationError(f"MPNet decider at {path} reads {labels}, expected {SIDES}")
        from agent.judges.mpnet_base import BASE_SHA256, mpnet_base_folder

        if wanted != BASE_SHA256:
            raise ConfigurationError(
                f"MPNet decider at {path} was trained over another base (sha256 {wanted[:12]}…, not "
                f"{BASE_SHA256[:12]}…)"
            )
        import torch
        from transformers import AutoTokenizer

        folder = mpnet_base_folder()
        self.network = build_reader(folder)
        state = self.network.state_dict()
        layers = dequantized(arrays)
        unknown = [k for k in layers if k not in state]
        if unknown:
            raise ConfigurationError(f"MPNet decider at {path} does not fit the base: {unknown[:3]}")
        state.update({k: torch.from_numpy(v) for k, v in layers.items()})
        self.network.load_state_dict(state)
        self.network.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))

    def logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        import torch

        out = np.zeros((len(pairs), len(SIDES)), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        with torch.inference_mode():
            for start in range(0, len(order), BATCH):
                rows = order[start : start + BATCH]
                enc = self.tokenizer(
                    [pairs[i][0] for i in rows],
                    [pairs[i][1] for i in rows],
                    truncation="longest_first",
                    max_length=self.max_len,
                    padding=True,
                    return_tensors="pt",
                )
                out[rows] = self.network(enc["input_ids"], enc["attention_mask"]).float().numpy()
        return out

    def predict_proba(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """[n, 3] in LABELS order: P(SUPPORT), P(CONTRADICT) and 0 for NEUTRAL (it reads only which side)."""
        sides = softmax(self.logits(pairs), self.temperature)
        return np.concatenate([sides, np.zeros((len(pairs), len(LABELS) - len(SIDES)), np.float32)], axis=1)


class DeciderReader(RecentPairsJudge):
    """The decider as a reader: loads lazily, reads off the event loop, keeps its recent pairs."""

    name = "decider"

    recent_pairs = 2048

    def __init__(self, weights: Path):
        super().__init__(weights)

    def default_path(self) -> Path:
        return default_decider_weights_path()

    def load(self, path: Path) -> DeciderModel:
        return DeciderModel(path)


class DeciderReadJudge:
    """A stance judge with the decider beside it: judges as the judge it wraps; `decider` reads the cascade's rows."""

    def __init__(self, base: StanceJudge, decider: DeciderReader):
        self.base, self.decider = base, decider
        self.name = f"{base.name}+decider"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        return await self.base.judge(pairs)
