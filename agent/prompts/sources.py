"""What a chat model is told about where a passage comes from, and the question it is read for.

A stance judge is called with bare (statement, passage) pairs (the StanceJudge protocol, shared with the offline
judges), yet a scientist reads a sentence knowing the question, the paper's title, its year, its venue and its
design: "no difference in mortality" means one thing in a 2019 randomised trial of the same drug and another in a
1998 mouse study. The court node therefore sets a reading context (the question and the records it reads) for the
duration of its reading; only the chat-model roles look at it, so the offline judges read exactly what they read
before. Everything taken from a record (title, venue) is retrieved text: it is rendered inside the evidence fence,
never on the tag.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from agent.literature import Record
from agent.scoring.design import read_design


@dataclass(frozen=True)
class ReadingContext:
    """The question being answered and the records whose passages are read for it (id -> record)."""

    question: str
    records: dict[str, Record] = field(default_factory=dict)

    def record_of(self, passage: str) -> Record | None:
        """The record a passage was cut from: one whose title, sentences or abstract hold it (None when none does,
        e.g. a negated claim the court wrote itself)."""
        text = passage.strip()
        if not text:
            return None
        for record in self.records.values():
            if text == record.title.strip() or text in record.sentences or text in record.abstract:
                return record
        for record in self.records.values():  # a section window joins sentences with single spaces
            if text in " ".join(record.sentences):
                return record
        return None


_current: ContextVar[ReadingContext | None] = ContextVar("sparkit_reading_context", default=None)


@contextmanager
def reading_context(question: str, records: Iterable[Record]) -> Iterator[ReadingContext]:
    """Set the reading context for the block (the court's reading), and restore the previous one after it."""
    context = ReadingContext(question=question, records={r.id: r for r in records})
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


def current_reading() -> ReadingContext | None:
    return _current.get()


def today() -> str:
    """Today's date (UTC), so that a model can weigh how recent a record is; the header of every evidence prompt."""
    return dt.datetime.now(dt.UTC).date().isoformat()


def source_line(record: Record | None) -> str:
    """'Source: "Title" (2019, The Lancet; randomized controlled trial)', or '' when there is no record. It goes
    inside the fence (title and venue are retrieved text); the design is read in code (agent/scoring/design.py) and
    left out when no sentence states one."""
    if record is None:
        return ""
    design = read_design(record).design
    facts = [
        str(record.year) if record.year else "year unknown",
        *([record.venue.strip()] if record.venue and record.venue.strip() else []),
    ]
    tail = f"; {design.replace('_', ' ')}" if design != "other" else ""
    title = " ".join(record.title.split())[:200] or "untitled"
    return f'Source: "{title}" ({", ".join(facts)}{tail})'


def with_source(text: str, record: Record | None) -> str:
    """The passage with its source line above it (the passage alone when the record is unknown)."""
    line = source_line(record)
    return f"{line}\n{text}" if line else text
