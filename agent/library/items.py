"""What an importer turns a file into: `Item`s (a document with its full text or corpus record) and the fields
every reader parses alike (a year, an author list, an arXiv id in Zotero's `extra`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent.library.models import LibraryDocument, ParsedDocument, Skipped
from agent.literature import Record

_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


@dataclass
class Item:
    """One document read from a file: its metadata, and its full text (PDF) or corpus record (JSONL) if any."""

    document: LibraryDocument
    parsed: ParsedDocument | None = None
    record: Record | None = None
    key: str | None = None  # a citation key to use as the library id
    attachments: list[Path] = field(default_factory=list)


@dataclass
class ReadResult:
    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def year_of(value: object) -> int | None:
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def split_authors(value: str) -> list[str]:
    """'Doe, Jane and Roe, R.' -> ['Jane Doe', 'R. Roe']."""
    names = []
    for name in re.split(r"\s+and\s+", value or ""):
        name = " ".join(name.replace("{", "").replace("}", "").split())
        if "," in name:
            last, first = name.split(",", 1)
            name = f"{first.strip()} {last.strip()}".strip()
        if name:
            names.append(name)
    return names


def arxiv_from_extra(extra: str | None) -> str | None:
    match = re.search(r"arXiv:\s*(\d{4}\.\d{4,5})", extra or "")
    return match.group(1) if match else None
