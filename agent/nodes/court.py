"""court: per-hypothesis ledger of supporting / contradicting / neutral passages, scores, margin, verdicts.

For each hypothesis the sentences of the reranked records closest to its statement are judged by the
stance model; a hypothesis with polarity -1 (a claim's negation) reads the claim's stances reversed.
score = sum(top support_cap support conf x weight) - contradiction_weight x sum(top contradict_cap
contradiction conf x weight) (seeds 001/002); weight = relevance ((rank + 1) ** -relevance_decay, the record's
place in the reranking; MCQ options use option_relevance_decay) x quantitative (1.5x) x section x (1 + triangulation)
and, behind a flag, 1.5x for citation-hop passages of the adversarial hypothesis (seed 001 risk). A record whose title
and abstract do not name both the statement's subject and its object takes no side on it (agent/scoring/aspect.py). A
passage naming a claim's outcome whose every statistic is non-significant reads as against a claim of an effect,
whatever the judge read (null_result_reading; court.null_results_contradict). MCQ blends the stance-based net score with
the semantic evidence score (court.mcq_stance_share, seed 000: 70 / 30). margin = gap between the top two hypotheses'
shares of the positive score mass."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import numpy as np

from agent.common.text import is_finding, is_tentative
from agent.config import Context
from agent.english.lexicon import STANCE_FLIP
from agent.interfaces import StanceResult
from agent.literature import Record
from agent.nodes.parts import RunParts
from agent.prompts.sources import reading_context
from agent.records import Adjudication, Hypothesis, LedgerEntry
from agent.scoring import adjudication as adjudication_scoring
from agent.scoring.aspect import NOT_CHECKED, addresses, aspects_of_hypothesis
from agent.scoring.chunking import section_window_passages, sentence_passages
from agent.scoring.court import (
    blend_mcq,
    margin_of,
    null_result_reading,
    passage_entry,
    passage_weight,
    score_hypothesis,
    semantic_shares,
    source_types_by_record,
)
from agent.scoring.relevance import RelevanceAssessment
from agent.state import ResearchState
from agent.tracing.progress import emit
from agent.verdict.apply import decide_claim, decide_options, with_decider
from agent.verdict.model import VerdictModel, packaged_verdict_path, reader_versions, verdict_model_for
from agent.verdict.readings import read_all


async def court(state: ResearchState, parts: RunParts) -> ResearchState:
    """The court's reading, with the question and the pool's records as the chat-model roles' reading context
    (agent/prompts/sources.py: only a chat model reads it; the offline judges are called exactly as before)."""
    with reading_context(state["question"], (state.get("pool") or {}).values()):
        return await _court(state, parts)


async def _court(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    backend = await parts.backend()
    pool: dict[str, Record] = state.get("pool") or {}
    hypotheses: list[Hypothesis] = state.get("hypotheses") or []
    records = [pool[p.record_id] for p in state.get("ranked") or [] if p.record_id in pool][
        : settings.court.court_records
    ]
    passages = sentence_passages(records) + (
        section_window_passages(records) if settings.court.court_section_windows else []
    )
    if settings.ablations.enable_section_weight:
        passages = [p for p in passages if is_finding(p.text)]
    relevance = None
    if settings.ablations.enable_relevance_gate and backend.relevance is not None and records:
        relevance = await _relevance(backend, state, hypotheses, records)
        if not relevance.relevant:
            passages = []  # nothing here addresses the question: no stance is judged, the answer declines
    ledger, scored, semantic = [], [], []
    readings: list[dict[str, Any]] = []
    judged_entries: dict[tuple[str, int], LedgerEntry] = {}  # (hypothesis, passage index) -> its reading, uncapped
    off_aspect: set[str] = (
        set()
    )  # records whose sides (or, at aspect_scope 'passage', some passages') the aspect check removed
    if passages and hypotheses:
        statements = list(dict.fromkeys(h.statement for h in hypotheses))
        vectors = await backend.embedder.embed(statements + [p.text for p in passages], kind="document")
        sims = vectors[len(statements) :] @ vectors[: len(statements)].T  # [passages, statements]
        chosen: dict[str, list[int]] = {}
        for j, statement in enumerate(statements):
            chosen[statement] = [int(i) for i in np.argsort(-sims[:, j])[: settings.court.sentences_per_hypothesis]]
        pairs = [(statement, passages[i].text) for statement in statements for i in chosen[statement]]
        judged: list[StanceResult] = await backend.stance.judge(pairs) if pairs else []
        stance_of = {pair: result for pair, result in zip(pairs, judged, strict=True)}
        if state["plan"].task != "open":  # the verdict model's inputs (agent/verdict): claims and options
            readings = await read_all(
                backend.stance,
                statements,
                chosen,
                passages,
                sims,
                stance_of,
                hypotheses,
                records,
                settings.court.section_weights,
            )
        source_types = source_types_by_record(records)
        rank_of = {record.id: rank for rank, record in enumerate(records)}
        for h in hypotheses:
            j = statements.index(h.statement)
            aspects = aspects_of_hypothesis(h) if settings.ablations.enable_aspect_check else NOT_CHECKED
            entries = []
            for i in chosen[h.statement]:
                result = stance_of[(h.statement, passages[i].text)]
                stance, confidence = result.side_taken(
                    settings.court.stance_min_confidence, settings.court.stance_side_floor
                )
                if settings.court.null_results_contradict and h.origin in ("claim", "negation"):
                    stance, confidence = null_result_reading(
                        h.statement, passages[i].text, result, stance, confidence, settings.court.stance_min_confidence
                    )
                if settings.court.tentative_takes_no_side and is_tentative(passages[i].text):
                    stance = "NEUTRAL"  # its point still needs confirming: a qualification, not a finding
                record = pool[passages[i].record_id]
                if stance != "NEUTRAL" and not addresses(
                    aspects, record, passages[i].text, settings.court.aspect_scope
                ):
                    stance = "NEUTRAL"  # the record (or passage) is about something else: it cannot take a side
                    off_aspect.add(record.id)
                if h.polarity < 0:
                    stance = STANCE_FLIP[stance]
                weight = passage_weight(passages[i], record, h, settings, source_types[record.id], rank_of[record.id])
                via = "citation_hop" if any(p.via == "citation_hop" for p in record.provenance) else "search"
                entries.append(passage_entry(h, passages[i], stance, confidence, weight, via, result.judged_by))
                judged_entries[(h.id, i)] = entries[-1]
            h_scored, kept = score_hypothesis(h, entries, settings)
            scored.append(h_scored)
            ledger += kept
            semantic.append(float(np.mean(np.sort(sims[:, j])[-3:])))
    else:
        scored = list(hypotheses)
    weighed = await weigh(backend, state, scored, ledger, readings, semantic, judged_entries, relevance, settings)
    emit(
        {
            "node": "court",
            "round": state.get("round", 0),
            "margin": weighed["margin"],
            "hypotheses": [(h.id, round(h.score, 3), h.verdict.value) for h in weighed["hypotheses"]],
            **({"verdict_model": weighed["verdict_model"]} if weighed["verdict_model"] else {}),
            **(_adjudication_event(weighed["adjudication"]) if weighed["adjudication"] else {}),
        }
    )
    read = [r.id for r in records] if passages and hypotheses else []  # each paper's answer (agent/answer/papers.py)
    return cast(
        ResearchState,
        {**weighed, "relevance": relevance, "court_read": read, "notes": _aspect_notes(off_aspect) + weighed["notes"]},
    )


def _adjudication_event(adjudication: Adjudication) -> dict[str, Any]:
    return {
        "adjudication": {
            "model": adjudication.model_choice,
            "evidence": adjudication.evidence_choice,
            "blend": adjudication.blend,
            "contested": adjudication.contested,
        }
    }


async def weigh(
    backend: Any,
    state: ResearchState,
    scored: list[Hypothesis],
    ledger: list[LedgerEntry],
    readings: list[dict[str, Any]],
    semantic: list[float],
    judged_entries: dict[tuple[str, int], LedgerEntry],
    relevance: RelevanceAssessment | None,
    settings: Context,
) -> dict[str, Any]:
    """From the scored hypotheses and their ledger to the court's update: the MCQ blend, the chat model's
    adjudication when there is one, the margin, the fitted verdict model's decision. The review point (agent/nodes/
    review.py) weighs a reviewer's edited ledger through this same path."""
    mcq = state["plan"].task == "mcq"
    evidence_share = (
        semantic_shares(semantic, len(scored)) if mcq else adjudication_scoring.shares([h.score for h in scored])
    )
    if mcq and scored:
        scored = blend_mcq(scored, semantic, settings.court.mcq_stance_share)
    adjudication = await _adjudicate(backend, state, scored, ledger, evidence_share, settings)
    if adjudication is not None:
        scored = adjudication_scoring.apply(scored, adjudication)
    margin = float(margin_of([h.score for h in scored])) if scored else None
    model_verdict: dict[str, Any] | None = None
    model_notes: list[str] = []
    if adjudication is None and settings.court.verdict_model:
        scored, model_verdict, model_notes = await _model_verdict(backend, state, scored, readings, relevance, settings)
        if model_verdict is not None:
            ledger = with_decider(ledger, judged_entries, readings, scored, model_verdict["family"])
    return {
        "hypotheses": scored,
        "ledger": ledger,
        "readings": readings,
        "semantic": semantic,
        "verdict_model": model_verdict,
        "margin": margin,
        "adjudication": adjudication,
        "notes": model_notes + ([f"adjudication: {note}" for note in adjudication.notes] if adjudication else []),
    }


