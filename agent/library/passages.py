"""A library document as index records: a full text as passages (paragraphs, long ones split between sentences,
short ones joined within a section), each with its page and section; a bibliography entry as one abstract record."""

from __future__ import annotations

from collections import defaultdict

from agent.common.text import split_sentences
from agent.library.items import Item
from agent.library.models import LibraryDocument, Paragraph, strip_controls
from agent.literature import Record, SourceLocation

PASSAGE_WORDS = 180  # MiniLM reads about 256 word pieces; a longer passage would be cut
MIN_PASSAGE_WORDS = 40  # shorter paragraphs join the next one in the same section


def document_of(record: Record) -> str:
    """The library document a record belongs to (an abstract record is its own document)."""
    return record.location.document_id if record.location else record.id


def passages(
    paragraphs: list[Paragraph], max_words: int = PASSAGE_WORDS, min_words: int = MIN_PASSAGE_WORDS
) -> list[Paragraph]:
    """Paragraphs as index passages: long ones split between sentences, short ones joined to the next in the
    same section (a heading-less fragment says little alone)."""
    out: list[Paragraph] = []
    for paragraph in paragraphs:
        pieces: list[str] = []
        current: list[str] = []
        for sentence in split_sentences(paragraph.text) or [paragraph.text]:
            if current and len(" ".join([*current, sentence]).split()) > max_words:
                pieces.append(" ".join(current))
                current = []
            current.append(sentence)
        if current:
            pieces.append(" ".join(current))
        for i, text in enumerate(pieces):
            piece = paragraph.model_copy(
                update={"text": text, "page_end": paragraph.page_end if i == len(pieces) - 1 else None}
            )
            last = out[-1] if out else None
            if (
                last is not None
                and last.section == piece.section
                and len(last.text.split()) < min_words
                and len(last.text.split()) + len(text.split()) <= max_words
            ):
                end = piece.page_end or piece.page
                out[-1] = last.model_copy(
                    update={"text": f"{last.text} {text}", "page_end": end if end != last.page else last.page_end}
                )
            else:
                out.append(piece)
    return out


def document_records(doc: LibraryDocument, item: Item | None, old: list[Record]) -> list[Record]:
    """The index records of a document: its passages (full text), its corpus record (JSONL) or one abstract
    record; with no new item, the existing records carry the document's refreshed metadata."""
    meta = {"title": doc.title, "year": doc.year, "doi": doc.doi, "authors": doc.authors, "venue": doc.venue}
    if item is not None and item.parsed is not None:
        records: list[Record] = []
        per_page: defaultdict[int, int] = defaultdict(int)
        for passage in passages(item.parsed.paragraphs):
            per_page[passage.page] += 1
            records.append(
                Record(
                    id=f"{doc.id}#p{passage.page}.{per_page[passage.page]}",
                    source="local",
                    source_type="local",
                    abstract=passage.text,
                    location=SourceLocation(
                        document_id=doc.id, page=passage.page, page_end=passage.page_end, section=passage.section
                    ),
                    **meta,
                )
            )
        if records:
            return records
    if item is not None and item.record is not None:
        record = item.record
        return [
            record.model_copy(
                update={
                    "location": SourceLocation(document_id=doc.id),
                    "title": doc.title,
                    "abstract": strip_controls(record.abstract),
                    "sentences": [strip_controls(x) for x in record.sentences],
                }
            )
        ]
    if old and (doc.full_text or old[0].abstract == doc.abstract):
        return [r.model_copy(update=meta) for r in old]
    return [
        Record(
            id=doc.id,
            source="local",
            source_type="local",
            abstract=doc.abstract,
            location=SourceLocation(document_id=doc.id),
            **meta,
        )
    ]
