"""court: per-hypothesis ledger of supporting / contradicting / neutral passages, scores, margin, verdicts.

For each hypothesis the sentences of the reranked records closest to its statement are judged by the
stance model; a hypothesis with polarity -1 (a claim's negation) reads the claim's stances reversed.
score = sum(top support_cap support conf x weight) - contradiction_weight x sum(top contradict_cap
contradiction conf x weight) (seeds 001/002); weight = relevance ((rank + 1) ** -relevance_decay, the record's
place in the reranking; MCQ options use option_relevance_decay) x quantitative (1.5x) x section x (1 + triangulation)
and, behind a flag, 1.5x for citation-hop passages of the adversarial hypothesis (seed 001 risk). A record whose title
and abstract do not name both the statement's subject and its object takes no side on it (agent/reasoners/aspect.py). A
passage naming a claim's outcome whose every statistic is non-significant reads as against a claim of an effect,
whatever the judge read (null_result_reading; court.null_results_contradict). MCQ blends the stance-based net score with
the semantic evidence score (court.mcq_stance_share, seed 000: 70 / 30). margin = gap between the top two hypotheses'
shares of the positive score mass. """

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agent.backend import abackend_for
from agent.budget import node_meter
from agent.config import Context
from agent.interfaces import StanceResult
from agent.lexicon import STANCE_FLIP
from agent.reasoners.aspect import NOT_CHECKED, addresses, aspects_of_hypothesis, names_object
from agent.records import Adjudication, Hypothesis, HypothesisVerdict, LedgerEntry, Passage, Record, Stance
from agent.scoring import adjudication as adjudication_scoring
from agent.routing import decide_after_court
from agent.scoring.chunking import section_window_passages, sentence_passages
from agent.scoring.quantitative import quantitative_weight
from agent.scoring.relevance import RelevanceAssessment
from agent.scoring.significance import claims_an_effect, only_non_significant
from agent.scoring.triangulation import triangulation_score
from agent.state import ResearchState, apply_update
from agent.text import is_finding, is_tentative, jaccard, label_parts
from agent.tracing.progress import emit


def _shares(scores: list[float]) -> list[float]:
    positive = [max(s, 0.0) for s in scores]
    total = sum(positive)
    return [p / total for p in positive] if total > 0 else [0.0] * len(scores)


def margin_of(scores: list[float]) -> float:
    """Gap between the best two hypotheses' shares of positive score mass, in [0, 1]."""
    if len(scores) < 2:
        return 1.0 if scores and scores[0] > 0 else 0.0
    top = sorted(_shares(scores), reverse=True)
    return top[0] - top[1]


def section_weight(section: str | None, weights: dict[str, float]) -> float:
    """Background and aims say what was asked, not what was found: they count less than results. The section
    is the passage's (the label that opened it), so a whole section counts, not only its labelled first sentence.
    A joined label not listed as such weighs as its most result-like part: "patients and methods" as methods,
    "methods and results" as results."""
    if not section:
        return 1.0
    if section in weights:
        return weights[section]
    return max(weights.get(part, 1.0) for part in label_parts(section))


def relevance_weight(rank: int, decay: float) -> float:
    """(rank + 1) ** -decay: the best-matching record speaks loudest. A claim is usually settled by the one
    abstract that studies it; sentences of the 5th or 8th record that merely share its words otherwise
    outvote it (on SciFact validation claims, judging only the top record beat judging the top 8)."""
    return float((rank + 1) ** -decay)


def passage_weight(passage: Passage, record: Record, hypothesis: Hypothesis, settings: Context, source_types: list[str], rank: int) -> float:
    decay = settings.court.option_relevance_decay if hypothesis.origin == "option" else settings.court.relevance_decay
    weight = relevance_weight(rank, decay)
    weight *= quantitative_weight(passage.text, settings.court.quantitative_weight) if settings.ablations.enable_quantitative_weight else 1.0
    if settings.ablations.enable_section_weight:
        weight *= section_weight(passage.section, settings.court.section_weights)
    if settings.ablations.enable_triangulation:
        weight *= 1.0 + triangulation_score(source_types)
    adversarial = hypothesis.origin == "negation"
    if adversarial and any(p.via == "citation_hop" for p in record.provenance):
        weight *= settings.court.adversarial_hop_weight
    return weight


