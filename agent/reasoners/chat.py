"""The chat-model reasoner: the same roles as the extractive one, with structured output.

When a role's call fails (parse failures beyond retries, the provider unavailable after its SDK's retries,
or the LLM budget is spent), the node-facing method falls back to the extractive implementation and records
the fallback in usage, so a run never dies on a malformed model answer or a provider outage and never
invents: the fallback works from the evidence.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agent.interfaces import CitedSentence, Draft, Plan
from agent.metering import BudgetExceeded, current_meter
from agent.prompts import (
    CLAIMS_SYSTEM,
    DISCRIMINATE_SYSTEM,
    HYPOTHESIZE_SYSTEM,
    PLAN_SYSTEM,
    SYNTHESIZE_SYSTEM,
    fence_evidence,
)
from agent.llm import ModelUnavailable, structured_call
from agent.reasoners.extractive import ExtractiveReasoner, option_label
from agent.records import Claim, Hypothesis, LedgerEntry, Passage, Query, Record
from agent.text import jaccard


class PlanOut(BaseModel):
    queries: list[str] = Field(default_factory=list, description="2-4 keyword search queries")
    entities: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)


class HypothesesOut(BaseModel):
    hypotheses: list[str] = Field(description="Distinct candidate answers, most likely first")


class QueryOut(BaseModel):
    text: str
    intent: str = Field(description="confirm, falsify or contrast")
    hypothesis: int = Field(description="1-based index of the hypothesis the query targets")


class QueriesOut(BaseModel):
    queries: list[QueryOut]


class SentenceOut(BaseModel):
    text: str
    citations: list[str] = Field(description="record ids from the evidence")


class AnswerOut(BaseModel):
    answer: str = Field(description="one-line answer or verdict")
    sentences: list[SentenceOut]


class ClaimsOut(BaseModel):
    claims: list[str]


class ChatReasoner:
    name = "chat"

    def __init__(self, model: Any, spec: str, fallback: ExtractiveReasoner):
        self.model = model
        self.spec = spec
        self.fallback = fallback

    async def _call(self, role: str, system: str, user: str, schema: type[BaseModel]) -> Any | None:
        try:
            return await structured_call(self.model, self.spec, system, user, schema)
        except (BudgetExceeded, ModelUnavailable, ValueError) as exc:
            current_meter().fallback(f"{role}: extractive ({type(exc).__name__}: {exc})")
            return None

    async def plan(self, question: str, options: list[str], mode: str = "ask") -> Plan:
        base = await self.fallback.plan(question, options, mode)
        out = await self._call("plan", PLAN_SYSTEM, f"Question: {question}\nOptions: {options or 'none'}", PlanOut)
        if out is None:
            return base
        extra = [Query(text=q.strip(), intent="primary") for q in out.queries[:4] if q.strip()]
        return base.model_copy(update={
            "queries": [*base.queries, *extra],
            "entities": list(dict.fromkeys([*base.entities, *out.entities])),
            "numbers": list(dict.fromkeys([*base.numbers, *out.numbers])),
        })

    async def hypothesize(self, question: str, plan: Plan, evidence: list[Passage], n: int) -> list[Hypothesis]:
        if plan.task == "mcq" or plan.claim:
            return await self.fallback.hypothesize(question, plan, evidence, n)
        fenced = fence_evidence([(p.record_id, p.text) for p in evidence[:8]])
        out = await self._call("hypothesize", HYPOTHESIZE_SYSTEM.replace("N ", f"{n} "), f"Question: {question}\n\n{fenced}", HypothesesOut)
        if out is None:
            return await self.fallback.hypothesize(question, plan, evidence, n)
        grounded = await self.fallback.hypothesize(question, plan, evidence, 1)  # seed 000: keep the best evidence statement
        texts = [t.strip() for t in out.hypotheses if t.strip()][: max(1, n - len(grounded))]
        hypotheses = [Hypothesis(id=f"H{i + 1}", text=t, origin="llm", claim=t) for i, t in enumerate(texts)]
        for g in grounded:
            hypotheses.append(g.model_copy(update={"id": f"H{len(hypotheses) + 1}"}))
        return hypotheses

    async def discriminating_queries(self, question: str, hypotheses: list[Hypothesis], cap: int) -> list[Query]:
        listing = "\n".join(f"{i + 1}. {h.statement}" for i, h in enumerate(hypotheses))
        out = await self._call("discriminate", DISCRIMINATE_SYSTEM, f"Question: {question}\nHypotheses:\n{listing}", QueriesOut)
        if out is None:
            return await self.fallback.discriminating_queries(question, hypotheses, cap)
        intents = {"confirm", "falsify", "contrast"}
        queries = []
        for q in out.queries:
            if not q.text.strip():
                continue
            hid = hypotheses[q.hypothesis - 1].id if 1 <= q.hypothesis <= len(hypotheses) else None
            queries.append(Query(text=q.text.strip(), intent=q.intent if q.intent in intents else "confirm", hypothesis_id=hid))
        return queries[:cap]

    async def synthesize(
        self, question: str, plan: Plan, hypotheses: list[Hypothesis], ledger: list[LedgerEntry], records: dict[str, Record]
    ) -> Draft:
        extractive = await self.fallback.synthesize(question, plan, hypotheses, ledger, records)
        if not ledger:
            return extractive
        court = "\n".join(
            f"{h.id} ({option_label(h.option_index) if h.option_index is not None else h.origin}) score={h.score:.2f} "
            f"verdict={h.verdict.value}: {h.text}" for h in hypotheses
        )
        fenced = fence_evidence([(e.record_id, f"[{e.hypothesis_id} {e.stance}] {e.text}") for e in ledger[:24]])
        user = f"Question: {question}\nCourt ranking:\n{court}\n\nLedger:\n{fenced}\n\nWinner: {extractive.selected_hypothesis}"
        out = await self._call("synthesize", SYNTHESIZE_SYSTEM, user, AnswerOut)
        if out is None:
            return extractive
        return Draft(
            answer=out.answer.strip() or extractive.answer,
            sentences=[CitedSentence(text=s.text.strip(), citations=s.citations) for s in out.sentences if s.text.strip()],
            selected_hypothesis=extractive.selected_hypothesis,
        )

    async def extract_claims(self, question: str, draft: Draft, max_claims: int) -> list[Claim]:
        text = " ".join(s.text for s in draft.sentences) or draft.answer
        out = await self._call("extract_claims", CLAIMS_SYSTEM.replace("N ", f"{max_claims} "), f"Question: {question}\nAnswer: {text}", ClaimsOut)
        if out is None:
            return await self.fallback.extract_claims(question, draft, max_claims)
        probe = Draft(answer=draft.answer, sentences=[CitedSentence(text=c, citations=_closest_citations(c, draft)) for c in out.claims])
        return await self.fallback.extract_claims(question, probe, max_claims)  # same specificity filter for both paths


def _closest_citations(claim: str, draft: Draft) -> list[str]:
    """The citations of the answer sentence a model-extracted claim came from (the most similar one)."""
    overlap, best = max(((jaccard(claim, s.text), s) for s in draft.sentences), key=lambda pair: pair[0], default=(0.0, None))
    return list(best.citations) if best is not None and overlap > 0 else []
