"""The graph's state, input and output schemas.

State carries pydantic records (see agent.records); lists that accumulate across rounds use reducers.
Counters (round, discrimination rounds, hops, escalations) bound every loop in state, independent of
the budget.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from langgraph.types import Overwrite
from pydantic import Field
from typing_extensions import (
    TypedDict,  # pydantic (and so the server's schema endpoints) needs it on Python < 3.12
)

from agent.inputs import Mode
from agent.interfaces import Draft, Plan
from agent.literature import Passage, Query, Record
from agent.records import (
    Adjudication,
    Answer,
    Claim,
    Correction,
    Decision,
    Hypothesis,
    LedgerEntry,
    PaperFinding,
    Usage,
)
from agent.scoring.relevance import RelevanceAssessment

Phase = Literal["round_1", "discrimination", "escalation"]
"""Where the loop is: `round_1` gathers evidence for the hypotheses (plan sets it; it lasts until discriminate has
hypotheses to separate, so the first discrimination targets them all), `discrimination` weighs them and separates the
closest ones, `escalation` re-checks contested claims of the answer (target_claims). The routes read it
(agent/routing.py)."""


def merge_records(current: dict[str, Record] | None, update: dict[str, Record] | None) -> dict[str, Record]:
    """Pool reducer: records keyed by id; a record seen again is merged (all ids, richest fields)."""
    merged = dict(current or {})
    for key, record in (update or {}).items():
        merged[key] = merged[key].merge(record) if key in merged else record
    return merged


def add_new_notes(current: list[str] | None, update: list[str] | None) -> list[str]:
    """Notes reducer: a note already made is not made again. A node that runs each round (the court's aspect check,
    a skipped citation hop) would otherwise print the same line once per round."""
    notes = list(current or [])
    for note in update or []:
        if note not in notes:
            notes.append(note)
    return notes


def add_usage(current: Usage | None, update: Usage | None) -> Usage:
    return (current or Usage()).add(update or Usage())


class InputState(TypedDict, total=False):
    """What a caller gives: a question, optional options (multiple choice) and optional own documents."""

    question: Annotated[
        str, Field(description="The question to answer, or with mode 'verify' the claim to check. Required.")
    ]
    options: Annotated[
        list[str],
        Field(
            description="Multiple choice: 2 to 26 distinct options; the answer picks one. Leave empty for an open or "
            "yes/no question."
        ),
    ]
    mode: Annotated[
        Mode,
        Field(
            description="'ask' (default) answers the question; 'verify' checks it as a claim: SUPPORT, CONTRADICT or "
            "NOT_ENOUGH_INFO."
        ),
    ]
    documents: Annotated[
        list[dict[str, Any]],
        Field(
            description="Optional: answer only from these documents, each {id, title, abstract or text, year?, "
            "doi?}; otherwise the configured corpus or live sources."
        ),
    ]


class OutputState(TypedDict, total=False):
    """What a run returns: the answer with its citations, hypotheses, checked claims, stop reason and usage."""

    answer: Annotated[
        Answer,
        Field(
            description="The cited answer: status, verdict, confidence, sentences with citations, references, stop "
            "reason and usage."
        ),
    ]


class ResearchState(InputState, total=False):
    run_id: str
    started_at: float
    corrections: list[Correction]  # words of the question read as others ('asprin' -> 'aspirin'); `question` is as read
    plan: Plan
    queries: list[Query]  # queries pending for the next retrieve
    sent_queries: Annotated[list[Query], operator.add]
    round: int
    phase: Phase
    pool: Annotated[dict[str, Record], merge_records]
    ranked: list[Passage]  # reranked records (record-level passages), best first
    hypotheses: list[Hypothesis]
    agreement: float | None
    ledger: list[LedgerEntry]
    court_read: list[str]  # the records the last court judged passages of, in its order
    papers: list[PaperFinding]  # each record the court read at a glance: answer, design, size (agent/answer/papers.py)
    readings: list[dict[str, Any]]  # the last court's readings per sentence (agent/verdict/readings.py)
    verdict_model: dict[str, Any] | None  # the fitted verdict model's decision at the last court (agent/verdict)
    semantic: list[float]  # each hypothesis's closeness to the court's passages (an MCQ's blend), at the last court
    review: dict[str, Any] | None  # the reviewer's changes to the court's ledger (agent/nodes/review.py), once made
    margin: float | None
    relevance: (
        RelevanceAssessment | None
    )  # the relevance gate's assessment at the last court (agent/scoring/relevance.py)
    adjudication: Adjudication | None  # the chat model's adjudication at the last court (issue 17)
    discrimination_rounds: int
    hops_done: int
    hopped_ids: Annotated[list[str], operator.add]
    draft: Draft
    claims: list[Claim]
    escalations: int
    decisions: Annotated[list[Decision], operator.add]
    usage: Annotated[Usage, add_usage]
    notes: Annotated[list[str], add_new_notes]
    budget_stop: (
        str | None
    )  # the hard limit that stopped the run ("wall_time: max_wall_time_s=60 reached during court")
    # every source unreachable before anything was retrieved ("no network: arXiv, ... unreachable (connection refused)")
    outage: str | None
    answer: Answer


def reducers(schema: type) -> dict[str, tuple[Callable[[Any, Any], Any], Callable[[], Any]]]:
    """The keys of a state schema that carry a reducer (`Annotated[T, reducer]`, the last callable LangGraph reads)
    -> (reducer, the empty value of T that LangGraph's channel starts from)."""
    found = {}
    for key, hint in get_type_hints(schema, include_extras=True).items():
        if get_origin(hint) is Annotated:
            base, *meta = get_args(hint)
            reducer = next((m for m in reversed(meta) if callable(m)), None)  # a Field(description=...) is not one
            if reducer is not None:
                found[key] = (reducer, get_origin(base) or base)
    return found


REDUCERS = reducers(ResearchState)


def apply_update(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The state as the next step will see it: `update` applied as LangGraph applies it, each key with a reducer on
    ResearchState reduced onto its current value (the empty value when absent), every other key replaced; an
    `Overwrite(value)` replaces a reducer's value outright."""
    view = {**state, **update}
    for key, (reduce, empty) in REDUCERS.items():
        if key in update:
            current = state.get(key)
            value = update[key]
            view[key] = (
                value.value if isinstance(value, Overwrite) else reduce(empty() if current is None else current, value)
            )
    return view


INPUT_KEYS = tuple(get_type_hints(InputState))


def whole_input(graph_input: Any) -> Any:
    """A new input as a whole question: every input key it leaves out is written as None (not given). LangGraph writes
    only the keys an input names, so on a thread that answered before, a question sent without `options` or
    `documents` would otherwise inherit the previous question's. Other inputs (None to resume, a Command) pass as they
    are."""
    if isinstance(graph_input, Mapping):
        return {**dict.fromkeys(INPUT_KEYS), **graph_input}
    return graph_input


def leftovers_reset(state: Mapping[str, Any]) -> dict[str, Any]:
    """The update that clears what an earlier question on this thread left behind: every channel but the input's that
    holds a value, a reducer's with `Overwrite(empty)` (its reducer would add to it), any other with None. Empty on a
    fresh thread. The first node applies it, so a new question on a thread starts from a fresh state (its history,
    the checkpoints, is kept)."""
    reset: dict[str, Any] = {}
    for key in get_type_hints(ResearchState):
        if key in INPUT_KEYS or (value := state.get(key)) is None:
            continue
        if key in REDUCERS:
            empty = REDUCERS[key][1]()
            if value != empty:
                reset[key] = Overwrite(empty)
        else:
            reset[key] = None
    return reset


def reset_then(reset: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """One update that does `reset`, then `update`: a reducer key in both becomes the Overwrite of `update`'s value
    reduced onto the empty value (a channel takes one write per key and step)."""
    merged = {**reset, **update}
    for key in reset.keys() & update.keys() & REDUCERS.keys():
        merged[key] = Overwrite(apply_update({}, {key: update[key]})[key])
    return merged
