"""verify_claims: extract the answer's checkable claims and verify each against fresh retrieval (seed 004).

Per claim: a literal and a falsifying query; the claim's own source (the record the answer quotes) is its first
evidence; other records count only when they are about the claim: their title or abstract names its subject and its
object (the aspect check, statistics and numbers left out: "... was 2.39% per year (95% CI ...)" names no object a
record must share) and one of their sentences is at least the fitted `claim_floor` close to it; a record of the same
document as the own source (a library PDF's other passages) is the own source again, not checked. A dossier of the top
verification.claim_dossier_size (2) supporting and refuting passages of those; independence by institution where
metadata has it, else by DOI, else by document. VERIFIED needs a supporting reading at claim_support_confidence (0.6)
or above from a record of another document and independence token than the own source(s), claim_min_independent (2)
independent supporting sources in all (the own source and one more), and no refutation at claim_strong_refutation (0.8)
or above; support and contradiction together make it CONTESTED; otherwise UNVERIFIED, with "no independent source
found" when no such reading supports it (the own source alone never verifies its own quote).
"""

from __future__ import annotations

import hashlib

import numpy as np

from agent.backend import Backend
from agent.config import Context
from agent.library.passages import document_of
from agent.literature import Record
from agent.nodes.parts import RunParts
from agent.records import Claim, ClaimVerdict, LedgerEntry
from agent.scoring.aspect import aspects_of, record_addresses, topical
from agent.scoring.chunking import sentence_passages
from agent.scoring.dedup import dedup_texts
from agent.search import SearchService, claim_queries, pool_additions
from agent.settings.reasoning import VerificationSettings
from agent.state import ResearchState, merge_records
from agent.tracing.progress import emit


def independence_token(record: Record) -> str:
    """Institution of the first author where known, else a hash of the DOI, else of the document (a library PDF's
    passages are one source: document_of), else of the id: one per source."""
    if record.institutions:
        return f"inst:{record.institutions[0].lower()}"
    return "doi:" + hashlib.sha1((record.doi or f"{record.source}:{document_of(record)}").encode()).hexdigest()[:12]


def corroborating(
    supporting: list[LedgerEntry], records: dict[str, Record], own: list[str], settings: VerificationSettings
) -> list[LedgerEntry]:
    """The supporting readings that can verify a claim: confident (claim_support_confidence), from a record that is
    not one of its own sources `own`, nor of the same document, nor of the same independence token."""
    mine = [records[rid] for rid in own if rid in records]
    own_documents, own_tokens = {document_of(r) for r in mine}, {independence_token(r) for r in mine}
    return [
        e
        for e in supporting
        if e.record_id in records
        and e.record_id not in own
        and e.confidence >= settings.claim_support_confidence
        and document_of(records[e.record_id]) not in own_documents
        and independence_token(records[e.record_id]) not in own_tokens
    ]


def verdict_for(
    dossier: list[LedgerEntry], records: dict[str, Record], settings: VerificationSettings, own: list[str] | None = None
) -> tuple[ClaimVerdict, list[str], list[str], int]:
    """(verdict, supporting ids, refuting ids, independent supporting sources) of a claim whose own sources are `own`
    (module docstring: the own sources count towards claim_min_independent, never as the corroboration)."""
    own = [rid for rid in own or [] if rid in records]
    supporting = [e for e in dossier if e.stance == "SUPPORT"]
    refuting = [e for e in dossier if e.stance == "CONTRADICT"]
    confirmed = corroborating(supporting, records, own, settings)
    independent = len(
        {independence_token(records[rid]) for rid in own}
        | {independence_token(records[e.record_id]) for e in confirmed}
    )
    strong_refute = any(e.confidence >= settings.claim_strong_refutation for e in refuting)
    if confirmed and independent >= settings.claim_min_independent and not strong_refute:
        verdict = ClaimVerdict.VERIFIED
    elif supporting and refuting:
        verdict = ClaimVerdict.CONTESTED
    else:
        verdict = ClaimVerdict.UNVERIFIED
    return (
        verdict,
        list(dict.fromkeys(own + [e.record_id for e in supporting])),
        list(dict.fromkeys(e.record_id for e in refuting)),
        independent,
    )


