"""Whether a run answers or declines, and why: the status ladder, one pure function of what the run found.

To answer "why did this run decline?", read `rule`: its docstring lists the rungs in the order they are tried, and
each rung's reason is what the answer and its stop reason say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.answer.compose import RELATED
from agent.answer.lines import (
    abstention_line,
    answer_line,
    lean_line,
    lean_sentence,
    listed,
    mixed_sentence,
    records_rested_on,
    unnamed_sentence,
)
from agent.answer.naming import unaddressed_terms, unnamed
from agent.interfaces import Draft, Plan
from agent.literature import Record
from agent.records import Adjudication, Decision, Hypothesis, HypothesisVerdict, LedgerEntry, Status
from agent.scoring.relevance import RelevanceAssessment


def quotes_only_against(draft: Draft) -> bool:
    """Every passage quoted under the answer line reads confidently against it, and the line quotes no record of its
    own: such a verdict would be followed only by evidence against it ("The evidence contradicts the claim" over
    nothing but "Supports the claim" quotes), and the run does not give it (agent.answer.assemble abstains)."""
    quoted = [s for s in draft.sentences if s.role]
    return (
        bool(quoted) and not draft.answer_citations and all(s.side == "against" and s.role != RELATED for s in quoted)
    )


CONTRARY_REASON = "every passage quoted on the leading answer reads against it"


def model_declined(adjudication: Adjudication | None, draft: Draft | None) -> str | None:
    """Why a chat model said the evidence does not decide, when one did: it abstained when adjudicating, or its
    answer said "insufficient evidence". Either binds: the run then states no verdict (a lean at most)."""
    if adjudication is not None and adjudication.model_abstained:
        return "the adjudicating model abstained: it found the evidence insufficient to choose"
    if draft is not None and draft.declined:
        return f"the answering model found the evidence insufficient ({draft.declined[:120]})"
    return None


def abstention_reason(
    sides: int, leading: float, threshold: float, thin: bool, adjudicated: bool, declined: str | None = None
) -> str:
    """Why an abstaining run does not decide: a chat model said the evidence does not decide, too little evidence
    takes a side (the court's verdict threshold), the leading answer's confidence is below the abstention threshold,
    or the adjudicating model's blend is below its abstention threshold."""
    if declined:
        return declined
    if adjudicated:
        return f"the adjudicating model abstained (the leading answer's blended score is {leading:.2f})"
    if thin:
        return (
            "the one record that takes a side weighs too little for a verdict"
            if sides == 1
            else f"the {sides} records that take a side weigh too little for a verdict"
        )
    return f"the leading answer's confidence is {leading:.2f}, below the {threshold:.2f} needed to answer"


@dataclass(frozen=True)
class Findings:
    """What the run found, as the ladder reads it. `leading` and `abstention` are the calibrator's probabilities that
    the leading answer, or an abstention, is right (the ladder takes whichever it reports)."""

    question: str
    plan: Plan
    pool: dict[str, Record]
    ledger: list[LedgerEntry]
    draft: Draft | None
    best: Hypothesis | None
    leading: float
    abstention: float
    decisions: Sequence[Decision] = ()
    relevance: RelevanceAssessment | None = None
    adjudication: Adjudication | None = None
    outage: str | None = None
    margin: float | None = None
    budget_stop: str | None = None


@dataclass(frozen=True)
class Thresholds:
    """The settings the ladder reads: the confidence below which the leading answer is not given as a confident
    answer (`abstain`, the operating point), the evidence a verdict needs (`verdict_min_evidence`, for the "evidence
    is mixed" sentence), the margin under which a budget-stopped loop reports BUDGET_EXHAUSTED rather than ANSWERED
    (`margin`), and whether a leading answer under the operating point is given as a lean (`leaning`; false:
    answer.confident_only)."""

    abstain: float
    verdict_min_evidence: float
    margin: float
    leaning: bool = True


@dataclass(frozen=True)
class Ruling:
    """The ladder's answer: the status, the answer line, why the run ended, and the facts the report shows with it."""

    status: Status
    text: str
    stop_reason: str
    confidence: float
    leading: float  # the leading answer's confidence (the adjudication's blend when a model adjudicated)
    decided: bool  # a hypothesis reached a verdict on evidence that takes a side
    abstained: bool
    tier: str | None = None  # "confident" (ANSWERED), "leaning" (LEANING), None: no answer given
    unaddressed: list[str] = field(default_factory=list)  # what the records never mention that the question asks about
    off_topic: bool = False  # the relevance gate found that nothing retrieved addresses the question


def stop_reason_of(decisions: Sequence[Decision], declined: str | None = None) -> str:
    """Why the run ended: a budget if one stopped a loop, else the court's (and, when a round with no new query ended
    the loop, discrimination's) and the verifier's last word. `declined`:
    why a run gives no answer although the court went on to write one; it leads, and the court's "resolved: margin
    1.000" is left out (a margin of score shares is 1 when only one answer has any support, however little): an
    abstention never reads as resolved."""
    budget = [d for d in decisions if "budget_exhausted" in d.reason]
    if budget:
        return f"{budget[-1].at}: {budget[-1].reason}"
    parts = [f"insufficient evidence: {declined}"] if declined else []
    for at in ("court", "discriminate", "verify_claims"):
        last = next((d for d in reversed(decisions) if d.at == at), None)
        if at == "discriminate" and (last is None or last.next != "synthesize"):
            continue  # discrimination speaks only when it ended the loop (no new query could bring a record)
        if last and not (declined and at == "court" and last.reason.startswith("resolved")):
            parts.append(f"{at}: {last.reason}")
    return "; ".join(parts) or "completed"


def rule(found: Findings, thresholds: Thresholds) -> Ruling:
    """The run's status, answer line and stop reason. The rungs, tried in this order (the first that holds decides):

    1. ERROR: nothing was retrieved because every source was unreachable (`outage`): an error to fix, not an answer;
    2. INSUFFICIENT_EVIDENCE, "no record was retrieved";
    3. INSUFFICIENT_EVIDENCE, off topic: the relevance gate found that no record addresses the question;
    4. INSUFFICIENT_EVIDENCE: no retrieved passage supports or contradicts any candidate answer, or no draft quotes
       one;
    5. INSUFFICIENT_EVIDENCE, unaddressed: an open answer's records never mention a name the question asks about
       ("TNF-alpha"), or two of its words ("blood clots") (answer.naming.unaddressed_terms);
    6. INSUFFICIENT_EVIDENCE, abstained: no hypothesis reached a verdict (too little evidence takes a side), the
       adjudicating model's blend is below its threshold, a chat model said the evidence does not decide (it
       abstained, or its answer said "insufficient evidence": model_declined) and no lean is given, every passage
       quoted on the leading answer reads against it
       (quotes_only_against), or the leading answer is below `thresholds.abstain` and no likelier than "insufficient
       evidence" (or leans are off, `thresholds.leaning` false);
    7. LEANING: the leading answer is below `thresholds.abstain` (the operating point) but likelier than
       "insufficient evidence" (for a claim: its side leads the verdict model's three-way probabilities): the lean,
       its probability and the records it rests on (lines.lean_line); after a chat model's "not enough" a lean is
       the most the run gives, it says that no verdict is stated, and the verdict field stays empty;
    8. ANSWERED: the draft's answer line with its confidence, "the evidence is mixed" where it is, and what the
       records it rests on leave unnamed.
    Then two budget rungs override the status: an ANSWERED or LEANING run whose loop a budget ended below
    `thresholds.margin` is BUDGET_EXHAUSTED, and a run a hard limit cut short (`budget_stop`) is BUDGET_EXHAUSTED
    with what it found so far. The confidence is always the probability that what the status says is right: the
    abstention's when the run abstains, else the leading answer's (a lean's included)."""
    question, plan, pool, ledger, draft, best = (
        found.question,
        found.plan,
        found.pool,
        found.ledger,
        found.draft,
        found.best,
    )
    decisions, relevance, adjudication, leading = found.decisions, found.relevance, found.adjudication, found.leading
    stop_reason = stop_reason_of(decisions)
    quoted = draft is not None and bool(draft.sentences or draft.answer_citations)
    has_evidence = any(e.stance != "NEUTRAL" for e in ledger) and quoted
    declined = model_declined(adjudication, draft)  # a model's "not enough" binds: no verdict, a lean at most
    if adjudication is not None and best is not None:  # the model adjudicated: the answer follows the blend
        leading = adjudication.blend.get(best.id, 0.0)
        decided = has_evidence and not adjudication.abstained
        under = decided and declined is not None
        abstained = not decided or under
    else:
        decided = has_evidence and best is not None and best.verdict != HypothesisVerdict.INSUFFICIENT
        under = decided and (leading < thresholds.abstain or declined is not None)
        abstained = not decided or under
    names_checked = plan.task != "mcq" and has_evidence  # an MCQ's options each name their own words
    rested_on = records_rested_on(draft, pool) if names_checked and draft is not None else []
    missing = unnamed(question, rested_on, claimed=bool(plan.claim)) if names_checked else []
    # an open answer whose records never mention a name the question asks about ("TNF-alpha"), or two of its words
    # ("blood clots"), does not address it (words that records mention, inside a qualifier they never mention whole,
    # are no reason to decline)
    unaddressed: list[str] = []
    if missing and not plan.claim:
        titles_only = any(not record.abstract for record in rested_on)
        unaddressed = unaddressed_terms(question, unnamed(question, rested_on, together=False), titles_only)
    abstained = abstained or bool(unaddressed)
    # under the operating point, the leading answer is still given as a lean when it is likelier than "insufficient
    # evidence" (a scientist wants the lean and how far to trust it, not silence)
    leaning = under and thresholds.leaning and leading > found.abstention and not unaddressed and draft is not None
    # a verdict (or lean) followed only by evidence against it is not given
    contrary = has_evidence and (leaning or not abstained) and draft is not None and quotes_only_against(draft)
    leaning = leaning and not contrary
    abstained = (abstained or contrary) and not leaning
    conf = found.abstention if abstained else leading
    # the relevance gate declined: no stance was judged, so no hypothesis was weighed (an open question's are sentences
    # of the off-topic records; shown as "Hypotheses weighed" they read as if the run had considered them)
    off_topic = bool(pool) and relevance is not None and not relevance.relevant
    if not pool and found.outage:  # no network: an error to fix, not an answer about the evidence
        status, conf = Status.ERROR, 0.0
        text, stop_reason = f"No record could be retrieved: {found.outage}.", str(found.outage)
    elif not pool:
        status, stop_reason = Status.INSUFFICIENT_EVIDENCE, "no evidence retrieved"
        text = "Insufficient evidence: no record was retrieved for this question."
    elif off_topic and relevance is not None:
        status, text = Status.INSUFFICIENT_EVIDENCE, f"Insufficient evidence: {relevance.reason()}."
    elif not has_evidence or draft is None:
        declined = "no retrieved passage supports or contradicts any candidate answer"
        status, text = Status.INSUFFICIENT_EVIDENCE, f"Insufficient evidence: {declined}."
        stop_reason = stop_reason_of(decisions, declined)
    elif unaddressed:
        status = Status.INSUFFICIENT_EVIDENCE
        text = (
            f"Insufficient evidence: the records found do not mention {listed(unaddressed)}, which the question "
            "asks about; what they say is about something else."
        )
        stop_reason = stop_reason_of(decisions, f"the records found do not mention {listed(unaddressed)}")
    elif abstained:
        sides = len({e.record_id for e in ledger if e.stance != "NEUTRAL"})
        # not decided (without a model): no hypothesis reached a verdict, too little evidence took a side
        thin, adjudicated = not decided, adjudication is not None
        reason = (
            CONTRARY_REASON
            if contrary
            else abstention_reason(sides, leading, thresholds.abstain, thin, adjudicated, declined)
        )
        status, text = Status.INSUFFICIENT_EVIDENCE, abstention_line(best, plan.task, ledger, reason)
        stop_reason = stop_reason_of(decisions, reason)
    elif leaning and best is not None:
        text = lean_line(best, plan.task, draft, ledger, conf)
        text += mixed_sentence(best, ledger, thresholds.verdict_min_evidence) + unnamed_sentence(missing)
        status = Status.LEANING
        bar = (
            "no answer is given as confident (no threshold kept its precision out of fold)"
            if thresholds.abstain > 1
            else f"under the {thresholds.abstain:.2f} a confident answer needs"
        )
        stop_reason = (
            f"leaning: {declined}; the evidence alone leans ({leading:.2f}); {stop_reason}"
            if declined
            else f"leaning: the leading answer's probability of being right is {leading:.2f}; {bar}; it is above the "
            f"{found.abstention:.2f} probability that the evidence is insufficient; {stop_reason}"
        )
        if declined:
            text += " No verdict is stated: a chat model found the evidence insufficient to decide."
    else:
        text = answer_line(draft, conf) + mixed_sentence(best, ledger, thresholds.verdict_min_evidence)
        status, text = Status.ANSWERED, text + unnamed_sentence(missing)
    tier = None if abstained or status == Status.ERROR else "leaning" if status == Status.LEANING else "confident"
    if (
        "budget_exhausted" in stop_reason
        and status in (Status.ANSWERED, Status.LEANING)
        and (found.margin or 0) < thresholds.margin
    ):
        status = Status.BUDGET_EXHAUSTED
    if found.budget_stop:  # a hard limit cut the run short: whatever was found is provisional
        so_far = lean_sentence(best, plan.task, ledger) if has_evidence else ""
        status, stop_reason = Status.BUDGET_EXHAUSTED, f"budget_exhausted: {found.budget_stop}"
        text = f"Budget exhausted before the run finished ({found.budget_stop}).{so_far}"
        tier = None
    return Ruling(
        status=status,
        text=text,
        stop_reason=stop_reason,
        confidence=conf,
        leading=leading,
        decided=decided and declined is None,
        abstained=abstained,
        tier=tier,
        unaddressed=unaddressed,
        off_topic=off_topic,
    )
