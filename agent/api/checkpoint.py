"""SQLite checkpointing for CLI and Python API runs, so a crashed run resumes without re-running
finished nodes. The serializer allow-lists exactly the classes the state's channels hold (no arbitrary class loading),
read from the state schemas' type hints so that a new channel or field type cannot be forgotten: a class missing from
the list comes back from a checkpoint as a plain dict (a resumed chat-model run once failed so on `adjudication`).

Beside LangGraph's tables the same database keeps each run's settings (`sparkit_runs`: the explicit settings tree
of the Context it started with), so `resume` continues a run with its own preset and overrides, not the defaults."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import importlib
import json
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel

import agent.routing  # noqa: F401 - defines the Decision subclasses (AfterCourt, ...) the `decisions` channel holds
from agent.state import OutputState, ResearchState


def state_classes(*schemas: type) -> set[type]:
    """The classes a checkpoint of these state schemas can hold: every pydantic model, dataclass and enum of the
    project named in their type hints, followed through Annotated, unions, containers and the fields of each model
    or dataclass found, with their loaded subclasses (the `decisions` channel, a list of Decision, holds AfterCourt)."""
    found: set[type] = set()
    pending: list[Any] = [hint for schema in schemas for hint in get_type_hints(schema, include_extras=True).values()]
    while pending:
        hint = pending.pop()
        if isinstance(hint, TypeVar) or get_origin(hint) is Literal:
            continue
        if get_origin(hint) is Annotated:
            pending.append(get_args(hint)[0])  # the rest is metadata: a reducer, a Field(description=...)
            continue
        if get_args(hint):
            pending.extend(get_args(hint))  # list[X], dict[K, V], X | None
            continue
        if not isinstance(hint, type) or hint in found or not _ours(hint):
            continue
        if issubclass(hint, BaseModel):
            pending.extend(field.annotation for field in hint.model_fields.values())
        elif dataclasses.is_dataclass(hint):
            pending.extend(get_type_hints(hint).values())
        elif not issubclass(hint, enum.Enum):
            continue
        found.add(hint)
        pending.extend(hint.__subclasses__())
    return {cls for cls in found if _importable(cls)}


def _ours(cls: type) -> bool:
    return cls.__module__ == "agent" or cls.__module__.startswith("agent.")


def _importable(cls: type) -> bool:
    """The serializer rebuilds a class by its module and name, which a class defined inside a function lacks."""
    return getattr(importlib.import_module(cls.__module__), cls.__name__, None) is cls


class RedactingSerializer(JsonPlusSerializer):
    """Stores a failed node's exception with keys redacted: LangGraph writes the raw error to the checkpoint."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, BaseException):
            from agent.common.redact import redact

            obj = RuntimeError(f"{type(obj).__name__}: {redact(str(obj))}")
        return super().dumps_typed(obj)


FORMER_MODULES: dict[str, str] = {
    "agent.literature.Citation": "agent.records",
    "agent.literature.Passage": "agent.records",
    "agent.literature.Provenance": "agent.records",
    "agent.literature.Query": "agent.records",
    "agent.literature.Record": "agent.records",
    "agent.literature.SourceLocation": "agent.records",
}
"""Where a class the state holds was defined before it moved ('module.Class' as it is now -> its former module). A
checkpoint names each class by module and name, so one written before a move names the former module: the serializer
allows that path too, and the former module keeps the name (imported there for this alone), or such checkpoints would
come back as plain dicts and their runs could not resume."""


def former_paths(classes: set[type]) -> set[tuple[str, str]]:
    """The (module, name) paths older checkpoints name these classes by: each moved class's former path, checked to
    still lead to the class (a path that led elsewhere would rebuild a stored value as the wrong class)."""
    paths = set()
    for cls in classes:
        module = FORMER_MODULES.get(f"{cls.__module__}.{cls.__name__}")
        if module is None:
            continue
        if getattr(importlib.import_module(module), cls.__name__, None) is not cls:
            raise ImportError(f"{module}.{cls.__name__} no longer leads to {cls.__module__}.{cls.__name__}")
        paths.add((module, cls.__name__))
    return paths


def serializer() -> JsonPlusSerializer:
    """The serializer every checkpointer of ours uses: it rebuilds exactly the classes the state can hold, by the paths
    they have now and the paths older checkpoints name them by."""
    classes = state_classes(ResearchState, OutputState)
    allowed = {(cls.__module__, cls.__name__) for cls in classes} | former_paths(classes)
    return RedactingSerializer(allowed_msgpack_modules=sorted(allowed))


@contextlib.asynccontextmanager
async def sqlite_checkpointer(path: Path) -> AsyncIterator[object]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(ensure_wal, path)
    async with aiosqlite.connect(str(path)) as conn:
        saver = AsyncSqliteSaver(conn, serde=serializer())
        await saver.setup()
        yield saver


def ensure_wal(path: Path, attempts: int = 8) -> None:
    """Switch the database to write-ahead logging before the saver's setup does. SQLite refuses that switch at once,
    without waiting, while another connection has the file open, so two first runs at the same time in a fresh home
    failed with "database is locked"; here the switch is retried briefly. Once set, WAL persists in the file and later
    opens do not need the exclusive lock."""
    for attempt in range(attempts):
        try:
            with contextlib.closing(sqlite3.connect(path, timeout=5)) as conn:
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.02 * 2**attempt)


_RUNS_TABLE = "CREATE TABLE IF NOT EXISTS sparkit_runs (run_id TEXT PRIMARY KEY, settings TEXT NOT NULL)"


async def load_run_question(saver: Any, run_id: str) -> dict[str, Any] | None:
    """What a checkpointed run was asked (question, options, mode), so that a resumed run that fails again still
    says which question failed; None when no checkpoint exists for the run (thread id = run id)."""
    found = await saver.aget_tuple({"configurable": {"thread_id": run_id}})
    if found is None:
        return None
    values = found.checkpoint.get("channel_values", {})
    return {key: values[key] for key in ("question", "options", "mode") if values.get(key) is not None}


async def save_run_settings(saver: Any, run_id: str, settings: dict[str, Any]) -> None:
    """Store the settings tree a run started with. Resuming does not call this, so a resumed run keeps them; a new
    question asked on the same run id (thread) is a new run, and its settings replace the earlier question's."""
    await saver.conn.execute(_RUNS_TABLE)
    await saver.conn.execute(
        "INSERT OR REPLACE INTO sparkit_runs (run_id, settings) VALUES (?, ?)",
        (run_id, json.dumps(settings, default=str)),
    )
    await saver.conn.commit()


async def load_run_settings(saver: Any, run_id: str) -> dict[str, Any] | None:
    """The settings tree a run started with, or None (a run checkpointed before settings were stored)."""
    await saver.conn.execute(_RUNS_TABLE)
    async with saver.conn.execute("SELECT settings FROM sparkit_runs WHERE run_id = ?", (run_id,)) as cursor:
        row = await cursor.fetchone()
    return json.loads(row[0]) if row else None
