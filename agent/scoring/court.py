"""The court's formulas: how much a passage weighs, how a hypothesis is scored from its ledger, the margin between
the best two, and how an MCQ option's stance score blends with its semantic evidence."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from agent.common.text import is_finding, is_tentative, jaccard, label_parts
from agent.config import Context
from agent.interfaces import StanceResult
from agent.literature import Passage, Record
from agent.records import Hypothesis, HypothesisVerdict, LedgerEntry, Stance
from agent.scoring.adjudication import shares
from agent.scoring.aspect import names_object
from agent.scoring.chunking import structured_label
from agent.scoring.quantitative import quantitative_weight
from agent.scoring.significance import claims_an_effect, only_non_significant
from agent.scoring.triangulation import triangulation_score


def margin_of(scores: list[float]) -> float:
    """Gap between the best two hypotheses' shares of positive score mass, in [0, 1]."""
    if len(scores) < 2:
        return 1.0 if scores and scores[0] > 0 else 0.0
    top = sorted(shares(scores), reverse=True)
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


def passage_weight(
    passage: Passage, record: Record, hypothesis: Hypothesis, settings: Context, source_types: list[str], rank: int
) -> float:
    decay = settings.court.option_relevance_decay if hypothesis.origin == "option" else settings.court.relevance_decay
    weight = relevance_weight(rank, decay)
    weight *= (
        quantitative_weight(passage.text, settings.court.quantitative_weight)
        if settings.ablations.enable_quantitative_weight
        else 1.0
    )
    if settings.ablations.enable_section_weight:
        weight *= section_weight(passage.section, settings.court.section_weights)
    if settings.ablations.enable_triangulation:
        weight *= 1.0 + triangulation_score(source_types)
    adversarial = hypothesis.origin == "negation"
    if adversarial and any(p.via == "citation_hop" for p in record.provenance):
        weight *= settings.court.adversarial_hop_weight
    return weight


RESTATES_CLAIM = 0.8  # word-set Jaccard at which a passage says what the statement says


def under_results(sentence: str, weights: dict[str, float]) -> bool:
    """False for a sentence that opens with its own label of what was asked or done ('DESIGN Consecutive patients
    ...', 'OBJECTIVE To assess ...': a section weighted below 1): it reports no result, however on topic. Of the
    SciFact corpus's sentences under such labels, 1 of about 1,900 is a training claim's rationale (a METHODS one)."""
    label = structured_label(sentence)
    return label is None or section_weight(label, weights) >= 1.0


def decisive(
    entries: list[LedgerEntry], floor: float, statement: str = "", section_weights: dict[str, float] | None = None
) -> bool:
    """At least one finding read on this side with confidence `floor` or more, or one that says the statement itself
    (a judge may read its own claim, word for word, at 0.66: a restatement decides however the judge scores it); a
    sentence labelled as background, aims or methods decides nothing (`under_results`); always true at floor 0."""
    if floor <= 0:
        return True
    return any(
        is_finding(e.text)
        and not is_tentative(e.text)
        and under_results(e.text, section_weights or {})
        and (e.confidence >= floor or jaccard(e.text, statement) >= RESTATES_CLAIM)
        for e in entries
    )


def passage_entry(
    hypothesis: Hypothesis,
    passage: Passage,
    stance: Stance,
    confidence: float,
    weight: float,
    via: str,
    judged_by: str | None,
) -> LedgerEntry:
    """One judged passage's ledger entry for a hypothesis (its stance already read for that hypothesis)."""
    return LedgerEntry(
        hypothesis_id=hypothesis.id,
        record_id=passage.record_id,
        sentence_index=passage.sentence_index,
        sentence_end=passage.sentence_end,
        text=passage.text,
        stance=stance,
        confidence=float(confidence),
        weight=float(weight),
        via=via,
        judged_by=judged_by,
    )


def score_hypothesis(
    hypothesis: Hypothesis, entries: list[LedgerEntry], settings: Context
) -> tuple[Hypothesis, list[LedgerEntry]]:
    """Apply the caps and the score formula; returns the scored hypothesis and its kept ledger entries."""

    def ranked(stance: str) -> list[LedgerEntry]:
        return sorted((e for e in entries if e.stance == stance), key=lambda e: -e.confidence * e.weight)

    court = settings.court
    support, against, neutral = (
        ranked("SUPPORT")[: court.support_cap],
        ranked("CONTRADICT")[: court.contradict_cap],
        ranked("NEUTRAL")[: court.neutral_kept],
    )
    s = sum(e.confidence * e.weight for e in support)
    c = sum(e.confidence * e.weight for e in against)
    score = s - court.contradiction_weight * c
    if (
        s >= court.verdict_min_evidence
        and score > 0
        and decisive(support, court.decisive_confidence, hypothesis.statement, court.section_weights)
    ):
        verdict = HypothesisVerdict.SUPPORTED
    elif (
        c >= court.verdict_min_evidence
        and c > s
        and decisive(against, court.decisive_confidence, hypothesis.statement, court.section_weights)
    ):
        verdict = HypothesisVerdict.CONTRADICTED
    else:
        verdict = HypothesisVerdict.INSUFFICIENT
    scored = hypothesis.model_copy(
        update={"support": float(s), "contradiction": float(c), "score": float(score), "verdict": verdict}
    )
    return scored, support + against + neutral


def null_result_reading(
    statement: str, passage: str, result: StanceResult, stance: Stance, confidence: float, min_confidence: float
) -> tuple[Stance, float]:
    """A claim of an effect against a passage that names its outcome and whose every statistic is non-significant:
    the passage shows no effect, so it reads as CONTRADICT with the judge's probability that it does not support
    the claim (NEUTRAL when that is below `min_confidence`: the judge firmly reads support, which a non-significant
    estimate cannot give). Otherwise, and for a judge without probabilities (a chat model), the judge's reading."""
    if stance == "CONTRADICT" or not result.probabilities or not claims_an_effect(statement):
        return stance, confidence
    if not only_non_significant(passage) or not names_object(statement, passage):
        return stance, confidence
    against = 1.0 - result.probabilities.get("SUPPORT", 0.0)
    return (
        ("CONTRADICT", against) if against >= min_confidence else ("NEUTRAL", result.probabilities.get("NEUTRAL", 0.0))
    )


def source_types_by_record(records: list[Record]) -> dict[str, list[str]]:
    """For triangulation: the source types through which each record (work) was found."""
    types: dict[str, list[str]] = defaultdict(list)
    for record in records:
        kinds = {record.source_type} | {p.source for p in record.provenance if p.source} | set(record.alt_ids)
        types[record.id] = sorted(kinds)
    return types


def semantic_shares(semantic: list[float], n: int) -> list[float]:
    """Each option's share of the semantic evidence (its closest passages' cosine above the weakest option's)."""
    sem = np.asarray(semantic or [0.0] * n)
    return (
        shares([float(x) for x in sem - sem.min()])
        if sem.size and sem.max() > sem.min()
        else [1.0 / n] * n
        if n
        else []
    )


def blend_mcq(hypotheses: list[Hypothesis], semantic: list[float], stance_share_weight: float) -> list[Hypothesis]:
    """MCQ: stance-based net score share blended with the semantic evidence share (seed 000: 70 / 30)."""
    stance_share = shares([h.score for h in hypotheses])
    sem_share = semantic_shares(semantic, len(hypotheses))
    return [
        h.model_copy(update={"score": float(stance_share_weight * st + (1 - stance_share_weight) * se)})
        for h, st, se in zip(hypotheses, stance_share, sem_share)
    ]
