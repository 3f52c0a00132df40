"""Shared by the evals: the commit id, metric helpers, table printing, the JSON last line."""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from agent.errors import InputError
from agent.jsonl import parse_jsonl

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]


def commit() -> str:
    """Short commit of the checkout (with '+dirty' when it has uncommitted changes), or 'unknown'."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def prf(correct: int, predicted: int, gold: int) -> tuple[float, float, float]:
    precision = correct / predicted if predicted else 0.0
    recall = correct / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def confusion(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, int]:
    """Counts of every "gold->predicted" label pair, in `labels` order."""
    counts = Counter(zip(gold, predicted))
    return {f"{g}->{p}": counts[(g, p)] for g in labels for p in labels}


def stratified_folds(labels: Sequence[str], folds: int, seed: int) -> list[int]:
    """Fold of each item for cross-validation: every label's items dealt round-robin over the folds after a seeded shuffle."""
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        by_label[label].append(i)
    fold_of = [0] * len(labels)
    rng = random.Random(seed)
    offset = 0
    for label in sorted(by_label):
        items = by_label[label]
        rng.shuffle(items)
        for k, i in enumerate(items):
            fold_of[i] = (k + offset) % folds
        offset += len(items)
    return fold_of


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        scores.append(prf(tp, sum(p == label for p in predicted), sum(g == label for g in gold))[2])
    return sum(scores) / len(scores) if scores else 0.0


def selective(correct: Sequence[bool], answered: Sequence[bool]) -> dict[str, float]:
    """Selective accuracy, as LitQA2 scores it: coverage = answered / all, precision = right / answered (a verdict
    given, not an abstention), accuracy = right / all (here an abstention is right when "not enough info" is)."""
    n, given = len(correct), sum(answered)
    right_given = sum(c and a for c, a in zip(correct, answered))
    return {"coverage": given / n if n else 0.0, "precision_when_answering": right_given / given if given else 0.0,
            "selective_accuracy": sum(correct) / n if n else 0.0}


def calibration(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> tuple[float, float]:
    """(ECE with equal-width bins, Brier score) of confidence against correctness."""
    n = len(confidences)
    if n == 0:
        return 0.0, 0.0
    brier = sum((c - float(k)) ** 2 for c, k in zip(confidences, correct)) / n
    ece = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [(c, k) for c, k in zip(confidences, correct) if low <= c < high or (b == bins - 1 and c == 1.0)]
        if members:
            accuracy = sum(k for _, k in members) / len(members)
            mean_conf = sum(c for c, _ in members) / len(members)
            ece += len(members) / n * abs(accuracy - mean_conf)
    return ece, brier


def print_table(title: str, rows: list[tuple[str, Any]]) -> None:
    width = max(len(name) for name, _ in rows)
    print(f"\n{title}  (commit {commit()})")
    print("-" * (width + 16))
    for name, value in rows:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{name:<{width}}  {shown}")


def print_json(payload: dict[str, Any]) -> None:
    """The machine-readable result: one JSON object on the last line."""
    print(json.dumps({**payload, "commit": commit()}, sort_keys=True))


def publish(title: str, results: dict[str, Any], config: dict[str, Any], as_json: bool) -> None:
    """An eval's table (results in their order, the title naming the configuration) and, with --json, the
    results and the configuration as the last line."""
    print_table(f"{title}, {config}", list(results.items()))
    if as_json:
        print_json({**results, **config})


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for item in items or []:
        key, _, raw = item.partition("=")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return overrides


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
        "model_agrees_with_evidence": sum(adj.model_choice is not None and adj.model_choice == adj.evidence_choice for adj in adjudicated),
        "contested": sum(adj.contested for adj in adjudicated),
        "followed_blend": sum(followed),
    }


def write_answers(path: Path | None, answers: Sequence[Any]) -> None:
    """Each run's Answer as one JSON line (--answers), to read what the model did question by question."""
    if path is not None:
        path.write_text("".join(a.model_dump_json() + "\n" for a in answers))


def read_jsonl(path: Path) -> list[Any]:
    """Every non-blank line of a JSON Lines file (claims, queries, answers); a line that is not JSON is an InputError
    naming the file and the line."""
    with path.open(encoding="utf-8") as handle:
        return [value for _, value in parse_jsonl(handle, lambda number, msg: InputError(f"{path} line {number} is not JSON: {msg}"))]


def read_or_exit(parser: argparse.ArgumentParser, read: Callable[[], T]) -> T:
    """Run a reader of an eval's input files: a missing or broken file ends the eval with one line and exit 2."""
    try:
        return read()
    except (InputError, OSError) as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")


def read_answers(path: Path) -> list[dict[str, Any]]:
    """The answers `write_answers` wrote, as dicts (for the evals that read a run afterwards)."""
    return read_jsonl(path)
