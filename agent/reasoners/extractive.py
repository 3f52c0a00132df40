"""The offline reasoner: every LLM role done from the evidence itself, with no generative model.

- plan: rule-based task typing, polar-question rewriting, entities and numbers, round-1 queries.
- hypothesize: MCQ options verbatim; claim/yes-no: the claim and its negation; open: the best distinct
  evidence sentences (the best-supported evidence statement is always one of them, seed 000).
- discriminating queries: confirm/falsify per hypothesis (antonym rewrite) and contrastive pairs for
  near-identical hypotheses (Jaccard > 0.25, seed 003).
- synthesize: the verdict in one sentence and 2-4 distinct quoted passages with their roles (agent/answer/compose.py).
- extract_claims: checkable sentences of the draft (>= 2 key terms, >= 20 chars, not the question).
"""

from __future__ import annotations

import re

import numpy as np

from agent.answer.compose import evidence_entries, evidence_statement, option_label, restates, verdict_sentence
from agent.common.text import (
    content_terms,
    is_finding,
    jaccard,
    opens_on_reference,
    strip_section_label,
    tokens,
    without_connective,
)
from agent.english.asks import CAUSAL, MECHANISM, asks_cause, entities, mechanism_statement, numbers
from agent.english.options import option_statement
from agent.english.questions import classify_task, contrary, is_polar, negate, polar_to_claim
from agent.interfaces import Draft, Embedder, Plan
from agent.literature import Passage, Query, Record
from agent.records import Claim, Hypothesis, LedgerEntry
from agent.scoring.aspect import aspects_of, names_all, words_of

CONTRAST_JACCARD = 0.25
DISTINCT_COSINE = 0.85


def winner(hypotheses: list[Hypothesis]) -> Hypothesis | None:
    candidates = [h for h in hypotheses if h.origin != "abstain"]
    return max(candidates, key=lambda h: h.score) if candidates else None


