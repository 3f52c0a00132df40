"""The conditional edges' decisions, as pure functions of (state, settings).

The graph (agent/graph.py) names each branching node's decider; the node wrapper (agent/nodes/runnable.py) calls it on
the state with the node's update applied and appends the Decision to `state["decisions"]`; the graph's edges just
follow the last decision. So every route taken is recorded with the numbers behind it (margin, agreement, contested
count, budget), and stop reasons come for free. Once a hard limit has stopped the run (`budget_stop`), each decider
routes towards `report` (every node on the way is skipped, agent/nodes/guard.py): the skip path is a route like the
others, written here once.
Each edge's routes are a Literal; its Decision subclass only accepts those, and the graph wires the edge to
exactly them (`routes`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Literal, get_args

from agent.budget import run_clock, spent_reason
from agent.config import Context
from agent.records import ClaimVerdict, Decision, Route

RetrieveRoute = Literal["citation_hop", "rerank", "report"]
RerankRoute = Literal["hypothesize", "court"]
CourtRoute = Literal["discriminate", "synthesize"]
DiscriminateRoute = Literal["retrieve", "synthesize"]
VerifyRoute = Literal["target_claims", "report"]


class AfterRetrieve(Decision[RetrieveRoute]):
    """Hop through the citation graph, or rerank (or report: no source reachable)."""


class AfterRerank(Decision[RerankRoute]):
    """Generate hypotheses first, or weigh the evidence."""


class AfterCourt(Decision[CourtRoute]):
    """Another discrimination round, or write the answer."""


class AfterDiscriminate(Decision[DiscriminateRoute]):
    """Retrieve for the new queries, or write the answer when a round could bring nothing new."""


class AfterVerify(Decision[VerifyRoute]):
    """Re-check contested claims, or report."""


ROUTE_LABELS: dict[str, str] = {
    "retrieve": "new queries",
    "citation_hop": "hop citations",
    "rerank": "rank pool",
    "hypothesize": "no hypotheses yet",
    "court": "weigh evidence",
    "discriminate": "low margin or disagreement",
    "synthesize": "write the answer",
    "target_claims": "contested claims",
    "report": "finish",
}
"""The label each route's edge carries in the drawn graph (Studio, `draw_mermaid`): why the edge is taken."""


ROUTE_NODES: dict[str, str] = {"synthesize": "review"}
"""Routes that end at another node than their name: writing the answer passes through the review point first
(agent/nodes/review.py; a no-op unless the run asked for a review), so every way to the answer offers the court's
final ledger for review."""


def routes(route_type: Any) -> dict[Hashable, str]:
    """The edge label -> node name of each route in a route Literal, for `add_conditional_edges`."""
    return {ROUTE_LABELS[name]: ROUTE_NODES.get(name, name) for name in get_args(route_type)}


def follow_decision(state: Mapping[str, Any]) -> str:
    """Edge function: the label of the latest decision's `next` (the edge's path map turns it into the node)."""
    next_node: Route = state["decisions"][-1].next
    return ROUTE_LABELS[next_node]


def stopped(state: Mapping[str, Any]) -> str | None:
    """Why a hard limit stopped the run, as a decision's reason; None while it runs."""
    return f"budget_exhausted: {state['budget_stop']}" if state.get("budget_stop") else None


def citation_hop_left(state: Mapping[str, Any], settings: Context) -> bool:
    """Whether the next retrieval may hop through the citation graph (decide_after_retrieve's condition)."""
    return (
        settings.ablations.enable_citation_hop
        and state.get("hops_done", 0) < settings.retrieval.citation_hops
        and settings.retrieval.citation_hop_top > 0
    )