RESTATES_CLAIM = 0.8  # word-set Jaccard at which a passage says what the statement says


def decisive(entries: list[LedgerEntry], floor: float, statement: str = "") -> bool:
    """At least one finding read on this side with confidence `floor` or more, or one that says the statement itself
    (a judge may read its own claim, word for word, at 0.66: a restatement decides however the judge scores it);
    always true at floor 0."""
    if floor <= 0:
        return True
    return any(is_finding(e.text) and not is_tentative(e.text) and (e.confidence >= floor or jaccard(e.text, statement) >= RESTATES_CLAIM)
               for e in entries)


def score_hypothesis(hypothesis: Hypothesis, entries: list[LedgerEntry], settings: Context) -> tuple[Hypothesis, list[LedgerEntry]]:
    """Apply the caps and the score formula; returns the scored hypothesis and its kept ledger entries."""
    def ranked(stance: str) -> list[LedgerEntry]:
        return sorted((e for e in entries if e.stance == stance), key=lambda e: -e.confidence * e.weight)

    court = settings.court
    support, against, neutral = ranked("SUPPORT")[: court.support_cap], ranked("CONTRADICT")[: court.contradict_cap], ranked("NEUTRAL")[: court.neutral_kept]
    s = sum(e.confidence * e.weight for e in support)
    c = sum(e.confidence * e.weight for e in against)
    score = s - court.contradiction_weight * c
    if s >= court.verdict_min_evidence and score > 0 and decisive(support, court.decisive_confidence, hypothesis.statement):
        verdict = HypothesisVerdict.SUPPORTED
    elif c >= court.verdict_min_evidence and c > s and decisive(against, court.decisive_confidence, hypothesis.statement):
        verdict = HypothesisVerdict.CONTRADICTED
    else:
        verdict = HypothesisVerdict.INSUFFICIENT
    scored = hypothesis.model_copy(update={"support": float(s), "contradiction": float(c), "score": float(score), "verdict": verdict})
    return scored, support + against + neutral


