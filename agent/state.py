"""The graph's state, input and output schemas.

State carries pydantic records (see agent.records); lists that accumulate across rounds use reducers.
Counters (round, discrimination rounds, hops, escalations) bound every loop in state, independent of
the budget.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from agent.interfaces import Draft, Plan
from agent.records import Answer, Claim, Decision, Hypothesis, LedgerEntry, Passage, Query, Record, Usage


def merge_records(current: dict[str, Record] | None, update: dict[str, Record] | None) -> dict[str, Record]:
    """Pool reducer: records keyed by id; a record seen again is merged (all ids, richest fields)."""
    merged = dict(current or {})
    for key, record in (update or {}).items():
        merged[key] = merged[key].merge(record) if key in merged else record
    return merged


def add_usage(current: Usage | None, update: Usage | None) -> Usage:
    return (current or Usage()).add(update or Usage())


class InputState(TypedDict, total=False):
    """What a caller gives: a question, optional options (multiple choice) and optional own documents."""

    question: str
    options: list[str]
    mode: str  # "ask" (default) or "verify": treat the question as a claim to check
    documents: list[dict[str, Any]]  # optional: answer only from these ({id, title, text|abstract, year?, doi?})


class OutputState(TypedDict, total=False):
    answer: Answer


class ResearchState(InputState, total=False):
    run_id: str
    started_at: float
    plan: Plan
    queries: list[Query]  # queries pending for the next retrieve
    sent_queries: Annotated[list[Query], operator.add]
    round: int
    pool: Annotated[dict[str, Record], merge_records]
    ranked: list[Passage]  # reranked records (record-level passages), best first
    hypotheses: list[Hypothesis]
    agreement: float | None
    ledger: list[LedgerEntry]
    margin: float | None
    relevance: dict | None  # the relevance gate's assessment at the last court (agent/scoring/relevance.py)
    discrimination_rounds: int
    hops_done: int
    hopped_ids: Annotated[list[str], operator.add]
    draft: Draft
    claims: list[Claim]
    escalations: int
    decisions: Annotated[list[Decision], operator.add]
    usage: Annotated[Usage, add_usage]
    notes: Annotated[list[str], operator.add]
    answer: Answer
