"""Roles the reader can trust (issue 36, item 5): each quote's role is stated towards what the reader sees (the claim as
written, whichever of it and its negation won; the selected option; an open answer's line), a reading that is not
confident takes no side ("Related evidence"), and a verdict is never followed only by evidence against it."""

from __future__ import annotations

import time
from types import SimpleNamespace

from agent.answer.compose import evidence_statement
from agent.backend import register_backend
from agent.config import Context
from agent.interfaces import StanceResult
from agent.nodes.court import court
from agent.nodes.hypothesize import hypothesize
from agent.nodes.plan import plan
from agent.nodes.report import report
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.synthesize import synthesize
from agent.records import Hypothesis, LedgerEntry, Status, Usage
from tests.fakes import ListSource, RuleStance, make_backend, record, unique_backend_name
from tests.nodes.test_nodes import run

STATIN_RECORDS = [
    record(
        "d1",
        "Statins and muscle pain: a randomised trial",
        "Statins decreases muscle pain compared with placebo in 2,000 adults.",
    ),
    record(
        "d2",
        "Statin therapy and myalgia cohort",
        "Statin therapy decreases muscle pain among 5,000 older adults.",
        doi="10.1/d2",
    ),
    record(
        "d3",
        "Statins and muscle symptoms",
        "Statins decreases muscle pain scores in a blinded crossover trial.",
        doi="10.1/d3",
    ),
]


def _answered(records, question, options=(), stance=None, **settings):
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(records)], stance=stance))
    rt = SimpleNamespace(context=Context(backend=name, enable_relevance_gate=False, **settings))
    state = {"question": question, "options": list(options), "mode": "ask"}
    state.update(run(plan, state, rt))
    for node in (retrieve, rerank, hypothesize, court, synthesize):
        state.update(run(node, state, rt))
    state.update(started_at=time.time(), usage=Usage())
    return state, run(report, state, rt)["answer"]


def test_a_winning_negations_quotes_are_stated_against_the_claim_as_written():
    """Seen: "Supports" printed under a verdict for the claim's negation read, to the user, as supporting the claim.
    Every passage here says statins decrease muscle pain: the negation wins, and its supporting passages are
    "Against the claim", never "Supports"."""
    state, answer = _answered(STATIN_RECORDS, "Do statins increase muscle pain?")
    best = next(h for h in state["hypotheses"] if h.id == state["draft"].selected_hypothesis)
    assert best.origin == "negation" and answer.answer.startswith("No: ")
    assert answer.sentences and {s.role for s in answer.sentences} == {"against_claim"}, answer.sentences
    assert all(s.text.startswith('Against the claim: "') for s in answer.sentences)
    assert not any(s.text.startswith("Supports") for s in answer.sentences)


def test_an_options_quotes_are_for_or_against_that_option():
    metformin = record("m", "Metformin trial", "Metformin increases insulin sensitivity in adults (p < 0.001).")
    option = Hypothesis(
        id="H1", text="metformin", origin="option", option_index=0, claim="Metformin increases insulin sensitivity"
    )
    entry = LedgerEntry(
        hypothesis_id="H1",
        record_id="m",
        stance="SUPPORT",
        confidence=0.9,
        sentence_index=0,
        text=metformin.sentences[0],
    )
    statement = evidence_statement(entry, {"m": metformin}, option)
    assert (statement.role, statement.text.split(":")[0]) == ("for_option", "For (A)")
    against = evidence_statement(entry.model_copy(update={"stance": "CONTRADICT"}), {"m": metformin}, option)
    assert (against.role, against.text.split(":")[0]) == ("against_option", "Against (A)")


def test_a_reading_that_is_not_confident_is_related_evidence_with_no_side():
    """A contradiction the judge reads at 0.55 is not shown as "Contradicts": the reader sees "Related evidence"."""
    trial = record("t", "Statins trial", "Statins decreases muscle pain in older adults.")
    claim = Hypothesis(
        id="H1", text="Statins increase muscle pain", origin="claim", claim="Statins increase muscle pain"
    )
    entry = LedgerEntry(
        hypothesis_id="H1",
        record_id="t",
        stance="CONTRADICT",
        confidence=0.55,
        sentence_index=0,
        text=trial.sentences[0],
    )
    statement = evidence_statement(entry, {"t": trial}, claim)
    assert statement.role == "related" and statement.text.startswith('Related evidence: "Statins decreases')
    assert statement.side == "against"  # still what the judge read, for the answer's grading and its claims
    firm = evidence_statement(entry.model_copy(update={"confidence": 0.9}), {"t": trial}, claim)
    assert firm.role == "against_claim" and firm.text.startswith('Against the claim: "')


class _OnlyAgainstAspirin(RuleStance):
    """Reads every passage naming aspirin as against the statement, and nothing else as taking a side."""

    async def judge(self, pairs):
        return [
            StanceResult(stance="CONTRADICT", confidence=0.9)
            if "aspirin" in passage.lower()
            else StanceResult(stance="NEUTRAL", confidence=0.9)
            for _, passage in pairs
        ]


def test_a_verdict_followed_only_by_evidence_against_it_is_not_given():
    """An MCQ option can lead on the semantic share alone while every passage judged on it reads against it: the
    answer "(A) aspirin" over nothing but "Against (A)" quotes was given; it now abstains and says why."""
    records = [
        record(
            "x1",
            "Aspirin and insulin sensitivity",
            "Aspirin does not improve insulin sensitivity in adults with prediabetes.",
        ),
        record(
            "x2",
            "Aspirin insulin trial",
            "Aspirin had no effect on insulin sensitivity in a 12-week trial of adults.",
            doi="10.1/x2",
        ),
    ]
    state, answer = _answered(
        records,
        "Which drug increases insulin sensitivity in adults with prediabetes?",
        ["aspirin", "ibuprofen"],
        stance=_OnlyAgainstAspirin(),
    )
    roles = {s.role for s in state["draft"].sentences}
    assert roles == {"against_option"}, state["draft"].sentences  # the scenario: only evidence against the leader
    assert answer.status == Status.INSUFFICIENT_EVIDENCE and answer.abstained and answer.selected_option is None
    assert "every passage quoted on the leading answer reads against it" in answer.answer
