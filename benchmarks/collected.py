"""Reading a collected Answer (a JSON dict, as evals.verdict_collect and the evals' --answers files store it) the way
the court read it: the claim it checked and the relevance gate's probability. Shared by the verdict model's fit
(training/) and the trace of the no (evals/trace_no.py), so both build the verdict model's inputs from one reading."""

from __future__ import annotations

from typing import Any


def claim_statement(answer: dict[str, Any]) -> str:
    """The claim hypothesis's statement (its claim, else its text), else the question."""
    claim = next((h for h in answer["hypotheses"] if h.get("origin") == "claim"), None)
    return str((claim or {}).get("claim") or (claim or {}).get("text") or answer["question"])


def relevance_of(answer: dict[str, Any]) -> float | None:
    """The relevance gate's probability, None when no gate ran."""
    return float(answer["relevance"]["probability"]) if answer.get("relevance") else None
