"""Stance by chat model: batched pairs with structured output (seed 002), checked and cached.

- A reply item that does not fit (unknown stance, no pair number) is skipped, not the whole batch; a confidence
  outside [0, 1] is clipped.
- A batch the model cannot answer usably is split in halves, down to `min_batch`, before its pairs fall back.
- Pairs the model leaves unjudged (an empty or partial reply, a provider failure, the budget or deadline spent,
  an open circuit) are judged by the offline judge, and the fallback is recorded in usage with how many pairs.
- Judgements are cached per (statement, passage), so a pair seen in an earlier round is not judged again.
- The model reads as a scientist does: the question (the court's reading context), today's date, and per passage its
  record's title, year, venue and design (agent/prompts/sources.py); statement and passage are both fenced as data
  (a statement may be a sentence taken from a paper); a one-line rationale comes before the label.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from pydantic import BaseModel, Field, field_validator

from agent.interfaces import StanceJudge, StanceResult
from agent.llm.model import RoleModel
from agent.llm.providers import ModelUnavailable
from agent.metering import BudgetExceeded, current_meter
from agent.prompts import fence_evidence, prompt
from agent.prompts.sources import current_reading, today, with_source

BATCH = 20
CACHE_SIZE = 20_000
_STANCE_WORDS = {
    "SUPPORT": "SUPPORT",
    "SUPPORTS": "SUPPORT",
    "SUPPORTED": "SUPPORT",
    "ENTAILMENT": "SUPPORT",
    "CONTRADICT": "CONTRADICT",
    "CONTRADICTS": "CONTRADICT",
    "CONTRADICTED": "CONTRADICT",
    "REFUTE": "CONTRADICT",
    "REFUTES": "CONTRADICT",
    "NEUTRAL": "NEUTRAL",
    "NOT_ENOUGH_INFO": "NEUTRAL",
    "NEI": "NEUTRAL",
    "UNRELATED": "NEUTRAL",
    "INCONCLUSIVE": "NEUTRAL",
}


class PairJudgement(BaseModel):
    pair: int = Field(description="1-based pair number")
    rationale: str = Field(default="", description="one line: the deciding words and how they bear on the statement")
    stance: str = Field(description="SUPPORT, CONTRADICT or NEUTRAL")
    confidence: float = Field(description="between 0 and 1")

    @field_validator("stance", mode="before")
    @classmethod
    def _stance(cls, value: Any) -> str:
        word = str(value).strip().upper().replace(" ", "_")
        if word not in _STANCE_WORDS:
            raise ValueError(f"stance must be SUPPORT, CONTRADICT or NEUTRAL (got {str(value)[:20]!r})")
        return _STANCE_WORDS[word]

    @field_validator("confidence", mode="before")
    @classmethod
    def _clip(cls, value: Any) -> float:
        return min(1.0, max(0.0, float(value)))


class StanceBatch(BaseModel):
    judgements: list[PairJudgement] = Field(description="One judgement per pair")

    @field_validator("judgements", mode="before")
    @classmethod
    def _keep_valid(cls, items: Any) -> list[PairJudgement]:
        """Items that do not fit are skipped (their pairs fall back), so one bad item does not lose the batch."""
        kept = []
        for item in items if isinstance(items, list) else []:
            try:
                kept.append(PairJudgement.model_validate(item))
            except (ValueError, TypeError):
                continue
        return kept


class LLMStanceJudge:
    name = "llm"

    def __init__(
        self,
        role: RoleModel,
        fallback: StanceJudge,
        batch: int = BATCH,
        min_batch: int = 4,
        prompts_dir: str | None = None,
    ):
        self.role = role
        self.fallback = fallback
        self.batch = batch
        self.min_batch = max(1, min(min_batch, batch))
        self.prompts_dir = prompts_dir
        self._cache: OrderedDict[tuple[str, str, str], StanceResult] = OrderedDict()

    @property
    def spec(self) -> str:
        return self.role.spec

    def _cached(self, pair: tuple[str, str]) -> StanceResult | None:
        key = (self.spec, *pair)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        return None

    def _store(self, pair: tuple[str, str], result: StanceResult) -> None:
        self._cache[(self.spec, *pair)] = result
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        results: list[StanceResult | None] = [self._cached(pair) for pair in pairs]
        current_meter().usage.cache_hits += sum(r is not None for r in results)
        todo = [i for i, r in enumerate(results) if r is None]
        queue = [todo[k : k + self.batch] for k in range(0, len(todo), self.batch)]
        reasons: list[str] = []
        while queue:
            chunk = queue.pop(0)
            try:
                out = await self._judge_batch([pairs[i] for i in chunk])
            except (BudgetExceeded, ModelUnavailable) as exc:
                reasons.append(f"{type(exc).__name__}: {exc}"[:160])
                break  # the provider or the budget is out: the rest go to the offline judge
            except ValueError as exc:
                if len(chunk) > self.min_batch:  # a smaller batch is easier for a weak model and a short context
                    half = (len(chunk) + 1) // 2
                    queue[:0] = [chunk[:half], chunk[half:]]
                    reasons.append(f"a batch of {len(chunk)} failed, split in halves")
                else:
                    reasons.append(f"unusable reply for {len(chunk)} pairs ({str(exc)[:100]})")
                continue
            for item in out.judgements:
                if 1 <= item.pair <= len(chunk) and results[chunk[item.pair - 1]] is None:
                    result = StanceResult(stance=item.stance, confidence=item.confidence, judged_by="llm")
                    results[chunk[item.pair - 1]] = result
                    self._store(pairs[chunk[item.pair - 1]], result)
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            filled = await self.fallback.judge([pairs[i] for i in missing])
            for i, result in zip(missing, filled, strict=True):
                results[i] = result
            why = "; ".join(dict.fromkeys(reasons)) or "the reply left them unjudged"
            current_meter().fallback(
                f"stance: {self.fallback.name} judged {len(missing)} of {len(pairs)} pairs ({why})"
            )
        return [r for r in results if r is not None]

    async def _judge_batch(self, chunk: list[tuple[str, str]]) -> StanceBatch:
        return await self.role.structured(
            prompt("stance", self.prompts_dir), stance_request(chunk), StanceBatch, self.prompts_dir
        )


def stance_request(chunk: list[tuple[str, str]]) -> str:
    """The user message of one stance batch: the question and today's date, then per pair the statement and the
    passage, each fenced, the passage under its record's source line (when the reading context knows the record)."""
    context = current_reading()
    head = [f"Question: {context.question}"] if context is not None and context.question.strip() else []
    pairs = []
    for i, (statement, passage) in enumerate(chunk, start=1):
        record = context.record_of(passage) if context is not None else None
        items = [(f"statement-{i}", statement), (f"passage-{i}", with_source(passage, record))]
        labels = {f"statement-{i}": {"kind": "statement"}, f"passage-{i}": {"kind": "passage"}}
        pairs.append(f"Pair {i}\n{fence_evidence(items, labels=labels)}")
    return "\n\n".join(["\n".join([*head, f"Today: {today()}"]), *pairs])