def one_side_per_record(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """Entries (strongest first) without those that put a record on the other side from its strongest stance.

    One source cannot both support and refute a claim: when two of its sentences disagree (typically a
    finding and a statistic the judge misreads), the more confident reading stands for the record.
    """
    side: dict[str, str] = {}
    for e in entries:
        if e.stance != "NEUTRAL":
            side.setdefault(e.record_id, e.stance)
    return [e for e in entries if e.stance == "NEUTRAL" or side[e.record_id] == e.stance]


NO_INDEPENDENT_SOURCE = "no independent source found"


async def about_claim(backend: Backend, claim: Claim, candidates: list[Record], settings: Context) -> list[Record]:
    """The candidates about the claim: naming its subject and its object (the court's aspect check,
    agent/scoring/aspect.py) and with a title or sentence at least `claim_floor` close to it (the relevance model's
    fitted floor, training/fit_relevance.py), before their sentences count for or against it."""
    if settings.ablations.enable_aspect_check:
        aspects = topical(aspects_of(claim.text))
        if not aspects.checkable:  # no subject and object a record could name: none can be shown to be about it
            return []
        candidates = [record for record in candidates if record_addresses(aspects, record)]
    if backend.relevance is None or not settings.ablations.enable_relevance_gate:
        return candidates
    return [record for record in candidates if await backend.relevance.about(claim.text, record)]


async def check_claim(backend: Backend, claim: Claim, candidates: list[Record], settings: Context) -> Claim:
    claim_key = " ".join(claim.text.lower().split())
    own = set(claim.sources)  # the records the answer quotes for this claim: its first evidence, not checked again
    own_documents = {document_of(r) for r in candidates if r.id in own}  # nor are the other passages of their documents
    others = await about_claim(
        backend, claim, [r for r in candidates if r.id not in own and document_of(r) not in own_documents], settings
    )
    passages = [p for p in sentence_passages(others) if claim_key not in " ".join(p.text.lower().split())]
    if not passages:
        return claim.model_copy(
            update={"supporting": list(claim.sources), "independent_sources": len(own), "note": NO_INDEPENDENT_SOURCE}
        )
    vectors = await backend.embedder.embed([claim.text] + [p.text for p in passages], kind="document")
    sims = vectors[1:] @ vectors[0]
    chosen = [passages[int(i)] for i in np.argsort(-sims)[: settings.verification.claim_sentences]]
    judged = await backend.stance.judge([(claim.text, p.text) for p in chosen])
    entries = [
        LedgerEntry(
            hypothesis_id="claim",
            record_id=p.record_id,
            sentence_index=p.sentence_index,
            sentence_end=p.sentence_end,
            text=p.text,
            stance=r.stance if r.confidence >= settings.court.stance_min_confidence else "NEUTRAL",
            confidence=r.confidence,
        )
        for p, r in zip(chosen, judged, strict=True)
    ]
    by_conf = one_side_per_record(sorted(entries, key=lambda e: -e.confidence))
    size = settings.verification.claim_dossier_size
    dossier = [e for e in by_conf if e.stance == "SUPPORT"][:size] + [e for e in by_conf if e.stance == "CONTRADICT"][
        :size
    ]
    records = {r.id: r for r in candidates}
    verdict, supporting, refuting, independent = verdict_for(
        dossier, records, settings.verification, list(claim.sources)
    )
    confirmed = corroborating(
        [e for e in dossier if e.stance == "SUPPORT"], records, list(claim.sources), settings.verification
    )
    note = "" if confirmed else NO_INDEPENDENT_SOURCE
    return claim.model_copy(
        update={
            "verdict": verdict,
            "supporting": supporting,
            "refuting": refuting,
            "independent_sources": independent,
            "dossier": dossier,
            "note": note,
        }
    )


async def verify_claims(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool: dict[str, Record] = state.get("pool") or {}
    draft = state.get("draft")
    claims: list[Claim] = []
    new_pool: dict[str, Record] = {}
    notes: list[str] = []
    if settings.ablations.enable_verification and settings.verification.max_claims and draft and draft.sentences:
        claims = await backend.reasoner.extract_claims(state["question"], draft, settings.verification.max_claims)
        if settings.ablations.enable_claim_dedup and len(claims) > 1:  # one check per canonical claim (seed 002)
            groups = await dedup_texts([c.text for c in claims], backend.embedder, settings.verification.dedup_cosine)
            claims = [claims[g.representative] for g in groups]
        search = SearchService(backend, settings, usage=state.get("usage"), meter=parts.meter)
        context_ids = [p.record_id for p in (state.get("ranked") or [])[: settings.verification.claim_context_records]]
        checked = []
        for claim in claims:  # academic sources only: claim checks never spend the run's web searches
            found = await search.queries(
                claim_queries(claim.text),
                limit=settings.verification.claim_results_per_query,
                round_=state.get("round", 0),
                use_web=False,
            )
            notes += [f"source failed: {f}" for f in dict.fromkeys(found.failures)]
            update = pool_additions(merge_records(pool, new_pool), found.records)
            new_pool = merge_records(new_pool, update)
            merged = merge_records(pool, new_pool)
            # the claim's own sources ride along (never checked: check_claim) so their documents and tokens are known
            own = [merged[k] for k in claim.sources if k in merged]
            candidates = list(
                {
                    r.id: r for r in [merged[k] for k in update] + [merged[k] for k in context_ids if k in merged] + own
                }.values()
            )
            checked.append(await check_claim(backend, claim, candidates, settings))
        claims = checked
    counts = {v.value: sum(1 for c in claims if c.verdict == v) for v in ClaimVerdict}
    emit({"node": "verify_claims", "claims": len(claims), **counts})
    return {"claims": claims, "pool": new_pool, "notes": notes}
