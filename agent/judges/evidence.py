"""The evidence reader: does this record report a finding that settles the claim, or is it related but silent?

SciFact's NOT_ENOUGH_INFO claims are mostly claims whose cited abstract is on topic and decides nothing: its sentences
read as weak support one by one, so the claim leaned where it had no evidence. This reader is the packaged
cross-encoder with its top two layers and head retrained on a claim against a whole record's findings
(training/evidence_pool.py: cited-but-silent abstracts as hard negatives, evidence abstracts as positives; shipped as
agent/models/evidence_reader.npz over stance_cross.npz). It reads only the court's `record` rows (the top records'
findings read together, agent/verdict/readings.py), so it costs three pairs per statement, and its P(SUPPORT) +
P(CONTRADICT) reaches the verdict model as the probability that a record settles the claim (agent/verdict/features.py).

`EvidenceReadJudge` carries it beside the stance judge: every pair is judged by the judge it wraps, and the verdict
model finds the reader through `record_readers` (agent/judges/breakdown.py), so a model fitted with it names its
weights and is refused without them.
"""

from __future__ import annotations

from pathlib import Path

from agent.interfaces import StanceJudge, StanceResult
from agent.judges.cross import CrossStanceJudge, default_cross_weights_path

EVIDENCE_FILE = "evidence_reader.npz"


def default_evidence_weights_path() -> Path:
    """The packaged evidence reader (agent/models/evidence_reader.npz)."""
    return default_cross_weights_path().parent / EVIDENCE_FILE


def evidence_weights_in_use(setting: str | None) -> Path | None:
    """The evidence reader a run loads (`stance_evidence_weights`: a file, 'packaged' for agent/models/, or 'off' /
    null for none). None ships yet (the verdict model gained nothing from the one trained at stop 49), so the default
    is 'off' and 'packaged' names the file a later version ships."""
    if setting == "packaged":
        return default_evidence_weights_path()
    return Path(setting).expanduser() if setting and setting != "off" else None


class EvidenceReader(CrossStanceJudge):
    """The evidence reader's cross-encoder, named 'evidence' whichever file it reads."""

    def __init__(self, weights: Path):
        super().__init__(weights)
        self.name = "evidence"


class EvidenceReadJudge:
    """A stance judge with the evidence reader beside it: judges as the judge it wraps; `evidence` reads records."""

    def __init__(self, base: StanceJudge, evidence: EvidenceReader):
        self.base, self.evidence = base, evidence
        self.name = f"{base.name}+evidence"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        return await self.base.judge(pairs)
