"""report: assemble the answer object: status, verdict, confidence, hypotheses, claims, citations, stop reason, usage.

Status: INSUFFICIENT_EVIDENCE when nothing retrieved bears on the question, an open answer's records never mention a
name the question asks about, or the leading answer's confidence falls below the abstention threshold (the answer
then says so and never invents);
BUDGET_EXHAUSTED when a budget ended the loop; otherwise ANSWERED. The reported confidence is the
calibrator's probability that what is reported is right: the leading answer's, or the abstention's.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agent.backend import abackend_for
from agent.calibration import evidence_score
from agent.config import Context
from agent.reasoners.compose import CONTRARY_REASON, abstention_line, abstention_reason, answer_line, lean_sentence, listed, mixed_sentence, quotes_only_against, records_rested_on, unaddressed_terms, unnamed, unnamed_sentence, with_confidence
from agent.reasoners.extractive import option_label, winner
from agent.reasoners.questions import classify_task
from agent.reasoners.spelling import read_as_sentence
from agent.interfaces import Plan
from agent.records import Answer, AnswerSentence, Citation, Decision, Hypothesis, HypothesisVerdict, Status, Usage
from agent.state import ResearchState
from agent.tracing.progress import emit


def _stop_reason(decisions: list[Decision], declined: str | None = None) -> str:
    """Why the run ended: a budget if one stopped a loop, else the court's and the verifier's last word. `declined`:
    why a run gives no answer although the court went on to write one; it leads, and the court's "resolved: margin
    1.000" is left out (a margin of score shares is 1 when only one answer has any support, however little): an
    abstention never reads as resolved."""
    budget = [d for d in decisions if "budget_exhausted" in d.reason]
    if budget:
        return f"{budget[-1].at}: {budget[-1].reason}"
    parts = [f"insufficient evidence: {declined}"] if declined else []
    for at in ("court", "verify_claims"):
        last = next((d for d in reversed(decisions) if d.at == at), None)
        if last and not (declined and at == "court" and last.reason.startswith("resolved")):
            parts.append(f"{at}: {last.reason}")
    return "; ".join(parts) or "completed"


def _verdict(plan: Plan, best: Hypothesis | None, decided: bool) -> str | None:
    if not plan.claim:
        return None
    if not decided or best is None:
        return "NOT_ENOUGH_INFO"
    return "SUPPORT" if best.polarity > 0 else "CONTRADICT"


def _stopped_before_plan(state: ResearchState, stop: str) -> Answer:
    """The answer of a run the hard budget stopped before it was planned (e.g. max_wall_time_s spent loading models)."""
    task = classify_task(state.get("question") or "", state.get("options") or [], state.get("mode") or "ask")
    return Answer(status=Status.BUDGET_EXHAUSTED, task=task,
                  question=state.get("question") or "", answer=f"Budget exhausted before any evidence was gathered ({stop}).",
                  confidence=0.0, abstained=True, stop_reason=f"budget_exhausted: {stop}", run_id=state.get("run_id", ""),
                  usage=state.get("usage") or Usage(), notes=state.get("notes") or [], decisions=state.get("decisions") or [])


async def report(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    settings = runtime.context
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
    backend = await abackend_for(settings, state.get("documents"))
    # the fitted maps hold for the judge they were fitted with: when the chat model judged no passage, the offline
    # judge's apply
    model_judged = any(e.judged_by for e in ledger)
    calibrator = backend.calibrator if model_judged or backend.offline_calibrator is None else backend.offline_calibrator
    score = evidence_score(state.get("margin"), hypotheses, claims, ledger)
    leading = calibrator.leading(score)
    stop_reason = _stop_reason(decisions)
    has_evidence = any(e.stance != "NEUTRAL" for e in ledger) and draft is not None and bool(draft.sentences or draft.answer_citations)
    adjudication = state.get("adjudication")
    if adjudication is not None and best is not None:  # the model adjudicated: the answer follows the blend
        leading = adjudication.blend.get(best.id, 0.0)
        decided = has_evidence and not adjudication.abstained
        abstained = not decided
    else:
        decided = has_evidence and best is not None and best.verdict != HypothesisVerdict.INSUFFICIENT
        abstained = not decided or leading < settings.court.abstain_threshold
    rested_on = records_rested_on(draft, pool) if plan.task != "mcq" and has_evidence and draft is not None else []  # has_evidence: a draft
    missing = unnamed(state["question"], rested_on, claimed=bool(plan.claim)) if plan.task != "mcq" and has_evidence else []
    # an open answer whose records never mention a name the question asks about ("TNF-alpha"), or two of its words
    # ("blood clots"), does not address it (words that records mention, inside a qualifier they never mention whole,
    # are no reason to decline)
    titles_only = any(not record.abstract for record in rested_on)
    unaddressed = unaddressed_terms(state["question"], unnamed(state["question"], rested_on, together=False), titles_only) if missing and not plan.claim else []
    abstained = abstained or bool(unaddressed)
    # a verdict followed only by evidence against it is not given (compose.quotes_only_against)
    contrary = has_evidence and draft is not None and not abstained and quotes_only_against(draft)
    abstained = abstained or contrary
    conf = calibrator.abstention(score) if abstained else leading
    relevance = state.get("relevance")
    # the relevance gate declined: no stance was judged, so no hypothesis was weighed (an open question's are sentences
    # of the off-topic records; shown as "Hypotheses weighed" they read as if the run had considered them)
    off_topic = bool(pool) and relevance is not None and not relevance.relevant
    if not pool and state.get("outage"):  # no network: an error to fix, not an answer about the evidence
        status, text, stop_reason, conf = Status.ERROR, f"No record could be retrieved: {state['outage']}.", str(state["outage"]), 0.0
    elif not pool:
        status, text, stop_reason = Status.INSUFFICIENT_EVIDENCE, "Insufficient evidence: no record was retrieved for this question.", "no evidence retrieved"
    elif off_topic and relevance is not None:
        status, text = Status.INSUFFICIENT_EVIDENCE, f"Insufficient evidence: {relevance.reason()}."
    elif not has_evidence:
        declined = "no retrieved passage supports or contradicts any candidate answer"
        status, text, stop_reason = Status.INSUFFICIENT_EVIDENCE, f"Insufficient evidence: {declined}.", _stop_reason(decisions, declined)
    elif unaddressed:
        status, text = Status.INSUFFICIENT_EVIDENCE, (f"Insufficient evidence: the records found do not mention {listed(unaddressed)}, which the "
                                                      "question asks about; what they say is about something else.")
        stop_reason = _stop_reason(decisions, f"the records found do not mention {listed(unaddressed)}")
    elif abstained:
        sides = len({e.record_id for e in ledger if e.stance != "NEUTRAL"})
        # not decided (without a model): no hypothesis reached a verdict, too little evidence took a side
        reason = CONTRARY_REASON if contrary else abstention_reason(sides, leading, settings.court.abstain_threshold, not decided, adjudication is not None)
        status, text, stop_reason = Status.INSUFFICIENT_EVIDENCE, abstention_line(best, plan.task, ledger, reason), _stop_reason(decisions, reason)
    else:
        assert draft is not None  # has_evidence
        text = answer_line(draft, conf) + mixed_sentence(best, ledger, settings.court.verdict_min_evidence)
        status, text = Status.ANSWERED, text + unnamed_sentence(missing)
    if "budget_exhausted" in stop_reason and status == Status.ANSWERED and (state.get("margin") or 0) < settings.court.margin_threshold:
        status = Status.BUDGET_EXHAUSTED
    if budget_stop:  # a hard limit cut the run short: whatever was found is provisional
        so_far = lean_sentence(best, plan.task, ledger) if has_evidence else ""
        status, stop_reason = Status.BUDGET_EXHAUSTED, f"budget_exhausted: {budget_stop}"
        text = f"Budget exhausted before the run finished ({budget_stop}).{so_far}"
    if unaddressed:  # what the records say supports an answer to another question: no statement of it is shown
        draft, claims = None, []
    cited = list(dict.fromkeys((draft.answer_citations if draft else []) + [c for s in (draft.sentences if draft else []) for c in s.citations]
                               + [rid for claim in claims for rid in claim.supporting + claim.refuting]))
    citations = [Citation.of(pool[rid]) for rid in cited if rid in pool]
    usage = state.get("usage") or Usage()
    usage = usage.model_copy(update={"wall_time_s": round(time.time() - (state.get("started_at") or time.time()), 3)})
    selected = best.option_index if plan.task == "mcq" and best is not None and not abstained else None
    corrections = state.get("corrections") or []
    if selected is not None:
        text = with_confidence(f"({option_label(selected)}) {plan.options[selected]}", conf)
    text = " ".join(filter(None, [text, read_as_sentence(corrections)]))  # the answer says what it read the question as
    answer = Answer(
        status=status,
        task=plan.task,
        question=state["question"],
        answer=text,
        verdict=_verdict(plan, best, decided and not abstained),
        confidence=conf,
        leading_confidence=leading if best is not None and not off_topic else None,
        selected_option=selected,
        abstained=abstained,
        hypotheses=[] if off_topic else hypotheses,
        ledger=ledger,
        claims=claims,
        citations=citations,
        sentences=[AnswerSentence(**s.model_dump()) for s in draft.sentences] if draft else [],
        stop_reason=stop_reason,
        decisions=decisions,
        run_id=state.get("run_id", ""),
        usage=usage,
        notes=state.get("notes") or [],
        relevance=relevance.model_dump() if relevance is not None else None,
        faithfulness=draft.faithfulness if draft else None,
        adjudication=adjudication,
        corrections=corrections,
        searched=backend.searched,
    )
    emit({"node": "report", "status": status.value, "confidence": conf, "citations": len(citations)})
    return {"answer": answer}
