"""Every reviewer's change kept with its run, so that corrections can become the judge's training pairs.

A reviewer who strikes a passage or re-reads it has labelled a (statement, passage) pair the court's judge read
wrongly: the most useful training pair there is. Each change is appended as one JSON line to
$SPARKIT_HOME/corrections.jsonl (one write per line, O_APPEND: concurrent runs do not interleave lines) with the run
and thread ids and the time; `sparkit corrections export` writes them in the judge's training format
(`{"statement", "passage", "label"}` as evals/data/reading_check.jsonl and training/ read them): a re-read passage is
labelled with the reviewer's reading, a struck one NEUTRAL (it does not bear on the statement); an added record is
kept in the log but labels no pair.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.config import sparkit_home
from agent.errors import InputError
from agent.review.ledger import READINGS

FILE_NAME = "corrections.jsonl"


def corrections_path() -> Path:
    return sparkit_home() / FILE_NAME


def record_changes(changes: list[dict[str, Any]], run_id: str, path: Path | None = None) -> None:
    """Append the review's changes, each with the run id and the time."""
    if not changes:
        return
    path = path or corrections_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    lines = "".join(json.dumps({"run_id": run_id, "time": stamp, **change}) + "\n" for change in changes)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def read_changes(path: Path | None = None) -> Iterator[dict[str, Any]]:
    path = path or corrections_path()
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                raise InputError(f"{path}:{number} is not a JSON line (the corrections file was edited?)") from None


def training_pairs(changes: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The judge's training pairs the changes label (module docstring)."""
    for change in changes:
        if change.get("action") == "read" and change.get("after") in READINGS:
            label = READINGS[change["after"]]
        elif change.get("action") == "strike":
            label = "NEUTRAL"
        else:
            continue
        yield {
            "statement": change["statement"],
            "passage": change["text"],
            "label": label,
            "category": f"review_{change['action']}",
            "court_reading": change.get("before"),
            "record_id": change.get("record_id"),
            "run_id": change.get("run_id"),
        }


def export(out: Path | None, source: Path | None = None) -> int:
    """Write the training pairs as JSONL to `out` (stdout when None); returns how many."""
    pairs = list(training_pairs(read_changes(source)))
    text = "".join(json.dumps(pair) + "\n" for pair in pairs)
    if out is None:
        print(text, end="")
    else:
        out.write_text(text, encoding="utf-8")
    return len(pairs)