async def _model_verdict(
    backend: Any,
    state: ResearchState,
    scored: list[Hypothesis],
    readings: list[dict[str, Any]],
    relevance: RelevanceAssessment | None,
    settings: Context,
) -> tuple[list[Hypothesis], dict[str, Any] | None, list[str]]:
    """The fitted verdict model's decision (agent/verdict/apply.py) for a claim or an MCQ; the formula's for anything
    else, or where the model was fitted on other readers than those that read this run (said in a note)."""
    plan = state["plan"]
    if plan.task == "open" or not readings:
        return scored, None, []
    path = Path(settings.court.verdict_model_path).expanduser() if settings.court.verdict_model_path else None
    model = await asyncio.to_thread(_verdict_model, backend.stance, path)  # reads files: off the event loop
    if model is None:
        return scored, None, ["court: the verdict model was fitted on other readers: the court's formula decides"]
    if plan.task == "mcq":
        decided = decide_options(model, scored, readings, settings.answer.mcq_abstain_below)
    else:
        gate = relevance.probability if relevance is not None else None
        setting = "documents" if state.get("documents") else "corpus"
        decided = decide_claim(
            model, scored, readings, plan.task == "polar", gate, settings.court.verdict_threshold, setting
        )
    if decided is None:
        return scored, None, []
    hypotheses, verdict = decided
    return hypotheses, verdict.as_state(), []


