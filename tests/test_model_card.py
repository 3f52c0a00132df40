"""agent/models/MODEL_CARD.md names the sha256 of every shipped model file: a retrained file needs its card."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1] / "agent" / "models"


def test_every_shipped_model_file_is_on_the_card_with_its_digest():
    card = (MODELS / "MODEL_CARD.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\b[0-9a-f]{64}\b", card))
    shipped = sorted(p for p in MODELS.iterdir() if p.suffix in {".npz", ".json"})
    assert shipped
    for path in shipped:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert path.name in card, f"{path.name} is not described in MODEL_CARD.md"
        assert digest in listed, f"MODEL_CARD.md does not carry the sha256 of the shipped {path.name} ({digest})"
