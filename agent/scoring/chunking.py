"""Passage chunking with section awareness.

A passage that crosses from Methods into Results mixes "we measured X" with "X rose 40%", which blurs both
retrieval and stance judging; so full texts are split on their section headings first and only then into
overlapping sentence windows. Structured abstracts (BACKGROUND / METHODS / RESULTS labels) are treated the
same way. A plain abstract has no sections and is short, so each sentence is its own passage, and its
`sentence_start` stays aligned with `Record.sentences` (rationale indices refer to those).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from agent.common.text import SECTION_LABELS, section_label_match, split_sentences
from agent.literature import Passage, Record

_SECTION_NAMES = (
    r"abstract|introduction|background|materials?\s+and\s+methods|methods?|methodology|experimental(?:\s+(?:section|procedures?|methods?))?|"
    r"results?(?:\s+and\s+discussion)?|discussion|conclusions?|summary|related\s+work|limitations|"
    r"references|bibliography|acknowledge?ments?|supplementary(?:\s+\w+)*|appendix"
)
# A line that is only a heading: optional markdown #'s or numbering ("2.", "3.1", "IV."), the name, optional colon.
_HEADING_LINE = re.compile(
    rf"^\s*(?:#{{1,6}}\s*)?(?:(?:\d+(?:\.\d+)*|[IVX]+)\.?\s+)?({_SECTION_NAMES})\s*:?\s*$", re.IGNORECASE
)
_MARKDOWN_HEADING = re.compile(r"^\s*#{1,6}\s+(\S.*?)\s*#*\s*$")

_INLINE_LABEL = re.compile(rf"(?<=[.!?])\s+(?=(?:{SECTION_LABELS})(?:\s+AND\s+(?:{SECTION_LABELS}))*\s*:)")

_DROPPED_SECTIONS = ("references", "bibliography", "acknowledg")


@dataclass(frozen=True)
class Chunk:
    """A passage: consecutive sentences of one section. Sentence indices count over the whole document."""

    text: str
    section: str | None
    sentence_start: int
    sentence_end: int  # exclusive

    def to_passage(self, record_id: str, score: float = 0.0) -> Passage:
        end = self.sentence_end if self.sentence_end - self.sentence_start > 1 else None
        return Passage(
            record_id=record_id,
            sentence_index=self.sentence_start,
            sentence_end=end,
            text=self.text,
            score=score,
            section=self.section,
        )


def _section_key(name: str) -> str:
    return " ".join(name.lower().replace("&", "and").split())


def structured_label(sentence: str) -> str | None:
    """The structured-abstract label a sentence starts with ('results'), or None."""
    match = section_label_match(sentence)
    return _section_key(match.group(1)) if match else None


def split_sections(text: str) -> list[tuple[str | None, str]]:
    """(section name, body) pairs from heading lines; one (None, text) pair when the text has none."""
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in (text or "").splitlines():
        heading = _HEADING_LINE.match(line) or _MARKDOWN_HEADING.match(line)
        if heading:
            sections.append((_section_key(heading.group(1)), []))
        else:
            sections[-1][1].append(line)
    result = [(name, " ".join(" ".join(lines).split())) for name, lines in sections]
    return [(name, body) for name, body in result if body]


def _label_sections(sentences: list[str], offset: int = 0) -> list[tuple[str | None, list[tuple[int, str]]]]:
    """Group sentences under the structured label that last opened a section."""
    groups: list[tuple[str | None, list[tuple[int, str]]]] = []
    for i, sentence in enumerate(sentences):
        label = structured_label(sentence)
        if label is not None or not groups:
            groups.append((label, []))
        groups[-1][1].append((offset + i, sentence))
    return groups


def sentence_sections(sentences: list[str]) -> list[str | None]:
    """The structured-abstract section of each sentence: the label that last opened a section, None before any."""
    return [label for label, indexed in _label_sections(sentences) for _ in indexed]


def _windows(
    section: str | None, indexed: list[tuple[int, str]], window: int, stride: int, max_chars: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    start = 0
    while start < len(indexed):
        end = min(start + window, len(indexed))
        while end - start > 1 and sum(len(s) + 1 for _, s in indexed[start:end]) > max_chars:
            end -= 1  # keep passages short enough to judge; a single long sentence still forms one chunk
        part = indexed[start:end]
        chunks.append(Chunk(" ".join(s for _, s in part), section, part[0][0], part[-1][0] + 1))
        if end >= len(indexed):
            break
        start = max(start + 1, min(start + stride, end))
    return chunks


def chunk_sentences(sentences: list[str], *, window: int = 3, stride: int = 2, max_chars: int = 1200) -> list[Chunk]:
    """Chunks of an abstract given as sentences: sentence windows per labelled section when the abstract
    is structured, else one chunk per sentence."""
    groups = _label_sections(sentences)
    if not any(label for label, _ in groups):
        return [Chunk(s, None, i, i + 1) for i, s in enumerate(sentences)]
    chunks: list[Chunk] = []
    for label, indexed in groups:
        chunks.extend(_windows(label, indexed, window, stride, max_chars))
    return chunks


def chunk_document(text: str, *, window: int = 3, stride: int = 2, max_chars: int = 1200) -> list[Chunk]:
    """Chunks of a full text (section-aware windows) or of an abstract (sentences) given as one string."""
    sections = split_sections(text)
    if len(sections) == 1 and sections[0][0] is None:
        body = _INLINE_LABEL.sub("\n", sections[0][1])  # "... trial. METHODS: We ..." -> its own sentence
        sentences = [s for part in body.split("\n") for s in split_sentences(part)]
        return chunk_sentences(sentences, window=window, stride=stride, max_chars=max_chars)
    chunks: list[Chunk] = []
    offset = 0
    for name, body in sections:
        sentences = split_sentences(body)
        if name is None or not name.startswith(_DROPPED_SECTIONS):
            for label, indexed in _label_sections(sentences, offset):
                chunks.extend(_windows(label or name, indexed, window, stride, max_chars))
        offset += len(sentences)
    return chunks


def chunk_record(record: Record, full_text: str | None = None, **options: int) -> list[Chunk]:
    """Chunks of a record: its full text when one was fetched, else its abstract sentences."""
    if full_text and full_text.strip():
        return chunk_document(full_text, **options)
    return chunk_sentences(record.sentences or split_sentences(record.abstract), **options)


def section_window_passages(records: list[Record]) -> list[Passage]:
    """Windows of two or three consecutive sentences inside each labelled section of structured abstracts (none for
    an unstructured abstract): what a single sentence leaves out when a result is stated over several."""
    passages = (
        chunk.to_passage(record.id)
        for record in records
        for chunk in chunk_sentences(record.sentences or [])
        if chunk.section
    )
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
                passages.append(
                    Passage(record_id=record.id, sentence_index=i, text=sentence, score=score, section=section)
                )
    return passages
