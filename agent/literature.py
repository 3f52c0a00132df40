"""Literature records shared by every layer: a record from any source and the keys that find two records of one work,
where its text sits (a library document's page and section), a scored passage of it, the query that found it and its
citation in an answer.

These import nothing from the rest of the package at import time, so tools, nodes, the CLI and evals can all use them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, Field

_DOI_PREFIX = re.compile(r"^(https?://(dx\.)?doi\.org/|doi:)", re.I)
_ARXIV_VERSION = re.compile(r"v\d+$")
_NON_WORD = re.compile(r"[^\w]+")


def normalize_doi(doi: str | None) -> str | None:
    """Lower-case DOI without resolver prefix; None when empty."""
    if not doi:
        return None
    doi = _DOI_PREFIX.sub("", doi.strip()).strip().lower()
    return doi or None


def split_arxiv_version(arxiv_id: str | None) -> tuple[str | None, str | None]:
    """'2104.12255v1' -> ('2104.12255', 'v1'); versionless ids return (id, None)."""
    if not arxiv_id:
        return None, None
    arxiv_id = re.sub(r"^(arxiv:|https?://arxiv\.org/abs/)", "", arxiv_id.strip(), flags=re.I)
    match = _ARXIV_VERSION.search(arxiv_id)
    if match:
        return arxiv_id[: match.start()], match.group(0)
    return arxiv_id, None


def normalize_title(title: str) -> str:
    """Accent-, case- and punctuation-insensitive title key for dedupe."""
    text = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode()
    return _NON_WORD.sub(" ", text.lower()).strip()


def work_keys(doi: str | None, arxiv_id: str | None, title: str, *source_ids: str) -> list[str]:
    """Keys under which two records of a work match: DOI, arXiv id, the sources' own ids, a normalised title of 12+
    characters."""
    keys = [f"doi:{doi}"] if doi else []
    if arxiv_id:
        keys.append(f"arxiv:{arxiv_id.lower()}")
    keys += [key for key in source_ids if key]
    normalised = normalize_title(title)
    if len(normalised) >= 12:
        keys.append(f"title:{normalised}")
    return keys


class Provenance(BaseModel):
    """How a record entered the pool: which query, round and hypothesis found it."""

    query: str = ""
    round: int = 0
    hypothesis_id: str | None = None
    via: Literal["search", "citation_hop", "claim_check", "entity_expansion"] = "search"
    source: str = ""
    scores: dict[str, float] = Field(
        default_factory=dict,
        description="Why the source returned the record for this query, where it says: the local index gives its "
        "rank, BM25 score, dense cosine and the fused (reciprocal-rank) score.",
    )


class SourceLocation(BaseModel):
    """Where a library record's text sits in its document: a full-text passage's page and section."""

    document_id: str = Field(description="The library document the record belongs to.")
    page: int | None = Field(
        default=None, description="1-based page the passage starts on (None for an abstract-only document)."
    )
    page_end: int | None = Field(default=None, description="Last page when the passage runs over a page break.")
    section: str | None = Field(default=None, description="Heading of the section it sits in ('Results').")

    def label(self) -> str:
        """'p. 4, Results' / 'pp. 4-5' / '' for an abstract-only document."""
        pages = (
            ""
            if self.page is None
            else (
                f"pp. {self.page}-{self.page_end}"
                if self.page_end and self.page_end != self.page
                else f"p. {self.page}"
            )
        )
        return ", ".join(part for part in (pages, self.section or "") if part)


class Record(BaseModel):
    """One literature record, normalised from any source (local corpus or live API)."""

    id: str = Field(
        description="The record's id in its source or corpus (corpus doc_id, DOI, arXiv id, S2 or OpenAlex id)."
    )
    source: str = Field(
        description="Where it came from: 'local', 'arxiv', 'semantic_scholar', 'openalex', 'crossref', 'brave'."
    )
    title: str = ""
    abstract: str = ""
    sentences: list[str] = Field(default_factory=list, description="Abstract split into sentences.")
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    institutions: list[str] = Field(default_factory=list)
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = Field(default=None, description="arXiv id without version (dedupe key).")
    arxiv_version: str | None = Field(default=None, description="Version suffix kept for citation, e.g. 'v2'.")
    s2_id: str | None = None
    openalex_id: str | None = None
    pmid: str | None = None
    citation_count: int | None = None
    oa_pdf_url: str | None = None
    url: str | None = None
    references: list[str] = Field(
        default_factory=list, description="Ids of referenced works, where the source has them."
    )
    source_type: str = Field(
        default="index", description="Kind of source, for triangulation: local, preprint, index, publisher, web."
    )
    provenance: list[Provenance] = Field(default_factory=list)
    alt_ids: dict[str, str] = Field(
        default_factory=dict, description="Ids of the same work in other sources, kept on merge."
    )
    location: SourceLocation | None = Field(
        default=None, description="For a library record: its document, and the page and section of a full-text passage."
    )

    def model_post_init(self, __context: object) -> None:
        self.doi = normalize_doi(self.doi)
        if self.arxiv_id:
            base, version = split_arxiv_version(self.arxiv_id)
            self.arxiv_id = base
            self.arxiv_version = self.arxiv_version or version
        if not self.sentences and self.abstract:
            from agent.common.text import split_sentences  # local import keeps records dependency-free at import time

            self.sentences = split_sentences(self.abstract)
        if not self.abstract and self.sentences:
            self.abstract = " ".join(self.sentences)

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}".strip(". ") if self.title else self.abstract

    def dedupe_keys(self) -> list[str]:
        """Keys under which two records count as the same work (a full-text passage is only ever itself:
        the passages of one paper share its DOI and title but are different evidence)."""
        if self.location is not None and self.location.page is not None:
            return [f"passage:{self.id}"]
        keys = work_keys(
            self.doi,
            self.arxiv_id,
            self.title,
            f"s2:{self.s2_id}" if self.s2_id else "",
            f"openalex:{self.openalex_id.upper()}" if self.openalex_id else "",
        )
        if not keys:
            keys.append(f"{self.source}:{self.id}")
        return keys

    def merge(self, other: Record) -> Record:
        """Keep every id and the richest field of each: longer text, known values over missing ones."""
        data = self.model_dump()
        theirs = other.model_dump()
        for key, value in theirs.items():
            mine: Any = data.get(key)
            if key in ("id", "source", "provenance", "alt_ids"):
                continue
            if (key in ("abstract", "title") and len(value or "") > len(mine or "")) or (
                key == "sentences" and len(value) > len(mine)
            ):
                data[key] = value
            elif key in ("authors", "institutions", "references"):
                data[key] = list(dict.fromkeys([*mine, *value]))
            elif key == "citation_count" and value is not None:
                data[key] = max(value, mine or 0)
            elif mine in (None, "", []) and value not in (None, "", []):
                data[key] = value
        alt = {**theirs["alt_ids"], **data["alt_ids"]}
        if other.source != self.source or other.id != self.id:
            alt.setdefault(other.source, other.id)
        data["alt_ids"] = alt
        data["provenance"] = [*data["provenance"], *theirs["provenance"]]
        return Record.model_validate(data)


class Passage(BaseModel):
    """A scored piece of a record: a sentence (sentence_index set), a window of sentences (sentence_end set too)
    or the whole abstract."""

    record_id: str
    sentence_index: int | None = None
    sentence_end: int | None = Field(
        default=None, description="For a window of sentences: the index after its last one (exclusive)."
    )
    text: str
    score: float = 0.0
    section: str | None = Field(
        default=None, description="Structured-abstract section the sentence sits in ('results'), when labelled."
    )


class Query(BaseModel):
    """A retrieval query with its purpose, so the trace can say why it was sent."""

    text: str
    intent: Literal["primary", "confirm", "falsify", "contrast", "claim_literal", "claim_negation"] = "primary"
    hypothesis_id: str | None = None


class Citation(BaseModel):
    id: str
    title: str
    year: int | None = None
    source: str = ""
    doi: str | None = None
    document_id: str | None = Field(default=None, description="For a library passage: the document it belongs to.")
    page: int | None = Field(default=None, description="For a full-text passage: the 1-based page it starts on.")
    page_end: int | None = Field(default=None, description="Last page when the passage runs over a page break.")
    section: str | None = Field(default=None, description="Section heading of a full-text passage.")

    def where(self) -> str:
        """'p. 4, Results' for a full-text passage; '' otherwise."""
        if self.page is None and not self.section:
            return ""
        return SourceLocation(
            document_id=self.document_id or "", page=self.page, page_end=self.page_end, section=self.section
        ).label()

    @classmethod
    def of(cls, record: Record) -> Citation:
        """The citation of a retrieved record, with the passage's page and section when it has them."""
        where = record.location
        return cls(
            id=record.id,
            title=record.title,
            year=record.year,
            source=record.source,
            doi=record.doi,
            document_id=where.document_id if where else None,
            page=where.page if where else None,
            page_end=where.page_end if where else None,
            section=where.section if where else None,
        )
