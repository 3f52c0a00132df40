"""The library's records: a parsed file, a document in the manifest, and what an add reports.

A `LibraryDocument` is one work (a paper) with its metadata and where it came from; its text lives in the
index as records (one per full-text passage, or one for an abstract). These models import nothing above
agent.records and agent.errors.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.common.terminal import strip_controls
from agent.errors import SparkitError
from agent.literature import Record, normalize_doi, split_arxiv_version, work_keys

DocumentKind = Literal["pdf", "bibtex", "ris", "zotero", "csl-json", "jsonl", "fetch"]


class BadFileError(SparkitError):
    """A file that cannot be added (not a PDF, encrypted, no pages, broken bibliography); the message is the
    one-line reason shown when it is skipped."""

    exit_code = 2


class Paragraph(BaseModel):
    """A paragraph of full text and where it sits."""

    text: str
    page: int = Field(description="1-based page the paragraph starts on.")
    page_end: int | None = Field(default=None, description="Last page when the paragraph runs over a page break.")
    section: str | None = Field(default=None, description="Heading of the section it belongs to ('Results').")


class ParsedDocument(BaseModel):
    """What a PDF parser returns: metadata it could read, paragraphs, references, notes on what it could not."""

    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    abstract: str = ""
    paragraphs: list[Paragraph] = Field(default_factory=list)
    references: list[str] = Field(
        default_factory=list, description="Entries of the references section, one string each."
    )
    pages: int = 0
    sections: list[str] = Field(default_factory=list, description="Headings in reading order.")
    notes: list[str] = Field(default_factory=list, description="Pages without a text layer and the like.")


class LibraryDocument(BaseModel):
    """One work in the library (a manifest entry)."""

    id: str = Field(description="Library id: a BibTeX key, the corpus id, or a slug of author, year and title.")
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    pmid: str | None = None
    abstract: str = ""
    references: list[str] = Field(
        default_factory=list, description="Reference entries (strings from a PDF, or ids from a JSONL corpus)."
    )
    kind: DocumentKind = Field(description="What the document first came from.")
    files: list[str] = Field(default_factory=list, description="Source files (absolute paths) it was read from.")
    file_sha256: list[str] = Field(default_factory=list)
    full_text: bool = Field(default=False, description="True when its text comes from a PDF, not only an abstract.")
    pages: int | None = None
    passages: int = Field(default=0, description="Records it has in the index.")
    sections: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    source: str | None = Field(default=None, description="For fetched records: the API it came from.")
    oa_pdf_url: str | None = Field(
        default=None, description="An open-access PDF link a source reported (never fetched)."
    )
    added_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @classmethod
    def from_record(cls, record: Record, **fields: Any) -> LibraryDocument:
        """A document with a record's bibliographic fields (title, authors, year, venue, DOI, abstract); `fields` say
        where it came from and what else it keeps (a fetched record's ids, a corpus record's references)."""
        return cls(
            title=record.title,
            authors=record.authors,
            year=record.year,
            venue=record.venue,
            doi=record.doi,
            abstract=record.abstract,
            **fields,
        )

    def model_post_init(self, __context: object) -> None:
        self.title, self.abstract = strip_controls(self.title), strip_controls(self.abstract)
        self.authors = [strip_controls(a) for a in self.authors]
        self.venue = strip_controls(self.venue) if self.venue else self.venue
        self.doi = normalize_doi(self.doi)
        if self.arxiv_id:
            self.arxiv_id = split_arxiv_version(self.arxiv_id)[0]

    def dedupe_keys(self) -> list[str]:
        """DOI, arXiv id without version, normalised title (12+ characters): two documents sharing one are the same
        work."""
        return work_keys(self.doi, self.arxiv_id, self.title)

    def may_be(self, other: LibraryDocument) -> bool:
        """False when a shared key must be a coincidence: different DOIs or arXiv ids, or two abstracts that share
        under half their words (a generic title such as 'Corresponding author:' names many works)."""
        if (self.doi and other.doi and self.doi != other.doi) or (
            self.arxiv_id and other.arxiv_id and self.arxiv_id != other.arxiv_id
        ):
            return False
        mine, theirs = set(self.abstract.lower().split()), set(other.abstract.lower().split())
        if len(mine) >= 20 and len(theirs) >= 20:
            return len(mine & theirs) / len(mine | theirs) >= 0.5
        return True

    def merge_metadata(self, other: LibraryDocument) -> LibraryDocument:
        """Fill what this document lacks from `other` (the same work read from another file); full text,
        passages and id stay this document's."""
        data = self.model_dump()
        for key in ("title", "year", "venue", "doi", "arxiv_id", "pmid", "abstract", "oa_pdf_url", "source"):
            if not data.get(key) and getattr(other, key):
                data[key] = getattr(other, key)
        if not data["authors"]:
            data["authors"] = list(other.authors)
        if not data["references"]:
            data["references"] = list(other.references)
        data["files"] = list(dict.fromkeys([*self.files, *other.files]))
        data["file_sha256"] = list(dict.fromkeys([*self.file_sha256, *other.file_sha256]))
        return LibraryDocument.model_validate(data)


class Skipped(BaseModel):
    """A file or entry left out of an add, and why (one line)."""

    path: str
    reason: str


class AddReport(BaseModel):
    """What an add (or fetch) did."""

    added: list[str] = Field(default_factory=list, description="Ids of new documents.")
    updated: list[str] = Field(
        default_factory=list, description="Existing documents that gained full text or metadata."
    )
    duplicates: list[str] = Field(default_factory=list, description="Inputs already in the library, unchanged.")
    skipped: list[Skipped] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    passages_added: int = 0
    documents: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = Field(
        default_factory=dict, description="Seconds spent reading files, encoding and indexing, and writing."
    )
