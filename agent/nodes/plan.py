"""plan: validate the input, read misspelled words as meant (agent/english/spelling.py), note a question that may not
be English (agent/english/language.py), classify the task, normalise options (an alternative question's two statements
become its options), extract entities and write round-1 queries."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from agent.english.language import language_note
from agent.english.questions import alternative_statements
from agent.english.spelling import read_question
from agent.inputs import validate_mode, validate_question
from agent.literature import Query
from agent.nodes.parts import RunParts
from agent.state import ResearchState
from agent.tracing.progress import emit


async def plan(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    mode = validate_mode(state.get("mode"))
    question, options = validate_question(state.get("question"), state.get("options"), mode)
    backend = await parts.backend()
    # the gate refused only questions surely not English; of the rest, one it is unsure of is answered with a note,
    # the corpus's words counting as English (the speller knows them)
    knows = backend.speller.knows if backend.speller is not None else None
    note = await asyncio.to_thread(language_note, question, knows)
    # the speller's dictionary is built on the first unknown word (about a second for SciFact), once per backend
    question, options, corrections = await asyncio.to_thread(read_question, question, options, backend.speller)
    if not options and mode == "ask" and (alternatives := alternative_statements(question)):
        options = alternatives  # 'Is light a wave or a particle?' asks between two statements, not for a yes or no
    started_at = state.get("started_at") or time.time()  # once the backend is ready: set-up is not the run's time
    the_plan = await backend.reasoner.plan(question, options, mode)
    queries = list(the_plan.queries)
    if backend.entity_expander is not None and settings.corpus.enable_entity_expansion and the_plan.entities:
        queries += await _expanded_queries(backend.entity_expander, the_plan.entities[:3], queries[0].text)
    emit(
        {
            "node": "plan",
            "task": the_plan.task,
            "queries": [q.text for q in queries],
            **({"corrections": [c.model_dump() for c in corrections]} if corrections else {}),
            **({"language": note} if note else {}),
        }
    )
    return {
        "question": question,
        "options": options,
        "corrections": corrections,
        "run_id": state.get("run_id") or _thread_id() or uuid.uuid4().hex[:12],
        "started_at": started_at,
        "plan": the_plan,
        "queries": queries,
        "round": 0,
        "phase": "round_1",
        "discrimination_rounds": 0,
        "hops_done": 0,
        "escalations": 0,
        "notes": [*backend.notes, *([note] if note else [])],
    }


def _thread_id() -> str | None:
    """The checkpoint thread id doubles as the run id, so `sparkit resume RUN_ID` finds the run."""
    try:
        from langgraph.config import get_config

        return (get_config().get("configurable") or {}).get("thread_id")
    except RuntimeError:  # called outside a graph run (unit tests)
        return None


async def _expanded_queries(expander: Any, entities: list[str], base: str) -> list[Query]:
    """PubChem synonyms (top 3) appended to the main query, for the academic sources only."""
    queries = []
    for entity in entities:
        synonyms = await expander.expand(entity)
        if synonyms:
            queries.append(Query(text=f"{base} {' '.join(synonyms[:3])}", intent="primary"))
    return queries
