"""What every node needs: resolved settings, the backend, metering, progress events, pool merging."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from agent.backend import Backend, backend_for
from agent.budget import cost_left, llm_calls_left
from agent.config import Context
from agent.metering import Meter, metered
from agent.records import Passage, Record
from agent.scoring.chunking import chunk_sentences, sentence_sections


def settings_of(runtime: Any) -> Context:
    context = getattr(runtime, "context", None)
    if context is None:
        return Context()
    return context if isinstance(context, Context) else Context.model_validate(context)


async def backend_of(runtime: Any, state: Mapping[str, Any]) -> Backend:
    """Built in a thread: the first call may load models or an index (blocking work)."""
    return await asyncio.to_thread(backend_for, settings_of(runtime), state.get("documents"))


@contextlib.contextmanager
def node_meter(state: Mapping[str, Any], settings: Context) -> Iterator[Meter]:
    """Meter for one node, with the LLM calls and dollars the run has left."""
    with metered(llm_calls_left(state.get("usage"), settings), cost_left(state.get("usage"), settings)) as meter:
        yield meter


def state_after(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The state as the next step will see it: `update` applied with the state's reducers."""
    from agent.state import add_usage, merge_records

    view = {**state, **update}
    if "usage" in update:
        view["usage"] = add_usage(state.get("usage"), update["usage"])
    if "pool" in update:
        view["pool"] = merge_records(state.get("pool"), update["pool"])
    for key in ("decisions", "notes", "sent_queries", "hopped_ids"):
        if key in update:
            view[key] = [*(state.get(key) or []), *update[key]]
    return view


def emit(event: dict[str, Any]) -> None:
    """Progress for `stream_mode='custom'` (CLI progress lines, Studio); silent outside a streamed run."""
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()(event)
    except Exception:  # noqa: BLE001 - no stream context (unit tests, direct calls): nothing to report to
        return


def section_window_passages(records: list[Record]) -> list[Passage]:
    """Windows of two or three consecutive sentences inside each labelled section of structured abstracts (none for
    an unstructured abstract): what a single sentence leaves out when a result is stated over several."""
    passages = (chunk.to_passage(record.id) for record in records for chunk in chunk_sentences(record.sentences or []) if chunk.section)
    return [p for p in passages if p.sentence_end is not None]


def sentence_passages(records: list[Record], scores: Mapping[str, float] | None = None) -> list[Passage]:
    """Every sentence of the given records as a passage carrying its record's score and its section (the
    structured-abstract label that opened it, so a whole section is known as background or results)."""
    passages = []
    for record in records:
        score = (scores or {}).get(record.id, 0.0)
        sentences = record.sentences or ([record.abstract] if record.abstract else [record.title])
        for i, (sentence, section) in enumerate(zip(sentences, sentence_sections(sentences), strict=True)):
            if sentence:
                passages.append(Passage(record_id=record.id, sentence_index=i, text=sentence, score=score, section=section))
    return passages
