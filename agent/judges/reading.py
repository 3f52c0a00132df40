"""The structure of a finding that a small encoder reads as topic: who is compared with whom, what is required,
whose absence is studied, which way a ratio points, which gene is named, and whether anything was found at all.

The packaged judges read "Varenicline was more effective than nicotine patch" as support for "Nicotine patch is
more effective than varenicline" and "AMPK is dispensable for ..." as support for "AMPK is required for ...": the
sentence is on the claim's topic and shares its words. `read_structure` reads the few structures where word order
or one word decides the side, and says nothing otherwise; `StructureReadJudge` lets that reading decide which side a
passage takes (or that it takes none) and leaves everything else to the judge it wraps. Pure functions, no models.
"""

from __future__ import annotations

from agent.interfaces import StanceJudge, StanceResult
from agent.judges.structures import READERS, StructureReading
from agent.records import STANCE_LABELS as LABELS
from agent.records import Stance


def read_structure(statement: str, passage: str) -> StructureReading | None:
    """The side a structure of the pair decides, or None when none of them is present (agent.judges.structures)."""
    for reader in READERS:
        reading = reader(statement, passage)
        if reading is not None:
            return reading
    return None


def with_structure(result: StanceResult, reading: StructureReading | None) -> StanceResult:
    """The judge's probabilities with the structure's side: NEUTRAL takes the sides' mass (what is left of a side is
    a tenth of it); SUPPORT / CONTRADICT keep the judge's mass for taking a side and give its larger part to the
    structure's side (the judge still says whether the passage is on the claim at all)."""
    if reading is None:
        return result
    p = {label: result.probabilities.get(label, 0.0) for label in LABELS}
    if reading.side == "NEUTRAL":
        p = {
            "SUPPORT": p["SUPPORT"] * 0.1,
            "CONTRADICT": p["CONTRADICT"] * 0.1,
            "NEUTRAL": p["NEUTRAL"] + 0.9 * (p["SUPPORT"] + p["CONTRADICT"]),
        }
    else:
        other: Stance = "CONTRADICT" if reading.side == "SUPPORT" else "SUPPORT"
        sided = p["SUPPORT"] + p["CONTRADICT"]
        p[reading.side], p[other] = max(p[reading.side], p[other]), min(p[reading.side], p[other])
        if p[reading.side] < 0.8 * sided:
            p[reading.side], p[other] = 0.8 * sided, 0.2 * sided
    return StanceResult.from_probabilities(LABELS, [p[label] for label in LABELS])


class StructureReadJudge:
    """A StanceJudge whose side is decided by `read_structure` where a structure decides it, else by `base`."""

    def __init__(self, base: StanceJudge):
        self.base = base
        self.name = f"{base.name}+structure"

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        results = await self.base.judge(pairs)
        return [with_structure(result, read_structure(s, p)) for (s, p), result in zip(pairs, results, strict=True)]