def decide_after_retrieve(state: Mapping[str, Any], settings: Context) -> AfterRetrieve:
    """Hop through the citation graph once hypotheses exist and hops remain, else rerank; straight to the report when
    no source could be reached and nothing was ever retrieved (no network)."""
    round_ = state.get("round", 0)
    if stop := stopped(state):
        return AfterRetrieve(at="retrieve", next="rerank", reason=stop, round=round_)
    if state.get("outage"):
        return AfterRetrieve(at="retrieve", next="report", reason=str(state["outage"]), round=round_)
    if state.get("phase", "round_1") == "round_1":
        return AfterRetrieve(
            at="retrieve", next="rerank", reason="round-1 evidence: rerank before hypotheses", round=round_
        )
    hops = state.get("hops_done", 0)
    if citation_hop_left(state, settings):
        if spent := spent_reason(state.get("usage"), run_clock(state).deadline(settings), settings):
            return AfterRetrieve(
                at="retrieve", next="rerank", reason=f"citation hop skipped: budget spent ({spent})", round=round_
            )
        return AfterRetrieve(
            at="retrieve",
            next="citation_hop",
            reason=f"citation hop {hops + 1} of {settings.retrieval.citation_hops}",
            round=round_,
        )
    return AfterRetrieve(at="retrieve", next="rerank", reason="no citation hop left", round=round_)


def decide_after_rerank(state: Mapping[str, Any], settings: Context) -> AfterRerank:
    """Round 1 generates hypotheses from its evidence; every later round weighs the evidence for them."""
    if stop := stopped(state):
        return AfterRerank(at="rerank", next="court", reason=stop, round=state.get("round", 0))
    if state.get("phase", "round_1") == "round_1":
        return AfterRerank(at="rerank", next="hypothesize", reason="no hypotheses yet", round=state.get("round", 0))
    return AfterRerank(
        at="rerank", next="court", reason="hypotheses exist: weigh the evidence", round=state.get("round", 0)
    )


def shown_against(value: float, threshold: float, digits: int = 3) -> str:
    """`value` printed beside `threshold` so that the comparison reads as it was made: 3 decimals, or as many more as
    it takes ('0.0598 < 0.06', not '0.060 < 0.06'; '0.06000 >= 0.06' stays '0.060 >= 0.06')."""
    below = value < threshold
    for places in range(digits, 10):
        text = f"{value:.{places}f}"
        if (float(text) < threshold) == below:
            return text
    return repr(value)


def decide_after_court(state: Mapping[str, Any], settings: Context) -> AfterCourt:
    """Low margin or provider disagreement loops to discrimination, inside round and budget limits."""
    if stop := stopped(state):
        return AfterCourt(at="court", next="synthesize", reason=stop, round=state.get("round", 0))
    margin = state.get("margin")
    agreement = state.get("agreement")
    extra_rounds = max(0, state.get("discrimination_rounds", 0) - 1)
    common = dict(at="court", margin=margin, agreement=agreement, round=state.get("round", 0))
    relevance = state.get("relevance")
    if relevance is not None and not relevance.relevant:
        return AfterCourt(
            next="synthesize",
            reason=f"relevance gate: off-topic evidence (relevance {relevance.probability:.2f} < threshold)",
            **common,
        )
    if not state.get("ledger") and not state.get("pool"):
        return AfterCourt(next="synthesize", reason="no evidence retrieved", **common)
    # An MCQ's margin blends in how close each option is to the passages; with no passage on any side that closeness
    # separates nothing, so the question is open still, not "resolved".
    unjudged = bool(state.get("hypotheses")) and not any(e.stance != "NEUTRAL" for e in state.get("ledger") or [])
    low_margin = margin is not None and margin < settings.court.margin_threshold
    disagreement = agreement is not None and agreement < settings.court.agreement_threshold
    adjudication = state.get("adjudication")
    contested = (
        adjudication is not None and adjudication.contested
    )  # the model and the evidence each strongly favour another answer
    if not (unjudged or low_margin or disagreement or contested):
        return AfterCourt(
            next="synthesize",
            reason=f"resolved: margin {shown_against(margin or 0, settings.court.margin_threshold)} >= "
            f"{settings.court.margin_threshold}",
            **common,
        )
    reasons = (
        (
            ["no passage took a side"]
            if unjudged
            else [
                f"low margin ({shown_against(margin, settings.court.margin_threshold)} < "
                f"{settings.court.margin_threshold})"
            ]
            if low_margin and margin is not None
            else []
        )
        + (
            [
                f"provider disagreement ({shown_against(agreement, settings.court.agreement_threshold, 2)} < "
                f"{settings.court.agreement_threshold})"
            ]
            if disagreement and agreement is not None
            else []
        )
        + (
            [
                f"model and evidence disagree (model {adjudication.model_choice}, evidence "
                f"{adjudication.evidence_choice})"
            ]
            if contested and adjudication is not None
            else []
        )
    )
    why = " and ".join(reasons)
    if not settings.ablations.enable_discrimination:
        return AfterCourt(next="synthesize", reason=f"{why}, discrimination disabled", **common)
    if spent := spent_reason(state.get("usage"), run_clock(state).deadline(settings), settings):
        return AfterCourt(next="synthesize", reason=f"{why}, budget_exhausted: {spent}", **common)
    if extra_rounds >= settings.court.max_discrimination_rounds:
        return AfterCourt(
            next="synthesize",
            reason=f"{why}, max_discrimination_rounds ({settings.court.max_discrimination_rounds}) reached",
            **common,
        )
    return AfterCourt(next="discriminate", reason=f"{why}: discrimination round {extra_rounds + 1}", **common)


