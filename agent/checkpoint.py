"""SQLite checkpointing for CLI and Python API runs, so a crashed run resumes without re-running
finished nodes. The serializer allow-lists exactly our record classes (no arbitrary class loading)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

import agent.interfaces as interfaces
import agent.records as records
import agent.routing as routing

_MODELS = [
    (records, ["Record", "Provenance", "Passage", "Hypothesis", "LedgerEntry", "Query", "Claim", "Citation", "Decision", "Usage", "Answer",
               "Status", "ClaimVerdict", "HypothesisVerdict"]),
    (interfaces, ["Plan", "Draft", "CitedSentence", "StanceResult"]),
    (routing, ["AfterRetrieve", "AfterRerank", "AfterCourt", "AfterVerify"]),
]


class RedactingSerializer(JsonPlusSerializer):
    """Stores a failed node's exception with keys redacted: LangGraph writes the raw error to the checkpoint."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, BaseException):
            from agent.redact import redact

            obj = RuntimeError(f"{type(obj).__name__}: {redact(str(obj))}")
        return super().dumps_typed(obj)


def serializer() -> JsonPlusSerializer:
    allowed = [(module.__name__, name) for module, names in _MODELS for name in names]
    return RedactingSerializer(allowed_msgpack_modules=allowed)


@contextlib.asynccontextmanager
async def sqlite_checkpointer(path: Path) -> AsyncIterator[object]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(str(path)) as conn:
        saver = AsyncSqliteSaver(conn, serde=serializer())
        await saver.setup()
        yield saver