class ExtractiveReasoner:
    name = "extractive"

    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    async def plan(self, question: str, options: list[str], mode: str = "ask") -> Plan:
        task = classify_task(question, options, mode)
        claim = None
        if task == "claim":
            claim = polar_to_claim(question) if is_polar(question) else question.strip()
        elif task == "polar":
            claim = polar_to_claim(question)
        queries = [Query(text=claim or question.strip(), intent="primary")]
        terms = content_terms(question)
        if len(terms) >= 3 and " ".join(terms[:12]) != " ".join(
            tokens(queries[0].text)
        ):  # not the same query in lower case
            queries.append(Query(text=" ".join(terms[:12]), intent="primary"))
        for i, option in enumerate(options):
            queries.append(
                Query(
                    text=option_statement(question, option, _others(options, i)),
                    intent="primary",
                    hypothesis_id=f"H{i + 1}",
                )
            )
        return Plan(
            task=task,
            options=options,
            entities=entities(question),
            numbers=numbers(question),
            queries=queries,
            claim=claim,
        )

    async def hypothesize(self, question: str, plan: Plan, evidence: list[Passage], n: int) -> list[Hypothesis]:
        if plan.task == "mcq":
            return [
                Hypothesis(
                    id=f"H{i + 1}",
                    text=option,
                    origin="option",
                    option_index=i,
                    claim=option_statement(question, option, _others(plan.options, i)),
                )
                for i, option in enumerate(plan.options)
            ]
        if plan.claim:  # the claim and that it does not hold (the court reads the claim's stances reversed)
            return [
                Hypothesis(id="H1", text=plan.claim, origin="claim", claim=plan.claim, polarity=1),
                Hypothesis(id="H2", text=negate(plan.claim), origin="negation", claim=plan.claim, polarity=-1),
            ]
        return await self._evidence_hypotheses(question, evidence, n)

    async def _evidence_hypotheses(self, question: str, evidence: list[Passage], n: int) -> list[Hypothesis]:
        """Open question: the top distinct evidence sentences, best first, at most one per record first."""
        # a finding that stands alone: no "These include ..." (it needs the sentence before), no leading "Thus,"
        sentences = [
            p.model_copy(update={"text": without_connective(strip_section_label(p.text))})
            for p in evidence
            if len(p.text) >= 20 and is_finding(p.text) and not opens_on_reference(p.text)
        ]
        if not sentences:
            return []
        vectors = await self.embedder.embed([question] + [p.text for p in sentences], kind="document")
        sims = vectors[1:] @ vectors[0]
        order: list[int] = np.argsort(-(sims + np.array([0.05 * p.score for p in sentences]))).tolist()
        # only sentences of records naming every name the question asks about ("DUSP4"), when some do: an answer
        # resting on a record that does not is declined (agent.nodes.report), however well the court supports it
        names = entities(question)
        if names:
            texts: dict[str, list[str]] = {}
            for passage in evidence:
                texts.setdefault(passage.record_id, []).append(passage.text)
            naming = {rid for rid, parts in texts.items() if names_all(names, " ".join(parts))}
            order = [i for i in order if sentences[i].record_id in naming] or order
        if asks_cause(question):  # likewise a question asking for a cause: sentences stating one, when some do
            order = [i for i in order if CAUSAL.search(sentences[i].text)] or order
        order = states_mechanism_first(question, [sentences[i].text for i in order], order)
        picked: list[int] = []
        used_records: set[str] = set()
        for second_pass in (False, True):
            for i in order:
                if len(picked) >= n:
                    break
                if i in picked or (not second_pass and sentences[i].record_id in used_records):
                    continue
                if any(float(vectors[1 + i] @ vectors[1 + j]) >= DISTINCT_COSINE for j in picked):
                    continue
                picked.append(int(i))
                used_records.add(sentences[i].record_id)
        return [
            Hypothesis(id=f"H{k + 1}", text=sentences[i].text, origin="evidence", claim=sentences[i].text)
            for k, i in enumerate(picked)
        ]

    async def discriminating_queries(self, question: str, hypotheses: list[Hypothesis], cap: int) -> list[Query]:
        queries: list[Query] = []
        seen: set[str] = set()

        def add(text: str, intent: str, hid: str | None) -> None:
            key = " ".join(text.lower().split())
            if key and key not in seen and len(queries) < cap:
                seen.add(key)
                queries.append(Query(text=text, intent=intent, hypothesis_id=hid))

        for h in hypotheses:
            if h.origin == "negation" and h.claim:
                add(contrary(h.claim), "falsify", h.id)
                continue
            add(h.statement, "confirm", h.id)
        for h in hypotheses:
            if h.origin in ("option", "evidence", "llm"):
                add(contrary(h.statement), "falsify", h.id)
        for i, a in enumerate(hypotheses):
            for b in hypotheses[i + 1 :]:
                if jaccard(a.statement, b.statement) > CONTRAST_JACCARD:
                    only_a = [t for t in content_terms(a.statement) if t not in content_terms(b.statement)]
                    only_b = [t for t in content_terms(b.statement) if t not in content_terms(a.statement)]
                    shared = [t for t in content_terms(question) if t in content_terms(a.statement)][:4]
                    if only_a and only_b:
                        add(
                            f"{' '.join(shared)} {' '.join(only_a[:4])} versus {' '.join(only_b[:4])}", "contrast", a.id
                        )
        return queries

    async def synthesize(
        self,
        question: str,
        plan: Plan,
        hypotheses: list[Hypothesis],
        ledger: list[LedgerEntry],
        records: dict[str, Record],
    ) -> Draft:
        best = winner(hypotheses)
        if best is None or not ledger:
            return Draft(answer="Insufficient evidence: no retrieved passage bears on the question.", sentences=[])
        if plan.task == "mcq" and best.option_index is not None:
            headline = f"({option_label(best.option_index)}) {best.text}"
        else:
            headline = verdict_sentence(best, plan.task, polar=plan.task == "polar")
        sentences = [evidence_statement(entry, records, best) for entry in evidence_entries(ledger, best)]
        own = [
            e.record_id for e in ledger if e.hypothesis_id == best.id and e.stance == "SUPPORT" and restates(e, best)
        ]
        if not own and best.origin == "evidence":
            # an open answer is a record's own sentence: it cites that record even when the court read the sentence
            # among others, not itself (seen: "Migraine, particularly with aura, is a risk factor ..." with no citation)
            own = [rid for rid, record in records.items() if best.text.strip().rstrip(".") in record.text][:1]
        return Draft(
            answer=headline, answer_citations=list(dict.fromkeys(own)), sentences=sentences, selected_hypothesis=best.id
        )

    async def adjudicate(
        self, question: str, plan: Plan, hypotheses: list[Hypothesis], ledger: list[LedgerEntry], passages_each: int
    ) -> None:
        """No model adjudicates offline: the court's evidence scores decide."""
        return None

    async def extract_claims(self, question: str, draft: Draft, max_claims: int) -> list[Claim]:
        claims: list[Claim] = []
        question_terms = set(content_terms(question))
        for sentence in draft.sentences:
            text = sentence.text
            if '"' in text:  # a quoted evidence sentence: the claim is the quote itself
                text = text.split('"')[1]
            for prefix in ("Yes: ", "No: ", "The claim holds: ", "The claim does not hold: "):
                if text.startswith(prefix):
                    text = text[len(prefix) :]
            terms = content_terms(text)
            if len(text) < 20 or len(terms) < 2:
                continue
            if set(terms) <= question_terms:
                continue  # restates the question
            if any(jaccard(text, c.text) > 0.8 for c in claims):
                continue
            claims.append(
                Claim(
                    text=text,
                    key_terms=terms[:8],
                    sources=list(dict.fromkeys(sentence.citations)),
                    against_answer=sentence.side == "against",
                )
            )
            if len(claims) >= max_claims:
                break
        return claims


def states_mechanism_first(question: str, texts: list[str], order: list[int]) -> list[int]:
    """For a question asking how something comes about (asks.asks_mechanism), only the candidates (`texts`, in
    `order`) that state a mechanism or a means (asks.MECHANISM: "by inhibiting", "through", "via", "mediated",
    "pathway", ...) and name the question's subject, when some do: "How does metformin lower blood glucose?" is
    answered "Metformin lowers blood glucose by inhibiting hepatic gluconeogenesis", not by the topic's best-scored
    sentence "Metformin is the first-line drug for type 2 diabetes and lowers blood glucose". A candidate names every
    word of the subject (an ADAS paper "transforms" test cases: not the attention mechanism of transformer networks).
    Other questions: `order`."""
    statement = mechanism_statement(question)
    if statement is None:
        return list(order)
    subject = aspects_of(statement).subject
    asked = {word.lower() for word in re.findall(r"[A-Za-z]+", question)}
    stating = [
        i for i, text in zip(order, texts) if _states_means(text, asked) and (not subject or subject <= words_of(text))
    ]
    return stating or list(order)


def _states_means(text: str, asked: set[str]) -> bool:
    """A means or mechanism the question does not itself name: for "How does the attention mechanism of transformer
    networks work?" a sentence is not an answer because it says "mechanism" too."""
    return any(not set(re.findall(r"[a-z]+", m.group(0).lower())) <= asked for m in MECHANISM.finditer(text))


def _others(options: list[str], i: int) -> tuple[str, ...]:
    """The options besides the i-th, which a comparative stem's statement names ("more effective than ...")."""
    return tuple(option for k, option in enumerate(options) if k != i)