def decide_after_discriminate(state: Mapping[str, Any], settings: Context) -> AfterDiscriminate:
    """Retrieve for the round's queries; but a round the court asked for that has no new query (every one proposed
    was sent before) and no citation hop left cannot add a record: retrieve, rerank and court would run again on the
    same pool and reach the same margin, so the run writes its answer instead and says why. The first discrimination
    (after hypothesize, before any court) always goes on: the court has not weighed the evidence yet."""
    round_ = state.get("round", 0)
    if stop := stopped(state):
        return AfterDiscriminate(at="discriminate", next="synthesize", reason=stop, round=round_)
    weighed = any(d.at == "court" for d in state.get("decisions") or [])
    queries = len(state.get("queries") or [])
    if not weighed or queries or citation_hop_left(state, settings):
        return AfterDiscriminate(
            at="discriminate",
            next="retrieve",
            reason=f"{queries} new quer{'y' if queries == 1 else 'ies'}"
            + ("" if queries or not weighed else ", a citation hop left"),
            round=round_,
        )
    return AfterDiscriminate(
        at="discriminate",
        next="synthesize",
        reason="no new query (every discriminating query was sent before) and no citation hop left: no new record "
        "can come; answering from the evidence weighed",
        margin=state.get("margin"),
        round=round_,
    )


def decide_after_verify(state: Mapping[str, Any], settings: Context) -> AfterVerify:
    """More contested claims than the threshold, with budget and escalations left, re-checks them."""
    if stop := stopped(state):
        return AfterVerify(at="verify_claims", next="report", reason=stop, round=state.get("round", 0))
    contested = sum(1 for c in state.get("claims") or [] if c.verdict == ClaimVerdict.CONTESTED)
    common = dict(at="verify_claims", contested=contested, margin=state.get("margin"), round=state.get("round", 0))
    if contested <= settings.verification.contested_threshold:
        return AfterVerify(
            next="report",
            reason=f"claims settled: {contested} contested <= {settings.verification.contested_threshold}",
            **common,
        )
    if state.get("escalations", 0) >= settings.verification.max_escalations:
        return AfterVerify(
            next="report",
            reason=f"{contested} contested, max_escalations ({settings.verification.max_escalations}) reached",
            **common,
        )
    if spent := spent_reason(state.get("usage"), run_clock(state).deadline(settings), settings):
        return AfterVerify(next="report", reason=f"{contested} contested, budget_exhausted: {spent}", **common)
    return AfterVerify(
        next="target_claims",
        reason=f"{contested} contested claims > {settings.verification.contested_threshold}: targeted retrieval",
        **common,
    )
