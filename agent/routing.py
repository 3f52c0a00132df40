"""The conditional edges' decisions, as pure functions of (state, settings).

Each branching node calls its `decide_*` function on its view of the state and appends the Decision to
`state["decisions"]`; the graph's edges just follow the last decision. So every route taken is recorded
with the numbers behind it (margin, agreement, contested count, budget), and stop reasons come for free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.budget import spent_reason
from agent.config import Context
from agent.records import ClaimVerdict, Decision


def follow_decision(state: Mapping[str, Any]) -> str:
    """Edge function: the `next` of the latest decision."""
    return state["decisions"][-1].next


def decide_after_retrieve(state: Mapping[str, Any], settings: Context) -> Decision:
    """Hop through the citation graph once hypotheses exist and hops remain, else rerank."""
    round_ = state.get("round", 0)
    if not state.get("hypotheses"):
        return Decision(at="retrieve", next="rerank", reason="round-1 evidence: rerank before hypotheses", round=round_)
    hops = state.get("hops_done", 0)
    if settings.enable_citation_hop and hops < settings.citation_hops and settings.citation_hop_top > 0:
        if spent := spent_reason(state.get("usage"), state.get("started_at"), settings):
            return Decision(at="retrieve", next="rerank", reason=f"citation hop skipped: budget spent ({spent})", round=round_)
        return Decision(at="retrieve", next="citation_hop", reason=f"citation hop {hops + 1} of {settings.citation_hops}", round=round_)
    return Decision(at="retrieve", next="rerank", reason="no citation hop left", round=round_)


def decide_after_rerank(state: Mapping[str, Any], settings: Context) -> Decision:
    if not state.get("hypotheses"):
        return Decision(at="rerank", next="hypothesize", reason="no hypotheses yet", round=state.get("round", 0))
    return Decision(at="rerank", next="court", reason="hypotheses exist: weigh the evidence", round=state.get("round", 0))


def decide_after_court(state: Mapping[str, Any], settings: Context) -> Decision:
    """Low margin or provider disagreement loops to discrimination, inside round and budget limits."""
    margin = state.get("margin")
    agreement = state.get("agreement")
    extra_rounds = max(0, state.get("discrimination_rounds", 0) - 1)
    common = dict(at="court", margin=margin, agreement=agreement, round=state.get("round", 0))
    relevance = state.get("relevance")
    if relevance is not None and not relevance["relevant"]:
        return Decision(next="synthesize", reason=f"relevance gate: off-topic evidence (relevance {relevance['probability']:.2f} < threshold)", **common)
    if not state.get("ledger"):
        if not state.get("pool"):
            return Decision(next="synthesize", reason="no evidence retrieved", **common)
    low_margin = margin is not None and margin < settings.margin_threshold
    disagreement = agreement is not None and agreement < settings.agreement_threshold
    if not (low_margin or disagreement):
        return Decision(next="synthesize", reason=f"resolved: margin {margin or 0:.3f} >= {settings.margin_threshold}", **common)
    reasons = ([f"low margin ({margin:.3f} < {settings.margin_threshold})"] if low_margin else []) + (
        [f"provider disagreement ({agreement:.2f} < {settings.agreement_threshold})"] if disagreement else []
    )
    why = " and ".join(reasons)
    if not settings.enable_discrimination:
        return Decision(next="synthesize", reason=f"{why}, discrimination disabled", **common)
    if spent := spent_reason(state.get("usage"), state.get("started_at"), settings):
        return Decision(next="synthesize", reason=f"{why}, budget_exhausted: {spent}", **common)
    if extra_rounds >= settings.max_discrimination_rounds:
        return Decision(next="synthesize", reason=f"{why}, max_discrimination_rounds ({settings.max_discrimination_rounds}) reached", **common)
    return Decision(next="discriminate", reason=f"{why}: discrimination round {extra_rounds + 1}", **common)


def decide_after_verify(state: Mapping[str, Any], settings: Context) -> Decision:
    """More contested claims than the threshold, with budget and escalations left, re-checks them."""
    contested = sum(1 for c in state.get("claims") or [] if c.verdict == ClaimVerdict.CONTESTED)
    common = dict(at="verify_claims", contested=contested, margin=state.get("margin"), round=state.get("round", 0))
    if contested <= settings.contested_threshold:
        return Decision(next="report", reason=f"claims settled: {contested} contested <= {settings.contested_threshold}", **common)
    if state.get("escalations", 0) >= settings.max_escalations:
        return Decision(next="report", reason=f"{contested} contested, max_escalations ({settings.max_escalations}) reached", **common)
    if spent := spent_reason(state.get("usage"), state.get("started_at"), settings):
        return Decision(next="report", reason=f"{contested} contested, budget_exhausted: {spent}", **common)
    return Decision(next="target_claims", reason=f"{contested} contested claims > {settings.contested_threshold}: targeted retrieval", **common)