async def court(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    settings = runtime.context
    backend = await abackend_for(settings, state.get("documents"))
    pool: dict[str, Record] = state.get("pool") or {}
    hypotheses: list[Hypothesis] = state.get("hypotheses") or []
    records = [pool[p.record_id] for p in state.get("ranked") or [] if p.record_id in pool][: settings.court.court_records]
    passages = sentence_passages(records) + (section_window_passages(records) if settings.court.court_section_windows else [])
    if settings.ablations.enable_section_weight:
        passages = [p for p in passages if is_finding(p.text)]
    relevance = None
    if settings.ablations.enable_relevance_gate and backend.relevance is not None and records:
        relevance = await _relevance(backend, state, hypotheses, records)
        if not relevance.relevant:
            passages = []  # nothing here addresses the question: no stance is judged, the answer declines
    with node_meter(state, settings) as meter:
        ledger, scored, semantic = [], [], []
        off_aspect: set[str] = set()  # records whose sides (or, at aspect_scope 'passage', some passages') the aspect check removed
        if passages and hypotheses:
            statements = list(dict.fromkeys(h.statement for h in hypotheses))
            vectors = await backend.embedder.embed(statements + [p.text for p in passages], kind="document")
            sims = vectors[len(statements):] @ vectors[: len(statements)].T  # [passages, statements]
            chosen: dict[str, list[int]] = {}
            for j, statement in enumerate(statements):
                chosen[statement] = [int(i) for i in np.argsort(-sims[:, j])[: settings.court.sentences_per_hypothesis]]
            pairs = [(statement, passages[i].text) for statement in statements for i in chosen[statement]]
            judged: list[StanceResult] = await backend.stance.judge(pairs) if pairs else []
            stance_of = {pair: result for pair, result in zip(pairs, judged, strict=True)}
            source_types = _source_types_by_record(records)
            rank_of = {record.id: rank for rank, record in enumerate(records)}
            for h in hypotheses:
                j = statements.index(h.statement)
                aspects = aspects_of_hypothesis(h) if settings.ablations.enable_aspect_check else NOT_CHECKED
                entries = []
                for i in chosen[h.statement]:
                    result = stance_of[(h.statement, passages[i].text)]
                    stance, confidence = result.side_taken(settings.court.stance_min_confidence, settings.court.stance_side_floor)
                    if settings.court.null_results_contradict and h.origin in ("claim", "negation"):
                        stance, confidence = null_result_reading(h.statement, passages[i].text, result, stance, confidence,
                                                                 settings.court.stance_min_confidence)
                    if settings.court.tentative_takes_no_side and is_tentative(passages[i].text):
                        stance = "NEUTRAL"  # its point still needs confirming: a qualification, not a finding
                    record = pool[passages[i].record_id]
                    if stance != "NEUTRAL" and not addresses(aspects, record, passages[i].text, settings.court.aspect_scope):
                        stance = "NEUTRAL"  # the record (or passage) is about something else: it cannot take a side
                        off_aspect.add(record.id)
                    if h.polarity < 0:
                        stance = STANCE_FLIP[stance]
                    entries.append(LedgerEntry(
                        hypothesis_id=h.id, record_id=record.id, sentence_index=passages[i].sentence_index,
                        sentence_end=passages[i].sentence_end, text=passages[i].text,
                        stance=stance, confidence=float(confidence),
                        weight=float(passage_weight(passages[i], record, h, settings, source_types[record.id], rank_of[record.id])),
                        via="citation_hop" if any(p.via == "citation_hop" for p in record.provenance) else "search",
                        judged_by=result.judged_by,
                    ))
                h_scored, kept = score_hypothesis(h, entries, settings)
                scored.append(h_scored)
                ledger += kept
                semantic.append(float(np.mean(np.sort(sims[:, j])[-3:])))
        else:
            scored = list(hypotheses)
        mcq = state["plan"].task == "mcq"
        evidence_share = semantic_shares(semantic, len(scored)) if mcq else adjudication_scoring.shares([h.score for h in scored])
        if mcq and scored:
            scored = _blend_mcq(scored, semantic, settings.court.mcq_stance_share)
        adjudication = await _adjudicate(backend, state, scored, ledger, evidence_share, settings)
        if adjudication is not None:
            scored = adjudication_scoring.apply(scored, adjudication)
    margin = float(margin_of([h.score for h in scored])) if scored else None
    emit({"node": "court", "round": state.get("round", 0), "margin": margin, "hypotheses": [(h.id, round(h.score, 3), h.verdict.value) for h in scored],
          **({"adjudication": {"model": adjudication.model_choice, "evidence": adjudication.evidence_choice, "blend": adjudication.blend,
                               "contested": adjudication.contested}} if adjudication else {})})
    update = {"hypotheses": scored, "ledger": ledger, "margin": margin, "usage": meter.usage, "relevance": relevance, "adjudication": adjudication,
              "notes": _aspect_notes(off_aspect) + ([f"adjudication: {note}" for note in adjudication.notes] if adjudication else [])}
    return {**update, "decisions": [decide_after_court(apply_update(state, update), settings)]}


def null_result_reading(statement: str, passage: str, result: StanceResult, stance: Stance, confidence: float,
                        min_confidence: float) -> tuple[Stance, float]:
    """A claim of an effect against a passage that names its outcome and whose every statistic is non-significant:
    the passage shows no effect, so it reads as CONTRADICT with the judge's probability that it does not support
    the claim (NEUTRAL when that is below `min_confidence`: the judge firmly reads support, which a non-significant
    estimate cannot give). Otherwise, and for a judge without probabilities (a chat model), the judge's reading."""
    if stance == "CONTRADICT" or not result.probabilities or not claims_an_effect(statement):
        return stance, confidence
    if not only_non_significant(passage) or not names_object(statement, passage):
        return stance, confidence
    against = 1.0 - result.probabilities.get("SUPPORT", 0.0)
    return ("CONTRADICT", against) if against >= min_confidence else ("NEUTRAL", result.probabilities.get("NEUTRAL", 0.0))


def _aspect_notes(off_aspect: set[str]) -> list[str]:
    """Which records the aspect check kept from taking a side, so a reader of the trace sees why they count as
    neutral."""
    records = sorted(off_aspect)
    if not records:
        return []
    return [f"court: {len(records)} record(s) read as neutral: they do not name both the subject and the object of a "
        "hypothesis they were "
            f"judged against (aspect check): {', '.join(records[:8])}{' …' if len(records) > 8 else ''}"]


async def _relevance(backend: Any, state: ResearchState, hypotheses: list[Hypothesis], records: list[Record]) -> RelevanceAssessment:
    """The gate's reading of whether the records address the question: for an MCQ, of its best-addressed option's
    statement (a stem like "Which statement is supported?" names no topic); else of the claim, or the question."""
    plan = state.get("plan")
    if plan is not None and plan.task == "mcq" and hypotheses:
        focuses = list(dict.fromkeys(h.statement for h in hypotheses))
    else:
        focuses = [(plan.claim if plan and plan.claim else None) or state["question"]]
    assessments = [await backend.relevance.assess(focus, records) for focus in focuses]
    return max(assessments, key=lambda a: a.probability)


def _source_types_by_record(records: list[Record]) -> dict[str, list[str]]:
    """For triangulation: the source types through which each record (work) was found."""
    types: dict[str, list[str]] = defaultdict(list)
    for record in records:
        kinds = {record.source_type} | {p.source for p in record.provenance if p.source} | set(record.alt_ids)
        types[record.id] = sorted(kinds)
    return types


def semantic_shares(semantic: list[float], n: int) -> list[float]:
    """Each option's share of the semantic evidence (its closest passages' cosine above the weakest option's)."""
    sem = np.asarray(semantic or [0.0] * n)
    return _shares([float(x) for x in sem - sem.min()]) if sem.size and sem.max() > sem.min() else [1.0 / n] * n if n else []


async def _adjudicate(backend: Any, state: ResearchState, scored: list[Hypothesis], ledger: list[LedgerEntry], evidence_share: list[float],
                      settings: Context) -> Adjudication | None:
    """With a chat model: its judgement of each hypothesis from the ledger, blended with the evidence
    (agent/scoring/adjudication.py)."""
    if not scored or not ledger:
        return None
    verdict = await backend.reasoner.adjudicate(state["question"], state["plan"], scored, ledger, settings.court.adjudication_passages)
    if verdict is None:
        return None
    court = settings.court
    return adjudication_scoring.blend(scored, verdict, evidence_share, court.model_share, court.adjudication_abstain_below, court.contested_share)


def _blend_mcq(hypotheses: list[Hypothesis], semantic: list[float], stance_share_weight: float) -> list[Hypothesis]:
    """MCQ: stance-based net score share blended with the semantic evidence share (seed 000: 70 / 30)."""
    stance_share = _shares([h.score for h in hypotheses])
    sem_share = semantic_shares(semantic, len(hypotheses))
    return [
        h.model_copy(update={"score": float(stance_share_weight * st + (1 - stance_share_weight) * se)})
        for h, st, se in zip(hypotheses, stance_share, sem_share)
    ]
