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

from pydantic import BaseModel

from agent.common.text import jaccard
from agent.interfaces import CitedSentence, Draft, ModelVerdict, Plan
from agent.literature import Passage, Query, Record
from agent.llm.model import RoleModel
from agent.llm.providers import ModelUnavailable
from agent.metering import BudgetExceeded, current_meter
from agent.prompts import fence_evidence, prompt
from agent.prompts.sources import current_reading, today, with_source
from agent.reasoners.chat_schemas import (
    AdjudicationOut,
    AnswerOut,
    ClaimsOut,
    HypothesesOut,
    JudgementOut,
    PlanOut,
    QueriesOut,
    QueryOut,
    SentenceOut,
    checked_verdict,
)
from agent.reasoners.checks import usable_answer_line, usable_entity, usable_hypothesis, usable_number, usable_query
from agent.reasoners.extractive import ExtractiveReasoner, option_label, winner
from agent.records import Claim, Hypothesis, LedgerEntry

DUPLICATE_COSINE = 0.85
ANSWER_LEDGER_CAP = 24
USER_ORIGINS = frozenset({"option", "claim", "negation", "abstain"})  # written by the user or by code from theirs
_DECLINED = re.compile(
    r"^\W*(?:insufficient|not enough|inconclusive) evidence\b"
    r"|^\W*the evidence (?:is|was) (?:insufficient|inconclusive)",
    re.I,
)
__all__ = [
    "AdjudicationOut",
    "AnswerOut",
    "ChatReasoner",
    "ClaimsOut",
    "HypothesesOut",
    "JudgementOut",
    "PlanOut",
    "QueriesOut",
    "QueryOut",
    "SentenceOut",
    "checked_verdict",
    "hypothesis_text",
]


def hypothesis_text(h: Hypothesis, label: str | None = None) -> str:
    """A hypothesis as a prompt shows it: the user's (an option, a claim, its negation) as plain text; one taken from a
    retrieved sentence, or written by a model that read retrieved text, fenced as data like any passage."""
    label = label or h.id
    if h.origin in USER_ORIGINS:
        return f"{label}: {h.statement}"
    return fence_evidence([(label, h.statement)], labels={label: {"kind": "hypothesis"}})


def _source_of(record_id: str) -> Record | None:
    context = current_reading()
    return context.records.get(record_id) if context is not None else None


def answer_ledger(ledger: list[LedgerEntry], best_id: str, cap: int = ANSWER_LEDGER_CAP) -> list[LedgerEntry]:
    """The ledger entries the answering model is shown: the strongest for the chosen hypothesis and, beside them, the
    strongest against it (its contradictions, its rivals' support), half the cap each where the ledger has them,
    then the rest (neutral last). Showing only its own side first under a cap hid the evidence against it."""
    strongest = lambda entries: sorted(entries, key=lambda e: -e.confidence * e.weight)  # noqa: E731
    for_best = strongest([e for e in ledger if e.hypothesis_id == best_id and e.stance == "SUPPORT"])
    against = strongest(
        [
            e
            for e in ledger
            if (e.hypothesis_id == best_id and e.stance == "CONTRADICT")
            or (e.hypothesis_id != best_id and e.stance == "SUPPORT")
        ]
    )
    picked = for_best[: cap // 2] + against[: cap - min(len(for_best), cap // 2)]
    rest = [e for e in [*for_best, *against, *strongest(ledger)] if e not in picked]
    for e in rest:
        if len(picked) >= cap:
            break
        if e not in picked:
            picked.append(e)
    return picked


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
        fenced = fence_evidence([(p.record_id, with_source(p.text, _source_of(p.record_id))) for p in evidence[:8]])
        out = await self._call(
            "hypothesize",
            self.fast,
            self._prompt("hypothesize", n=n),
            f"Question: {question}\nToday: {today()}\n\n{fenced}",
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
        listing = "\n".join(hypothesis_text(h, str(i + 1)) for i, h in enumerate(hypotheses))
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
            items, sides = [], {}
            for e in picked:
                label = f"E{len(shown) + 1}"
                shown[label] = e
                items.append((label, with_source(e.text, _source_of(e.record_id))))
                sides[label] = {"side": f"{'supports' if e.stance == 'SUPPORT' else 'contradicts'} {h.id}"}
            name = f"({option_label(h.option_index)}) " if h.option_index is not None else ""
            body = (
                fence_evidence(items, {label: shown[label].record_id for label, _ in items}, sides)
                if items
                else "(no passage took a side)"
            )
            sections.append(f"{hypothesis_text(h, f'{h.id} {name}'.strip())}\n{body}")
        user = f"Question: {question}\nToday: {today()}\n\nHypotheses and their evidence:\n\n" + "\n\n".join(sections)
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
        ranking = "\n".join(
            hypothesis_text(h, f"{h.id} score={h.score:.2f} verdict={h.verdict.value}") for h in hypotheses
        )
        entries = answer_ledger(ledger, best.id)
        shown_ids = {e.record_id for e in entries}
        fenced = "\n".join(
            fence_evidence(
                [(e.record_id, with_source(e.text, records.get(e.record_id)))],
                labels={e.record_id: {"side": f"{e.stance.lower()} {e.hypothesis_id}"}},
            )
            for e in entries
        )
        user = (
            f"Question: {question}\nToday: {today()}\nHypotheses, best first by the court:\n{ranking}\n\n"
            f"Leading: {best.id}\n\nLedger (for the leading hypothesis first, then against it):\n{fenced}"
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
        declined = out.answer.strip() if out.insufficient or _DECLINED.search(out.answer) else None
        answer = extractive.answer
        if declined is None and (
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
            declined=" ".join((declined or "").split())[:200] or None,
            alternative=extractive,
        )

    async def extract_claims(self, question: str, draft: Draft, max_claims: int) -> list[Claim]:
        text = " ".join(s.text for s in draft.sentences) or draft.answer
        out = await self._call(
            "extract_claims",
            self.fast,
            self._prompt("claims", n=max_claims),
            f"Question: {question}\n{fence_evidence([('answer', text)], labels={'answer': {'kind': 'answer'}})}",
            ClaimsOut,
        )
        if out is None:
            return await self.fallback.extract_claims(question, draft, max_claims)
        probe = Draft(
            answer=draft.answer,
            sentences=[CitedSentence(text=c, citations=_closest_citations(c, draft)) for c in out.claims],
        )
        return await self.fallback.extract_claims(question, probe, max_claims)  # same specificity filter for both paths


def _closest_citations(claim: str, draft: Draft) -> list[str]:
    """The citations of the answer sentence a model-extracted claim came from (the most similar one)."""
    overlap, best = max(
        ((jaccard(claim, s.text), s) for s in draft.sentences), key=lambda pair: pair[0], default=(0.0, None)
    )
    return list(best.citations) if best is not None and overlap > 0 else []
