"""A Zotero data folder, read-only: its zotero.sqlite (opened immutable, so a running Zotero is not disturbed) and the
PDFs in its storage/ (agent.library.importers dispatches a folder here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from agent.library.items import Item, ReadResult, arxiv_from_extra, year_of
from agent.library.models import BadFileError, LibraryDocument, Skipped

ZOTERO_DB = "zotero.sqlite"
_ZOTERO_FIELDS = ("title", "date", "DOI", "abstractNote", "publicationTitle", "extra", "citationKey")


def read_zotero(folder: Path) -> ReadResult:
    """Items of a Zotero data folder, read-only (`zotero.sqlite` opened immutable, PDFs from `storage/`).
    Notes, attachments and items in the trash are left out. Close Zotero first for a consistent snapshot."""
    db = folder / ZOTERO_DB
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
        # text that is not UTF-8 damages that one value, not the whole file
        conn.text_factory = lambda data: data.decode("utf-8", "replace")
        try:
            rows = list(_zotero_rows(conn))
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise BadFileError(f"not a readable Zotero database ({str(exc)[:80]})") from None
    if not rows:
        raise BadFileError("no items in the Zotero library (notes, attachments and the trash are left out)")
    result = ReadResult()
    for item_id, values, creators, attachments in rows:
        title = " ".join((values.get("title") or "").split())
        if not title:
            result.skipped.append(Skipped(path=f"{db}#item{item_id}", reason="Zotero item has no title"))
            continue
        document = LibraryDocument(
            id="",
            title=title,
            authors=creators,
            year=year_of(values.get("date")),
            venue=values.get("publicationTitle") or None,
            doi=values.get("DOI") or None,
            abstract=" ".join((values.get("abstractNote") or "").split()),
            kind="zotero",
            files=[str(db.resolve())],
            arxiv_id=arxiv_from_extra(values.get("extra")),
        )
        pdfs = [
            folder / "storage" / key / stored.removeprefix("storage:")
            for key, stored in attachments
            if stored.startswith("storage:")
        ]
        pdfs += [
            Path(stored)
            for _, stored in attachments
            if not stored.startswith("storage:") and Path(stored).is_absolute()
        ]
        result.items.append(
            Item(
                document=document,
                key=values.get("citationKey") or None,
                attachments=[p for p in pdfs if p.suffix.lower() == ".pdf"],
            )
        )
    return result


def _zotero_rows(conn: sqlite3.Connection) -> Iterator[tuple[int, dict[str, str], list[str], list[tuple[str, str]]]]:
    placeholders = ",".join("?" * len(_ZOTERO_FIELDS))
    trash = (
        "SELECT itemID FROM deletedItems"
        if conn.execute("SELECT name FROM sqlite_master WHERE name='deletedItems'").fetchone()
        else "SELECT -1"
    )
    items = conn.execute(
        f"SELECT i.itemID FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID "
        f"WHERE t.typeName NOT IN ('attachment', 'note', 'annotation') AND i.itemID NOT IN ({trash}) ORDER BY i.itemID"
    ).fetchall()
    for (item_id,) in items:
        values = {
            field: _as_text(value)
            for field, value in conn.execute(
                "SELECT f.fieldName, v.value FROM itemData d JOIN fields f ON f.fieldID = d.fieldID JOIN "
                "itemDataValues v ON v.valueID = d.valueID "
                f"WHERE d.itemID = ? AND f.fieldName IN ({placeholders})",
                (item_id, *_ZOTERO_FIELDS),
            ).fetchall()
        }
        creators = [
            " ".join(x for x in (_as_text(first), _as_text(last)) if x)
            for first, last in conn.execute(
                "SELECT c.firstName, c.lastName FROM itemCreators ic JOIN creators c ON c.creatorID = "
                "ic.creatorID WHERE ic.itemID = ? ORDER BY ic.orderIndex",
                (item_id,),
            ).fetchall()
        ]
        attachments = [
            (_as_text(key), _as_text(path))
            for key, path in conn.execute(
                "SELECT i.key, a.path FROM itemAttachments a JOIN items i ON i.itemID = a.itemID WHERE "
                "a.parentItemID = ? AND a.path IS NOT NULL "
                f"AND a.itemID NOT IN ({trash})",
                (item_id,),
            ).fetchall()
        ]
        yield item_id, values, [c for c in creators if c], attachments


def _as_text(value: object) -> str:
    """A value of Zotero's database as text: SQLite keeps whatever type was stored (a number, bytes) in any column."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)
