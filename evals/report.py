"""Shared by the evals only: the JSON last line, the published table, what the chat model did over a run's answers,
and the answers file (the commit, the metrics and the table printer are benchmarks', shared with training)."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent.errors import InputError
from benchmarks.cli import commit, print_table
from benchmarks.formats import read_jsonl

if TYPE_CHECKING:
    from agent.config import Context

T = TypeVar("T")


def print_json(payload: dict[str, Any]) -> None:
    """The machine-readable result: one JSON object on the last line."""
    print(json.dumps({**payload, "commit": commit()}, sort_keys=True))


def publish(title: str, results: dict[str, Any], config: dict[str, Any], as_json: bool) -> None:
    """An eval's table (results in their order, the title naming the configuration) and, with --json, the
    results and the configuration as the last line."""
    print_table(f"{title}, {config}", list(results.items()))
    if as_json:
        print_json({**results, **config})


_FAILURES = ("ModelUnavailable", "ValueError", "BudgetExceeded")


def fallback_kind(note: str) -> str:
    """'stance: heuristic judged 3 of 16 pairs (ModelUnavailable: ...)' -> 'stance ModelUnavailable': the role that fell
    back and, where the note names one, the failure (deadline or provider, unusable reply, budget)."""
    role = note.split(":", 1)[0].strip()
    failure = next((name for name in _FAILURES if re.search(rf"\b{name}\b", note)), None)
    return f"{role} {failure}" if failure else role


def followed_blend(answer: Any) -> bool | None:
    """Whether the answer follows the chat model's blend (None when no model adjudicated): it abstains when the blend
    abstains, else it reports the blend's choice (the option, the claim's verdict, or the leading hypothesis)."""
    adjudication = answer.adjudication
    if adjudication is None:
        return None
    if adjudication.abstained or adjudication.choice is None:
        return bool(answer.abstained)
    chosen = next((h for h in answer.hypotheses if h.id == adjudication.choice), None)
    if chosen is None or answer.abstained:
        return False
    if answer.selected_option is not None:
        return answer.selected_option == chosen.option_index
    if answer.verdict in ("SUPPORT", "CONTRADICT"):
        return answer.verdict == ("SUPPORT" if chosen.polarity > 0 else "CONTRADICT")
    leading = max((h for h in answer.hypotheses if h.origin != "abstain"), key=lambda h: h.score, default=None)
    return leading is not None and leading.id == chosen.id


def chat_model_usage(answers: Sequence[Any]) -> dict[str, Any]:
    """What the chat model did over an eval's answers: calls per question, the fallbacks recorded (by kind), the share
    of ledger stances the model judged, and how often it adjudicated, agreed with the evidence and the answer followed
    the blend. Offline runs give zeros."""
    n = len(answers) or 1
    kinds = Counter(fallback_kind(note) for a in answers for note in a.usage.fallbacks)
    ledger = [e for a in answers for e in a.ledger]
    adjudicated = [a.adjudication for a in answers if a.adjudication is not None]
    followed = [f for f in (followed_blend(a) for a in answers) if f is not None]
    return {
        "llm_calls_per_question": sum(a.usage.llm_calls for a in answers) / n,
        "tokens_per_question": sum(a.usage.tokens_in + a.usage.tokens_out for a in answers) / n,
        "fallbacks": sum(kinds.values()),
        "fallbacks_by_kind": dict(sorted(kinds.items())),
        "questions_with_fallbacks": sum(bool(a.usage.fallbacks) for a in answers),
        "ledger_judged_by_model": sum(bool(e.judged_by) for e in ledger) / len(ledger) if ledger else 0.0,
        "adjudicated": len(adjudicated),
        "model_abstained": sum(adj.model_choice is None for adj in adjudicated),
        "model_agrees_with_evidence": sum(
            adj.model_choice is not None and adj.model_choice == adj.evidence_choice for adj in adjudicated
        ),
        "contested": sum(adj.contested for adj in adjudicated),
        "followed_blend": sum(followed),
    }


def read_or_exit(parser: argparse.ArgumentParser, read: Callable[[], T]) -> T:
    """Run a reader of an eval's input files: a missing or broken file ends the eval with one line and exit 2."""
    try:
        return read()
    except (InputError, OSError) as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")


def context_or_exit(parser: argparse.ArgumentParser, **settings: Any) -> Context:
    """The run's settings: a bad `--set` (unknown key, wrong type) ends the eval with one line and exit 2. (The API is
    imported here: the evals that only read answers files do not load the graph.)"""
    from agent.api import make_context

    try:
        return make_context(**settings)
    except InputError as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")


def read_answers(path: Path) -> list[dict[str, Any]]:
    """The answers an eval's --answers file holds (evals/sweep.py writes them), as dicts, for the evals that read a run
    afterwards."""
    return read_jsonl(path)
