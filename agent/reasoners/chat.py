"""The chat-model reasoner: the extractive roles with structured output from a fast and a strong model, every reply
checked.

Roles: the fast model plans, writes queries, proposes hypotheses and extracts claims; the strong model adjudicates
between the hypotheses and writes the answer. A reply that is unusable (parse failures beyond retries, junk the
checks refuse) or a model that is unavailable (provider failure, deadline, open circuit, budget spent) sends the
role to the extractive implementation, and every such fallback, partial ones included, is recorded in usage. The
model's hypotheses join the grounded (evidence) ones and never replace them; its citations must be records of the
ledger passages it was shown.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from agent.common.text import jaccard
from agent.interfaces import CitedSentence, Draft, ModelVerdict, Plan
from agent.literature import Passage, Query, Record
from agent.llm.model import RoleModel
from agent.llm.providers import ModelUnavailable
from agent.metering import BudgetExceeded, current_meter
from agent.prompts import fence_evidence, prompt
from agent.reasoners.checks import usable_answer_line, usable_entity, usable_hypothesis, usable_number, usable_query
from agent.reasoners.extractive import ExtractiveReasoner, option_label, winner
from agent.records import Claim, Hypothesis, HypothesisJudgement, LedgerEntry

DUPLICATE_COSINE = 0.85


class PlanOut(BaseModel):
    queries: list[str] = Field(description="2-4 keyword search queries")
    entities: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)


class HypothesesOut(BaseModel):
    hypotheses: list[str] = Field(description="Distinct candidate answers, most likely first")


class QueryOut(BaseModel):
    text: str
    intent: str = Field(default="confirm", description="confirm, falsify or contrast")
    hypothesis: int = Field(default=0, description="1-based index of the hypothesis the query targets")


class QueriesOut(BaseModel):
    queries: list[QueryOut]


class SentenceOut(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list, description="record ids from the evidence")

    @field_validator("citations", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> list[str]:
        return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


class AnswerOut(BaseModel):
    answer: str = Field(description="one-line answer")
    sentences: list[SentenceOut] = Field(default_factory=list)


class ClaimsOut(BaseModel):
    claims: list[str]


class JudgementOut(BaseModel):
    hypothesis: str = Field(description="hypothesis id, e.g. H1")
    judgement: str = Field(description="holds, fails or undecided")
    probability: float = Field(description="0 to 1: probability that this hypothesis is the correct answer")
    evidence: list[str] = Field(default_factory=list, description="evidence ids relied on, e.g. E1")
    reason: str = Field(default="", description="one short sentence")

    @field_validator("judgement", mode="before")
    @classmethod
    def _judgement(cls, value: Any) -> str:
        word = str(value).strip().lower()
        return {
            "hold": "holds",
            "true": "holds",
            "supported": "holds",
            "fail": "fails",
            "false": "fails",
            "refuted": "fails",
        }.get(word, word if word in ("holds", "fails") else "undecided")

    @field_validator("probability", mode="before")
    @classmethod
    def _clip(cls, value: Any) -> float:
        return min(1.0, max(0.0, float(value)))

    @field_validator("evidence", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> list[str]:
        return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


class AdjudicationOut(BaseModel):
    judgements: list[JudgementOut]
    choice: str = Field(description="id of the chosen hypothesis, or abstain")


class ChatReasoner:
    name = "chat"

    def __init__(
        self, fast: RoleModel, strong: RoleModel, fallback: ExtractiveReasoner, prompts_dir: str | None = None
    ):
        self.fast = fast
        self.strong = strong
        self.fallback = fallback
        self.prompts_dir = prompts_dir

    @property
    def spec(self) -> str:
        return self.strong.spec

    async def _call(self, role: str, model: RoleModel, system: str, user: str, schema: type[BaseModel]) -> Any | None:
        try:
            return await model.structured(system, user, schema, self.prompts_dir)
        except (BudgetExceeded, ModelUnavailable, ValueError) as exc:
            current_meter().fallback(f"{role}: extractive ({type(exc).__name__}: {exc})"[:300])
            return None

    def _prompt(self, name: str, **values: object) -> str:
        return prompt(name, self.prompts_dir, **values)

    async def plan(self, question: str, options: list[str], mode: str = "ask") -> Plan:
        base = await self.fallback.plan(question, options, mode)
        out = await self._call(
            "plan", self.fast, self._prompt("plan"), f"Question: {question}\nOptions: {options or 'none'}", PlanOut
        )
        if out is None:
            return base
        queries = [q.strip() for q in out.queries if usable_query(q)][:4]
        if not queries:
            current_meter().fallback(f"plan: extractive (no usable query in the reply: {out.queries[:3]!r})"[:300])
            return base
        return base.model_copy(
            update={
                "queries": [*base.queries, *(Query(text=q, intent="primary") for q in queries)],
                "entities": list(
                    dict.fromkeys([*base.entities, *(e.strip() for e in out.entities if usable_entity(e))])
                ),
                "numbers": list(dict.fromkeys([*base.numbers, *(n.strip() for n in out.numbers if usable_number(n))])),
            }
        )

    async def hypothesize(self, question: str, plan: Plan, evidence: list[Passage], n: int) -> list[Hypothesis]:
        grounded = await self.fallback.hypothesize(
            question, plan, evidence, n
        )  # seed 000: the evidence statements always compete
        if plan.task == "mcq" or plan.claim:
            return grounded
        fenced = fence_evidence([(p.record_id, p.text) for p in evidence[:8]])
        out = await self._call(
            "hypothesize",
            self.fast,
            self._prompt("hypothesize", n=n),
            f"Question: {question}\n\n{fenced}",
            HypothesesOut,
        )
        if out is None:
            return grounded
        refused = [t for t in out.hypotheses if not usable_hypothesis(t)]
        texts = [t.strip() for t in out.hypotheses if usable_hypothesis(t)]
        if refused:
            current_meter().fallback(
                f"hypothesize: refused {len(refused)} of {len(out.hypotheses)} model hypotheses "
                f"{[t[:40] for t in refused[:3]]!r}"[:300]
            )
        texts = await self._novel(texts, [h.statement for h in grounded])
        joined = [*grounded, *(Hypothesis(id="", text=t, origin="llm", claim=t) for t in texts[: max(1, n // 2)])]
        return [h.model_copy(update={"id": f"H{i + 1}"}) for i, h in enumerate(joined)]

    async def _novel(self, texts: list[str], existing: list[str]) -> list[str]:
        """Texts that are not paraphrases (cosine >= DUPLICATE_COSINE) of an existing statement or of each other."""
        if not texts:
            return []
        vectors = await self.fallback.embedder.embed([*existing, *texts], kind="document")
        kept: list[int] = []
        for i in range(len(existing), len(existing) + len(texts)):
            if all(float(vectors[i] @ vectors[j]) < DUPLICATE_COSINE for j in [*range(len(existing)), *kept]):
                kept.append(i)
        return [texts[i - len(existing)] for i in kept]

    async def discriminating_queries(self, question: str, hypotheses: list[Hypothesis], cap: int) -> list[Query]:
        listing = "\n".join(f"{i + 1}. {h.statement}" for i, h in enumerate(hypotheses))
        out = await self._call(
            "discriminate",
            self.fast,
            self._prompt("discriminate"),
            f"Question: {question}\nHypotheses:\n{listing}",
            QueriesOut,
        )
        if out is None:
            return await self.fallback.discriminating_queries(question, hypotheses, cap)
        intents = {"confirm", "falsify", "contrast"}
        queries = []
        for q in out.queries:
            if not usable_query(q.text):
                continue
            hid = hypotheses[q.hypothesis - 1].id if 1 <= q.hypothesis <= len(hypotheses) else None
            queries.append(
                Query(text=q.text.strip(), intent=q.intent if q.intent in intents else "confirm", hypothesis_id=hid)
            )
        if not queries:
            current_meter().fallback("discriminate: extractive (no usable query in the reply)")
            return await self.fallback.discriminating_queries(question, hypotheses, cap)
        return queries[:cap]

    async def adjudicate(
        self, question: str, plan: Plan, hypotheses: list[Hypothesis], ledger: list[LedgerEntry], passages_each: int
    ) -> ModelVerdict | None:
        candidates = [h for h in hypotheses if h.origin != "abstain"]
        if len(candidates) < 2 or not ledger:
            return None
        shown: dict[str, LedgerEntry] = {}
        sections = []
        for h in candidates:
            entries = [e for e in ledger if e.hypothesis_id == h.id]
            picked = [e for e in entries if e.stance == "SUPPORT"][:passages_each] + [
                e for e in entries if e.stance == "CONTRADICT"
            ][:passages_each]
            labels = []
            for e in picked:
                label = f"E{len(shown) + 1}"
                shown[label] = e
                labels.append((label, f"[{'supports' if e.stance == 'SUPPORT' else 'contradicts'} {h.id}] {e.text}"))
            name = f"({option_label(h.option_index)}) " if h.option_index is not None else ""
            body = (
                fence_evidence(labels, {label: shown[label].record_id for label, _ in labels})
                if labels
                else "(no passage took a side)"
            )
            sections.append(f"{h.id} {name}{h.statement}\n{body}")
        user = f"Question: {question}\n\nHypotheses and their evidence:\n\n" + "\n\n".join(sections)
        out = await self._call("adjudicate", self.strong, self._prompt("adjudicate"), user, AdjudicationOut)
        if out is None:
            return None
        return checked_verdict(out, {h.id for h in candidates}, shown, self.strong.spec)

    async def synthesize(
        self,
        question: str,
        plan: Plan,
        hypotheses: list[Hypothesis],
        ledger: list[LedgerEntry],
        records: dict[str, Record],
    ) -> Draft:
        extractive = await self.fallback.synthesize(question, plan, hypotheses, ledger, records)
        best = winner(hypotheses)
        if not ledger or best is None:
            return extractive
        ranking = "\n".join(f"{h.id} score={h.score:.2f} verdict={h.verdict.value}: {h.statement}" for h in hypotheses)
        entries = sorted(ledger, key=lambda e: (e.hypothesis_id != best.id, e.stance == "NEUTRAL"))[:24]
        shown_ids = {e.record_id for e in entries}
        fenced = fence_evidence(
            [(e.record_id, f"({e.stance.lower()} for {e.hypothesis_id}) {e.text}") for e in entries]
        )
        user = (
            f"Question: {question}\nHypotheses, best first by the court:\n{ranking}\n\nChosen: {best.id}: "
            f"{best.statement}\n\nLedger:\n{fenced}"
        )
        out = await self._call("synthesize", self.strong, self._prompt("synthesize"), user, AnswerOut)
        if out is None:
            return extractive
        sentences, refused = [], []
        for s in out.sentences:
            cited = [c.strip() for c in dict.fromkeys(s.citations) if c.strip() in shown_ids]
            if s.text.strip() and cited:
                sentences.append(CitedSentence(text=s.text.strip(), citations=cited))
            elif s.text.strip():
                refused.append(s.citations)
        if refused:
            current_meter().fallback(
                f"synthesize: dropped {len(refused)} model sentences citing no ledger record shown (cited "
                f"{refused[:3]!r})"[:300]
            )
        if not sentences:
            current_meter().fallback("synthesize: extractive (no model sentence cites a ledger record it was shown)")
            return extractive
        answer = extractive.answer
        if (
            plan.task == "open" and not plan.claim
        ):  # a claim's or an option's answer line is the verdict, written in code
            if usable_answer_line(out.answer, question, best.statement):
                answer = out.answer.strip()
            else:
                current_meter().fallback(
                    f"synthesize: the model's answer line was refused ({out.answer.strip()[:60]!r}); the chosen "
                    "hypothesis stands"
                )
        return Draft(
            answer=answer,
            answer_citations=extractive.answer_citations,
            sentences=sentences,
            selected_hypothesis=best.id,
            alternative=extractive,
        )

    async def extract_claims(self, question: str, draft: Draft, max_claims: int) -> list[Claim]:
        text = " ".join(s.text for s in draft.sentences) or draft.answer
        out = await self._call(
            "extract_claims",
            self.fast,
            self._prompt("claims", n=max_claims),
            f"Question: {question}\nAnswer: {text}",
            ClaimsOut,
        )
        if out is None:
            return await self.fallback.extract_claims(question, draft, max_claims)
        probe = Draft(
            answer=draft.answer,
            sentences=[CitedSentence(text=c, citations=_closest_citations(c, draft)) for c in out.claims],
        )
        return await self.fallback.extract_claims(question, probe, max_claims)  # same specificity filter for both paths


def checked_verdict(
    out: AdjudicationOut, hypothesis_ids: set[str], shown: dict[str, LedgerEntry], spec: str
) -> ModelVerdict:
    """The model's adjudication with its citations checked against the passages it was shown: an unknown evidence id
    is dropped; a 'holds' or 'fails' judgement left citing nothing shown is not counted (noted)."""
    judgements, notes, seen = [], [], set()
    for j in out.judgements:
        hid = j.hypothesis.strip().upper()
        if hid not in hypothesis_ids or hid in seen:
            notes.append(f"ignored a judgement of unknown or repeated hypothesis {j.hypothesis[:20]!r}")
            continue
        seen.add(hid)
        labels = [label for label in (re.sub(r"[^A-Za-z0-9]", "", e).upper() for e in j.evidence) if label in shown]
        foreign = [e for e in j.evidence if re.sub(r"[^A-Za-z0-9]", "", e).upper() not in shown]
        if foreign:
            notes.append(f"{hid}: dropped evidence ids it was not shown {foreign[:3]!r}")
        if j.judgement != "undecided" and not labels:
            notes.append(f"{hid}: '{j.judgement}' cited no passage it was shown; not counted")
            continue
        judgements.append(
            HypothesisJudgement(
                hypothesis_id=hid,
                judgement=j.judgement,
                probability=j.probability,
                evidence=list(dict.fromkeys(shown[label].record_id for label in labels)),
                reason=j.reason[:300],
            )
        )
    choice = out.choice.strip().upper()
    counted = {j.hypothesis_id for j in judgements}
    return ModelVerdict(model=spec, judgements=judgements, choice=choice if choice in counted else None, notes=notes)


def _closest_citations(claim: str, draft: Draft) -> list[str]:
    """The citations of the answer sentence a model-extracted claim came from (the most similar one)."""
    overlap, best = max(
        ((jaccard(claim, s.text), s) for s in draft.sentences), key=lambda pair: pair[0], default=(0.0, None)
    )
    return list(best.citations) if best is not None and overlap > 0 else []
