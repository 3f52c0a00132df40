"""The Answer object from a finished run's state: status, verdict, confidence, hypotheses, claims, papers, citations,
stop reason and usage.

It lives here, with the rest of the answer's wording, so that the report node is a thin caller and the answer can be
rebuilt from a state without running the graph. The status, the answer line and the stop reason come from the status
ladder (agent.answer.status.rule: its docstring lists the rungs): INSUFFICIENT_EVIDENCE when nothing retrieved bears
on the question, an open answer's records never mention a name the question asks about, or the leading answer's
confidence falls below the abstention threshold (the answer then says so and never invents); BUDGET_EXHAUSTED when a
budget ended the loop; LEANING or ANSWERED otherwise. The reported confidence is the probability that what is
reported is right, the leading answer's or the abstention's: the verdict model's where it decided (a claim, a yes / no
question, an MCQ; agent/verdict/), else the calibrator's maps of the evidence score (agent/scoring/calibration.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from agent.answer.compose import option_label
from agent.answer.lines import with_confidence
from agent.answer.naming import uncompared_sentence
from agent.answer.papers import paper_findings, records_read
from agent.answer.status import Findings, Thresholds, rule
from agent.config import Context
from agent.english.questions import classify_task
from agent.english.spelling import read_as_sentence
from agent.interfaces import Calibrator, Plan
from agent.literature import Citation
from agent.records import Answer, AnswerSentence, Hypothesis, Status, Usage
from agent.review.ledger import reviewed_sentence
from agent.scoring.calibration import evidence_score
from agent.state import ResearchState


def leading_hypothesis(hypotheses: Sequence[Hypothesis]) -> Hypothesis | None:
    """The hypothesis the answer is about: the best scored one that is not the explicit abstention. The reasoners
    pick the same one to draft from (their own `winner`), so the answer and its draft speak of one hypothesis."""
    candidates = [h for h in hypotheses if h.origin != "abstain"]
    return max(candidates, key=lambda h: h.score) if candidates else None


def verdict_of(plan: Plan, best: Hypothesis | None, decided: bool) -> str | None:
    """SUPPORT / CONTRADICT / NOT_ENOUGH_INFO for a claim or a yes / no question (the claim as written); None
    otherwise."""
    if not plan.claim:
        return None
    if not decided or best is None:
        return "NOT_ENOUGH_INFO"
    return "SUPPORT" if best.polarity > 0 else "CONTRADICT"


def scores_of(state: ResearchState) -> Literal["probability", "blend", "evidence"]:
    """What the hypotheses' scores are (Answer.scores): the verdict model's probabilities where it decided, the
    adjudication's blend where a chat model adjudicated, else the court's evidence score."""
    if state.get("verdict_model"):
        return "probability"
    return "blend" if state.get("adjudication") is not None else "evidence"


def findings_of(state: ResearchState, best: Hypothesis | None, leading: float, abstention: float) -> Findings:
    """What the status ladder reads of the run's state (agent.answer.status.rule)."""
    return Findings(
        question=state["question"],
        plan=state["plan"],
        pool=state.get("pool") or {},
        ledger=state.get("ledger") or [],
        draft=state.get("draft"),
        best=best,
        leading=leading,
        abstention=abstention,
        decisions=state.get("decisions") or [],
        relevance=state.get("relevance"),
        adjudication=state.get("adjudication"),
        outage=state.get("outage"),
        margin=state.get("margin"),
        budget_stop=state.get("budget_stop"),
    )


def thresholds_of(settings: Context) -> Thresholds:
    return Thresholds(
        abstain=settings.answer.abstain_threshold,
        verdict_min_evidence=settings.court.verdict_min_evidence,
        margin=settings.court.margin_threshold,
        leaning=not settings.answer.confident_only,
    )


def stopped_before_plan(state: ResearchState) -> Answer:
    """The answer of a run the hard budget stopped before it was planned (e.g. max_wall_time_s spent loading models):
    no backend is needed for it, nor perhaps loaded."""
    stop = state.get("budget_stop") or "the run stopped before its plan"
    task = classify_task(state.get("question") or "", state.get("options") or [], state.get("mode") or "ask")
    return Answer(
        status=Status.BUDGET_EXHAUSTED,
        task=task,
        question=state.get("question") or "",
        answer=f"Budget exhausted before any evidence was gathered ({stop}).",
        confidence=0.0,
        abstained=True,
        stop_reason=f"budget_exhausted: {stop}",
        run_id=state.get("run_id", ""),
        usage=state.get("usage") or Usage(),
        notes=state.get("notes") or [],
        decisions=state.get("decisions") or [],
    )


