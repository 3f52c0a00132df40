"""report: assemble the answer object: status, verdict, confidence, hypotheses, claims, citations, stop reason, usage.

The status, the answer line and the stop reason come from the status ladder (agent.answer.status.rule: its
docstring lists the rungs): INSUFFICIENT_EVIDENCE when nothing retrieved bears on the question, an open answer's
records never mention a name the question asks about, or the leading answer's confidence falls below the abstention
threshold (the answer then says so and never invents); BUDGET_EXHAUSTED when a budget ended the loop; otherwise
ANSWERED. The reported confidence is the probability that what is reported is right, the leading answer's or the
abstention's: the verdict model's where it decided (a claim, a yes / no question, an MCQ; agent/verdict/), else the
calibrator's maps of the evidence score (agent/scoring/calibration.py).
"""

from __future__ import annotations

import time
from dataclasses import replace

from agent.answer.compose import with_confidence
from agent.answer.naming import uncompared_sentence
from agent.answer.papers import paper_findings, records_read
from agent.answer.status import Findings, Thresholds, rule
from agent.config import Context
from agent.english.questions import classify_task
from agent.english.spelling import read_as_sentence
from agent.interfaces import Plan
from agent.literature import Citation
from agent.nodes.parts import RunParts
from agent.reasoners.extractive import option_label, winner
from agent.records import Answer, AnswerSentence, Hypothesis, Status, Usage
from agent.review.ledger import reviewed_sentence
from agent.scoring.calibration import evidence_score
from agent.state import ResearchState
from agent.tracing.progress import emit


def _verdict(plan: Plan, best: Hypothesis | None, decided: bool) -> str | None:
    if not plan.claim:
        return None
    if not decided or best is None:
        return "NOT_ENOUGH_INFO"
    return "SUPPORT" if best.polarity > 0 else "CONTRADICT"


def _findings(state: ResearchState, best: Hypothesis | None, leading: float, abstention: float) -> Findings:
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


def _thresholds(settings: Context) -> Thresholds:
    return Thresholds(
        abstain=settings.answer.abstain_threshold,
        verdict_min_evidence=settings.court.verdict_min_evidence,
        margin=settings.court.margin_threshold,
        leaning=not settings.answer.confident_only,
    )


def _stopped_before_plan(state: ResearchState, stop: str) -> Answer:
    """The answer of a run the hard budget stopped before it was planned (e.g. max_wall_time_s spent loading models)."""
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


async def report(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    plan = state.get("plan")
    budget_stop = state.get("budget_stop")
    if plan is None:
        answer = _stopped_before_plan(state, budget_stop or "the run stopped before its plan")
        emit({"node": "report", "status": answer.status.value, "confidence": 0.0, "citations": 0})
        return {"answer": answer}
    pool = state.get("pool") or {}
    hypotheses = state.get("hypotheses") or []
    ledger = state.get("ledger") or []
    claims = state.get("claims") or []
    draft = state.get("draft")
    decisions = state.get("decisions") or []
    best = winner(hypotheses)
    backend = await parts.backend()
    # the fitted maps hold for the judge they were fitted with: when the chat model judged no passage, the offline
    # judge's apply
    model_judged = any(e.judged_by for e in ledger)
    calibrator = (
        backend.calibrator if model_judged or backend.offline_calibrator is None else backend.offline_calibrator
    )
    score = evidence_score(state.get("margin"), hypotheses, claims, ledger)
    leading, abstention, thresholds = calibrator.leading(score), calibrator.abstention(score), _thresholds(settings)
    decided_by_model = state.get("verdict_model")
    if decided_by_model and not model_judged:  # the fitted verdict model's probability and its operating point
        leading, abstention = decided_by_model["probability"], decided_by_model["abstention"]
        thresholds = replace(thresholds, abstain=decided_by_model["threshold"])
    ruling = rule(_findings(state, best, leading, abstention), thresholds)
    if ruling.unaddressed:  # what the records say supports an answer to another question: no statement of it is shown
        draft, claims = None, []
    cited = list(
        dict.fromkeys(
            (draft.answer_citations if draft else [])
            + [c for s in (draft.sentences if draft else []) for c in s.citations]
            + [rid for claim in claims for rid in claim.supporting + claim.refuting]
        )
    )
    citations = [Citation.of(pool[rid]) for rid in cited if rid in pool]
    usage = state.get("usage") or Usage()
    usage = usage.model_copy(update={"wall_time_s": round(time.time() - (state.get("started_at") or time.time()), 3)})
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
    papers = paper_findings(records_read(state.get("court_read") or [], ledger, pool), ledger, hypotheses, best)
    answer = Answer(
        status=ruling.status,
        task=plan.task,
        question=state["question"],
        answer=text,
        verdict=_verdict(plan, best, ruling.decided and not ruling.abstained),
        confidence=ruling.confidence,
        tier=ruling.tier,
        leading_confidence=ruling.leading if best is not None and not ruling.off_topic else None,
        selected_option=selected,
        abstained=ruling.abstained,
        hypotheses=[] if ruling.off_topic else hypotheses,
        ledger=ledger,
        readings=state.get("readings") or [],
        claims=claims,
        citations=citations,
        sentences=[AnswerSentence(**s.model_dump()) for s in draft.sentences] if draft else [],
        stop_reason=ruling.stop_reason,
        decisions=decisions,
        run_id=state.get("run_id", ""),
        usage=usage,
        notes=state.get("notes") or [],
        relevance=relevance.model_dump() if relevance is not None else None,
        faithfulness=draft.faithfulness if draft else None,
        adjudication=state.get("adjudication"),
        corrections=corrections,
        review=review["changes"] if review else None,
        searched=backend.searched,
        papers=papers,
    )
    emit(
        {
            "node": "report",
            "status": ruling.status.value,
            "answer": answer.answer,  # the one answer progress states: synthesize's draft may be declined here
            "confidence": ruling.confidence,
            "citations": len(citations),
        }
    )
    return {"answer": answer, "papers": papers}