def _verdict_model(stance: Any, path: Path | None) -> VerdictModel | None:
    """The verdict model for the running readers: the file the settings name, else the packaged one fitted on them."""
    running = reader_versions(stance)
    return verdict_model_for(path or packaged_verdict_path(running), running)


def _aspect_notes(off_aspect: set[str]) -> list[str]:
    """Which records the aspect check kept from taking a side, so a reader of the trace sees why they count as
    neutral."""
    records = sorted(off_aspect)
    if not records:
        return []
    return [
        f"court: {len(records)} record(s) read as neutral: they do not name both the subject and the object of a "
        "hypothesis they were "
        f"judged against (aspect check): {', '.join(records[:8])}{' …' if len(records) > 8 else ''}"
    ]


async def _relevance(
    backend: Any, state: ResearchState, hypotheses: list[Hypothesis], records: list[Record]
) -> RelevanceAssessment:
    """The gate's reading of whether the records address the question: for an MCQ, of its best-addressed option's
    statement (a stem like "Which statement is supported?" names no topic); else of the claim, or the question."""
    plan = state.get("plan")
    if plan is not None and plan.task == "mcq" and hypotheses:
        focuses = list(dict.fromkeys(h.statement for h in hypotheses))
    else:
        focuses = [(plan.claim if plan and plan.claim else None) or state["question"]]
    assessments = [await backend.relevance.assess(focus, records) for focus in focuses]
    return max(assessments, key=lambda a: a.probability)


async def _adjudicate(
    backend: Any,
    state: ResearchState,
    scored: list[Hypothesis],
    ledger: list[LedgerEntry],
    evidence_share: list[float],
    settings: Context,
) -> Adjudication | None:
    """With a chat model: its judgement of each hypothesis from the ledger, blended with the evidence
    (agent/scoring/adjudication.py)."""
    if not scored or not ledger:
        return None
    verdict = await backend.reasoner.adjudicate(
        state["question"], state["plan"], scored, ledger, settings.court.adjudication_passages
    )
    if verdict is None:
        return None
    court = settings.court
    return adjudication_scoring.blend(
        scored,
        verdict,
        evidence_share,
        court.model_share,
        court.adjudication_abstain_below,
        court.contested_share,
        court.abstain_lean_share,
    )
