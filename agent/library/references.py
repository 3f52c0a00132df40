"""References parsed from a PDF resolved against the library (its DOI, arXiv id, or a library title inside the
reference), so the offline citation hop follows them."""

from __future__ import annotations

import re
from collections import defaultdict

from agent.library.models import LibraryDocument
from agent.library.passages import document_of
from agent.literature import Record, normalize_doi, normalize_title

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
_ARXIV = re.compile(r"\b(?:arXiv:\s*)?(\d{4}\.\d{4,5})(?:v\d+)?\b", re.I)


def resolve_references(docs: dict[str, LibraryDocument]) -> dict[str, list[str]]:
    """For each document with references, the library documents they name: by id (JSONL corpora), DOI, arXiv
    id, or a library title (20+ characters) found inside the reference text."""
    by_doi = {d.doi: d.id for d in docs.values() if d.doi}
    by_arxiv = {d.arxiv_id.lower(): d.id for d in docs.values() if d.arxiv_id}
    titles: dict[str, list[tuple[str, str]]] = defaultdict(list)  # longest title word -> (normalised title, id)
    for d in docs.values():
        title = normalize_title(d.title)
        if len(title) >= 20:
            titles[max(title.split(), key=len)].append((title, d.id))
    resolved: dict[str, list[str]] = {}
    for doc in docs.values():
        if not doc.references:
            continue
        found = []
        for ref in doc.references:
            if ref in docs:
                found.append(ref)
                continue
            doi = _DOI.search(ref)
            arxiv = _ARXIV.search(ref)
            target = (by_doi.get(normalize_doi(doi.group(1).rstrip(".,;)]")) or "") if doi else None) or (
                by_arxiv.get(arxiv.group(1).lower()) if arxiv else None
            )
            if target is None:
                text = f" {normalize_title(ref)} "
                target = next(
                    (i for word in set(text.split()) for title, i in titles.get(word, []) if f" {title} " in text), None
                )
            if target and target != doc.id:
                found.append(target)
        resolved[doc.id] = list(dict.fromkeys(found))
    return resolved


def with_references(docs: dict[str, LibraryDocument], records: list[Record]) -> list[Record]:
    """Records whose `references` are the first records of the library documents their document cites."""
    first: dict[str, str] = {}
    for record in records:
        first.setdefault(document_of(record), record.id)
    resolved = resolve_references(docs)
    out = []
    for record in records:
        doc_id = document_of(record)
        refs = [first[d] for d in resolved.get(doc_id, []) if d in first]
        out.append(record if record.references == refs else record.model_copy(update={"references": refs}))
    return out
