"""Confidence: a feature blend (seeds 000/001/004) mapped to probabilities by a calibrator.

`evidence_score` is the seeds' hand-set blend of hypothesis margin, the 2x consensus rule (capped at +0.08),
claim verification rate and ledger coverage. It ranks answers but is not a probability: on SciFact claims
its ECE was 0.38. A calibrator turns it into two probabilities, fitted on labelled claims:

- `leading`: that the court's leading answer is right (the answer abstains when this is below
  `abstain_threshold`);
- `abstention`: that "insufficient evidence" is the right answer, reported when the run abstains.

`PlattCalibrator` reads the logistic maps that training/fit_calibration.py fits on SciFact validation claims
(agent/models/calibration.json). They hold for the judge they were fitted with, so the backend falls back
to `RawScore` (the blend itself) for any other judge.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from agent.records import Claim, ClaimVerdict, Hypothesis, LedgerEntry

BASE = 0.3
MARGIN_WEIGHT = 0.4
CONSENSUS_BONUS = 0.08
VERIFICATION_WEIGHT = 0.2
COVERAGE_WEIGHT = 0.1
NO_EVIDENCE_SCORE = 0.05


def consensus(hypotheses: list[Hypothesis]) -> bool:
    """Exactly one hypothesis has more than twice the runner-up's positive score."""
    scores = sorted((max(h.score, 0.0) for h in hypotheses), reverse=True)
    return (len(scores) >= 2 and scores[0] > 0 and scores[0] > 2 * scores[1]) or (len(scores) == 1 and scores[0] > 0)


def verification_rate(claims: list[Claim]) -> float:
    """Share of checked claims that are verified and back the answer; 0.5 when no claim was checked (no
    information). A verified quote of evidence against the answer is corroborated counter-evidence: it counts as
    not backing the answer, never as raising its confidence."""
    if not claims:
        return 0.5
    return sum(c.verdict == ClaimVerdict.VERIFIED and not c.against_answer for c in claims) / len(claims)


def coverage(hypotheses: list[Hypothesis], ledger: list[LedgerEntry]) -> float:
    """Share of hypotheses with at least two supporting passages."""
    if not hypotheses:
        return 0.0
    covered = sum(1 for h in hypotheses if sum(e.hypothesis_id == h.id and e.stance == "SUPPORT" for e in ledger) >= 2)
    return covered / len(hypotheses)


def evidence_score(
    margin: float | None, hypotheses: list[Hypothesis], claims: list[Claim], ledger: list[LedgerEntry]
) -> float:
    """The seeds' uncalibrated blend in [0, 1]; NO_EVIDENCE_SCORE when no passage took a side."""
    if not hypotheses or not any(e.stance != "NEUTRAL" for e in ledger):
        return NO_EVIDENCE_SCORE
    value = BASE + MARGIN_WEIGHT * (margin or 0.0)
    value += CONSENSUS_BONUS if consensus(hypotheses) else 0.0
    value += VERIFICATION_WEIGHT * (verification_rate(claims) - 0.5)
    value += COVERAGE_WEIGHT * coverage(hypotheses, ledger)
    return round(min(1.0, max(0.0, value)), 4)


# --------------------------------------------------------------------------------------------- calibrators
class PlattScale(BaseModel):
    """P = sigmoid(slope * score + intercept)."""

    slope: float
    intercept: float

    def __call__(self, score: float) -> float:
        z = self.slope * score + self.intercept
        return round(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), 4)


class CalibrationTable(BaseModel):
    """The fitted maps and where they came from (written by training/fit_calibration.py)."""

    stance_model: str = Field(description="Name of the stance judge the maps were fitted with; they hold for it only.")
    leading: PlattScale = Field(description="Evidence score -> P(the court's leading answer is right).")
    abstention: PlattScale = Field(
        description="Evidence score -> P(abstaining is right), fitted on the runs that abstained."
    )
    stance_weights_sha256: str = Field(
        "",
        description="sha256 of the packaged cross-encoder weights the maps were fitted with ('' for a table "
        "older than this check): retrained weights under the same judge name do not inherit the maps.",
    )
    direction_weights_sha256: str = Field(
        "",
        description="sha256 of the direction reader's weights the maps were fitted with ('' when none was used, "
        "or for a table older than this check).",
    )
    reader_weights_sha256: list[str] = Field(
        [],
        description="sha256 of each reader read beside the cross-encoder (`stance_readers`), in the order loaded.",
    )
    fitted_on: str = Field(description="The labelled data, split and settings the maps were fitted on.")
    examples: int = Field(ge=1)
    commit: str = ""


def default_table_path() -> Path:
    return Path(__file__).resolve().parents[1] / "models" / "calibration.json"


def load_table(path: Path | None = None) -> CalibrationTable | None:
    """The shipped table, or None when the file is absent."""
    path = path or default_table_path()
    if not path.exists():
        return None
    return CalibrationTable.model_validate(json.loads(path.read_text()))


@dataclass(frozen=True)
class RawScore:
    """No calibration: both probabilities are the evidence score itself (the behaviour before fitting)."""

    name: str = "raw"

    def leading(self, score: float) -> float:
        return score

    def abstention(self, score: float) -> float:
        return score


@dataclass(frozen=True)
class PlattCalibrator:
    table: CalibrationTable
    name: str = "platt"

    def leading(self, score: float) -> float:
        return self.table.leading(score)

    def abstention(self, score: float) -> float:
        return self.table.abstention(score)
