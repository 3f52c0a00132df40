"""One work in the library: the id a new document gets (its citation key, else surname, year and a title word) and
the document two records of the same work merge into (agent.library.store de-duplicates them)."""

from __future__ import annotations

import re

from agent.library.items import Item
from agent.library.models import LibraryDocument

_STOP = frozenset("a an the of on in and for with to from by at is are as its".split())


def combine_documents(old: LibraryDocument, incoming: LibraryDocument, item: Item) -> tuple[LibraryDocument, bool]:
    """The merged document and whether the incoming item brings full text the library lacked. Bibliographic
    metadata wins over what a PDF parser guessed; a PDF's full text wins over an abstract."""
    full_text_arrives = item.parsed is not None and not old.full_text
    if old.kind == "pdf" and incoming.kind != "pdf":
        merged = incoming.model_copy(update={"id": old.id, "kind": old.kind}).merge_metadata(old)
        merged = merged.model_copy(
            update={k: getattr(old, k) for k in ("full_text", "pages", "sections", "notes", "added_at")}
        )
        if old.references:
            merged.references = old.references
    else:
        merged = old.merge_metadata(incoming)
    if full_text_arrives:
        merged = merged.model_copy(
            update={
                "full_text": True,
                "pages": incoming.pages,
                "sections": incoming.sections,
                "notes": incoming.notes,
                "references": merged.references or incoming.references,
            }
        )
    return merged, full_text_arrives


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def unique_id(item: Item, docs: dict[str, LibraryDocument]) -> str:
    doc = item.document
    base = re.sub(r"[^A-Za-z0-9_.:-]+", "-", item.key or "").strip("-")[:60]
    if not base:
        surname = _slug(doc.authors[0].split()[-1]) if doc.authors and doc.authors[0].split() else ""
        word = next((w for w in (_slug(w) for w in doc.title.split()) if len(w) >= 4 and w not in _STOP), "")
        base = (
            f"{surname}{doc.year or ''}{word}"
            if surname
            else "-".join(_slug(w) for w in doc.title.split()[:4] if _slug(w))
        )
        base = base[:60] or "document"
    candidate, n = base, 2
    while candidate in docs:
        candidate, n = f"{base}-{n}", n + 1
    return candidate
