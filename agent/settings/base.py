"""What every settings group shares: the pydantic base that forbids unknown fields, the value types fields are
typed with, and the packaged word lists (agent/lexicons) a setting defaults to."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

OfflineJudge = Literal["cross", "trained", "ensemble", "heuristic"]
StanceModel = Literal["auto", "llm", OfflineJudge]
ModelRole = Literal["fast", "strong", "second"]
StructuredOutput = Literal["auto", "json_schema", "function_calling", "json_mode", "prompt"]

LEXICONS_DIR = Path(__file__).resolve().parent.parent / "lexicons"


@cache
def lexicon(name: str) -> dict[str, Any]:
    """The entries of agent/lexicons/<name>.json, a word list a setting defaults to (its `description` says what
    they are); a copy is the setting's default, so a caller can change it."""
    data = json.loads((LEXICONS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return dict(data["entries"])


class SettingsGroup(BaseModel):  # one group of a run's settings: agent.config.Context holds one of each
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