def assemble(
    state: ResearchState,
    settings: Context,
    calibrator: Calibrator,
    offline_calibrator: Calibrator | None = None,
    searched: str = "",
    now: float | None = None,
) -> Answer:
    """The run's Answer (module docstring). `calibrator` maps the evidence score to probabilities for the judge the
    run used; `offline_calibrator`, where given, is the offline judge's, used when a chat model judged no passage (the
    fitted maps hold for the judge they were fitted with); `searched` names what the sources cover; `now` is the
    clock the wall time is read against."""
    plan = state.get("plan")
    if plan is None:
        return stopped_before_plan(state)
    pool = state.get("pool") or {}
    hypotheses = state.get("hypotheses") or []
    ledger = state.get("ledger") or []
    claims = state.get("claims") or []
    draft = state.get("draft")
    best = leading_hypothesis(hypotheses)
    model_judged = any(e.judged_by for e in ledger)
    mapping = calibrator if model_judged or offline_calibrator is None else offline_calibrator
    score = evidence_score(state.get("margin"), hypotheses, claims, ledger)
    leading, abstention, thresholds = mapping.leading(score), mapping.abstention(score), thresholds_of(settings)
    decided_by_model = state.get("verdict_model")
    if decided_by_model and not model_judged:  # the fitted verdict model's probability and its operating point
        leading, abstention = decided_by_model["probability"], decided_by_model["abstention"]
        thresholds = replace(thresholds, abstain=decided_by_model["threshold"])
    ruling = rule(findings_of(state, best, leading, abstention), thresholds)
    if ruling.unaddressed:  # what the records say supports an answer to another question: no statement of it is shown
        draft, claims = None, []
    cited = list(
        dict.fromkeys(
            (draft.answer_citations if draft else [])
            + [c for s in (draft.sentences if draft else []) for c in s.citations]
            + [rid for claim in claims for rid in claim.supporting + claim.refuting]
        )
    )
    usage = state.get("usage") or Usage()
    clock = time.time() if now is None else now
    usage = usage.model_copy(update={"wall_time_s": round(clock - (state.get("started_at") or clock), 3)})
    selected = best.option_index if plan.task == "mcq" and best is not None and not ruling.abstained else None
    corrections = state.get("corrections") or []
    text = ruling.text
    option = f"({option_label(selected)}) {plan.options[selected]}" if selected is not None else ""
    if selected is not None and ruling.tier == "leaning":
        text = f"The evidence leans towards {option} ({ruling.confidence:.2f})."
    elif selected is not None:
        text = with_confidence(option, ruling.confidence)
        quoted = [s.text for s in draft.sentences] if draft else []
        text += uncompared_sentence(state["question"], plan.options, selected, quoted)
    text = " ".join(filter(None, [text, read_as_sentence(corrections)]))  # the answer says what it read the question as
    review = state.get("review")
    text = " ".join(filter(None, [text, reviewed_sentence(review["changes"]) if review else ""]))
    relevance = state.get("relevance")
    read = records_read(state.get("court_read") or [], ledger, pool)
    return Answer(
        status=ruling.status,
        task=plan.task,
        question=state["question"],
        answer=text,
        verdict=verdict_of(plan, best, ruling.decided and not ruling.abstained),
        confidence=ruling.confidence,
        tier=ruling.tier,
        leading_confidence=ruling.leading if best is not None and not ruling.off_topic else None,
        selected_option=selected,
        abstained=ruling.abstained,
        hypotheses=[] if ruling.off_topic else hypotheses,
        ledger=ledger,
        readings=state.get("readings") or [],
        claims=claims,
        citations=[Citation.of(pool[rid]) for rid in cited if rid in pool],
        sentences=[AnswerSentence(**s.model_dump()) for s in draft.sentences] if draft else [],
        stop_reason=ruling.stop_reason,
        decisions=state.get("decisions") or [],
        run_id=state.get("run_id", ""),
        usage=usage,
        notes=state.get("notes") or [],
        relevance=relevance.model_dump() if relevance is not None else None,
        faithfulness=draft.faithfulness if draft else None,
        adjudication=state.get("adjudication"),
        corrections=corrections,
        review=review["changes"] if review else None,
        searched=searched,
        scores=scores_of(state),
        papers=paper_findings(read, ledger, hypotheses, best, claims, draft.sentences if draft else []),
    )
