"""Stance by chat model: batched pairs (at most 20 per call) with JSON-schema output (seed 002).

Pairs a call fails to judge (malformed output beyond retries, the provider unavailable after its SDK's
retries, budget spent) fall back to the offline judge, and the fallback is recorded in usage.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.interfaces import StanceJudge, StanceResult
from agent.llm import ModelUnavailable, structured_call
from agent.metering import BudgetExceeded, current_meter
from agent.prompts import STANCE_SYSTEM, fence_evidence

BATCH = 20


class PairJudgement(BaseModel):
    pair: int = Field(description="1-based pair number")
    stance: Literal["SUPPORT", "CONTRADICT", "NEUTRAL"]
    confidence: float = Field(ge=0.0, le=1.0)


class StanceBatch(BaseModel):
    judgements: list[PairJudgement]


class LLMStanceJudge:
    name = "llm"

    def __init__(self, model: Any, spec: str, fallback: StanceJudge):
        self.model = model
        self.spec = spec
        self.fallback = fallback

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        results: list[StanceResult | None] = [None] * len(pairs)
        for start in range(0, len(pairs), BATCH):
            chunk = pairs[start : start + BATCH]
            user = "\n\n".join(
                f"Pair {i + 1}\nStatement: {statement}\n{fence_evidence([(f'pair-{i + 1}', passage)])}"
                for i, (statement, passage) in enumerate(chunk)
            )
            try:
                out = await structured_call(self.model, self.spec, STANCE_SYSTEM, user, StanceBatch)
            except (BudgetExceeded, ModelUnavailable, ValueError) as exc:
                current_meter().fallback(f"stance: {self.fallback.name} ({type(exc).__name__})")
                continue
            for item in out.judgements:
                if 1 <= item.pair <= len(chunk):
                    results[start + item.pair - 1] = StanceResult(stance=item.stance, confidence=item.confidence)
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            filled = await self.fallback.judge([pairs[i] for i in missing])
            for i, result in zip(missing, filled):
                results[i] = result
        return [r for r in results if r is not None]
