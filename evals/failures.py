"""One bad item must not end an eval: a 500-question PubMedQA run ended after 126 answers (exit 2, no table) when the
language gate refused one question. A question whose run fails in any way (its input refused, InputError and its
LanguageError; a --timeout; any other exception; the API's own ERROR answer) is written to the answers file as that
question's ERROR answer, naming the error; the eval scores the rest, its table counts the failures (`errors: N` and
which items), and its exit code says whether any item failed:

    0  every item answered          1  some item failed (table printed)          2  bad arguments or input files

A rerun with the same --answers file retries only the failed items (evals/sweep.py drops ERROR lines on resume).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from agent.common.redact import redact
from agent.records import Answer, Status


class Answered(Protocol):
    """What failures reads of a sweep's answered item (evals.sweep.Answered), named here so that the sweep imports
    this module and not the other way round."""

    index: int
    id: str
    answer: Answer


Item = TypeVar("Item")
FAILED = 1
SHOWN = 10  # the table names this many failed items; the answers file has them all


def failed_answer(item_id: str, exc: BaseException) -> Answer:
    """The ERROR answer a question whose run raised `exc` is recorded with (its error in `answer` and `stop_reason`)."""
    message = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
    error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return Answer(
        status=Status.ERROR,
        task="claim",
        question=f"item {item_id}",
        answer=f"Item failed: {error}",
        confidence=0.0,
        run_id="",
        stop_reason=f"item error: {error}",
    )


def failed(answered: Sequence[Answered]) -> list[Answered]:
    """The items whose runs failed (status ERROR)."""
    return [a for a in answered if a.answer.status == Status.ERROR]


def scored(items: Sequence[Item], answered: Sequence[Answered]) -> tuple[list[Item], list[Answered]]:
    """The items whose runs succeeded and their answers, aligned: what an eval scores."""
    good = [a for a in answered if a.answer.status != Status.ERROR]
    return [items[a.index] for a in good], good


def error_rows(answered: Sequence[Answered]) -> dict[str, Any]:
    """The table's rows on failures: how many, and which (id and error kind, the first SHOWN)."""
    bad = failed(answered)
    rows: dict[str, Any] = {"errors": len(bad)}
    if bad:
        named = [f"{a.id} ({_kind(a.answer)})" for a in bad[:SHOWN]]
        rows["failed_items"] = ", ".join(named) + (f" and {len(bad) - SHOWN} more" if len(bad) > SHOWN else "")
    return rows


def _kind(answer: Answer) -> str:
    """'Item failed: LanguageError: SPARKIT reads ...' -> 'LanguageError'; the API's 'Run failed: X: ...' -> 'X'."""
    text = answer.answer.split(": ", 1)[-1] if ": " in answer.answer else answer.answer
    return text.split(":", 1)[0].strip() or "error"


def exit_code(answered: Sequence[Answered]) -> int:
    """0 when every item was answered, FAILED (1) when some run failed."""
    return FAILED if failed(answered) else 0
