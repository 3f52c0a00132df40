"""Trace files: `sparkit_home()/traces/<run_id>.jsonl` plus `traces/index.jsonl` for listing.

A trace is JSON Lines, one record per line with a `kind` (meta, run, decision, source_call, progress,
usage, answer, record). A resumed run appends a new segment to the same file. The index gets one line per
write (run id, time, question, status, cost, latency, size); `list_traces` keeps the latest line per run.
Every line is passed through `redact` on the way to disk.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.common.jsonl import parse_jsonl
from agent.common.redact import redact
from agent.config import sparkit_home
from agent.errors import InputError

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
INDEX_NAME = "index.jsonl"


def traces_dir() -> Path:
    return sparkit_home() / "traces"


def trace_path(run_id: str) -> Path:
    """The trace file of `run_id` (ids are checked, so none can point outside the traces folder)."""
    if not _SAFE_ID.match(run_id) or ".." in run_id:
        raise InputError(f"not a valid run id: {run_id[:80]!r}")
    return traces_dir() / f"{run_id}.jsonl"


def dumps(record: dict[str, Any]) -> str:
    """One redacted JSON line."""
    return redact(json.dumps(record, ensure_ascii=False, default=str))


def write_trace(run_id: str, records: Iterable[dict[str, Any]], *, append: bool = False) -> Path:
    """Write (or, for a resumed run, append) the records; a fresh trace replaces any file atomically."""
    path = trace_path(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(dumps(r) + "\n" for r in records)
    if append and path.exists():
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    else:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return path


def add_to_index(entry: dict[str, Any]) -> None:
    """Append one listing line (a single write, so concurrent runs do not interleave inside a line)."""
    path = traces_dir() / INDEX_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(dumps(entry) + "\n")


def list_traces() -> list[dict[str, Any]]:
    """Index entries whose trace file still exists, the latest line per run, newest first."""
    path = traces_dir() / INDEX_NAME
    if not path.exists():
        return []
    latest: dict[str, dict[str, Any]] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for _, entry in parse_jsonl(
        lines, lambda number, msg: InputError(f"trace index {path} is corrupt at line {number}: {msg}")
    ):
        run_id = str(entry.get("run_id", ""))
        if _SAFE_ID.match(run_id) and (traces_dir() / f"{run_id}.jsonl").exists():
            latest[run_id] = entry
    return sorted(latest.values(), key=lambda e: str(e.get("started_at", "")), reverse=True)


def resolve_run_id(ref: str) -> str:
    """A full run id from an exact id, a unique prefix, or `latest`/`last`."""
    if ref in ("latest", "last"):
        entries = list_traces()
        if not entries:
            raise InputError(f"no traces yet in {traces_dir()}")
        return str(entries[0]["run_id"])
    if _SAFE_ID.match(ref) and trace_path(ref).exists():
        return ref
    matches = sorted(p.stem for p in traces_dir().glob(f"{glob_escape(ref)}*.jsonl")) if _SAFE_ID.match(ref) else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(f"no trace for run {ref!r} in {traces_dir()} (see `sparkit trace list`)")
    raise InputError(f"run id prefix {ref!r} is ambiguous: {', '.join(matches[:5])}")


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def load_trace(run_id: str) -> list[dict[str, Any]]:
    """The records of a trace; a line that is not JSON raises InputError naming it."""
    path = trace_path(run_id)
    if not path.exists():
        raise InputError(f"no trace for run {run_id!r} in {traces_dir()}")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        record
        for _, record in parse_jsonl(
            lines, lambda number, msg: InputError(f"trace {path} is corrupt at line {number}: {msg}")
        )
    ]
