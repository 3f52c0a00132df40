"""Readers for everything `sparkit library add` takes: PDFs, BibTeX, RIS, Better BibTeX / CSL JSON, a Zotero data
folder (read-only, agent.library.zotero) and JSONL corpora. Each turns a file into `Item`s (a document, and its
full text or corpus record when it has one); a file that cannot be read raises BadFileError with a one-line reason,
and a broken entry inside an otherwise readable bibliography is reported and skipped on its own.

Bibliography entries may name PDF attachments (BibTeX `file`, RIS `L1`, Better BibTeX `attachments`, Zotero
`storage/`); those PDFs are read too, so a reference manager's export brings full text where it has it.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from agent.errors import CorpusError
from agent.library.items import Item, ReadResult, arxiv_from_extra, split_authors, year_of
from agent.library.models import BadFileError, LibraryDocument, Skipped
from agent.library.zotero import ZOTERO_DB, read_zotero

PDF_SUFFIXES = (".pdf",)
BIB_SUFFIXES = (".bib", ".bibtex")
RIS_SUFFIXES = (".ris",)
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl",)


# ---------------------------------------------------------------------------------------------- files
def expand(paths: list[Path]) -> tuple[list[Path], list[Skipped]]:
    """Files to read, in order: folders walked (a Zotero data folder is read as one), unknown kinds skipped."""
    files: list[Path] = []
    skipped: list[Skipped] = []
    known = PDF_SUFFIXES + BIB_SUFFIXES + RIS_SUFFIXES + JSON_SUFFIXES + JSONL_SUFFIXES
    for path in paths:
        path = path.expanduser()
        if not path.exists():
            skipped.append(Skipped(path=str(path), reason="no such file or folder"))
        elif path.is_dir() and (path / ZOTERO_DB).exists():
            files.append(path / ZOTERO_DB)
        elif path.is_dir():
            for child in sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ):
                if child.suffix.lower() in known:
                    files.append(child)
        elif path.name == ZOTERO_DB or path.suffix.lower() in known:
            files.append(path)
        else:
            skipped.append(
                Skipped(
                    path=str(path),
                    reason=f"unsupported file type {path.suffix or '(none)'!r}: PDF, .bib, .ris, .json, .jsonl or a "
                    "Zotero folder",
                )
            )
    # bibliographies before PDFs, so a citation key names the document and its metadata comes first
    files = sorted(dict.fromkeys(files), key=lambda f: f.suffix.lower() in PDF_SUFFIXES)
    return files, skipped


def read(path: Path) -> ReadResult:
    """Items of one file; BadFileError when the file as a whole cannot be read."""
    suffix = path.suffix.lower()
    if path.name == ZOTERO_DB:
        return read_zotero(path.parent)
    if suffix in PDF_SUFFIXES:
        return ReadResult(items=[read_pdf(path)])
    if suffix in BIB_SUFFIXES:
        return read_bibtex(path)
    if suffix in RIS_SUFFIXES:
        return read_ris(path)
    if suffix in JSON_SUFFIXES:
        return read_json(path)
    if suffix in JSONL_SUFFIXES:
        return read_jsonl(path)
    raise BadFileError(f"unsupported file type {suffix!r}")


def read_pdf(path: Path) -> Item:
    from agent.library.pdf import parse_pdf

    parsed = parse_pdf(path)
    document = LibraryDocument(
        id="",
        title=parsed.title or path.stem.replace("_", " "),
        authors=parsed.authors,
        year=parsed.year,
        doi=parsed.doi,
        arxiv_id=parsed.arxiv_id,
        abstract=parsed.abstract,
        references=parsed.references,
        kind="pdf",
        files=[str(path.resolve())],
        full_text=True,
        pages=parsed.pages,
        sections=parsed.sections,
        notes=parsed.notes,
    )
    return Item(document=document, parsed=parsed)


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        return path.read_text(encoding="latin-1")


def _attachment_paths(value: str, base: Path) -> list[Path]:
    """PDF paths named by a BibTeX `file` field ('a.pdf', 'Full Text:files/1/a.pdf:application/pdf', ';'-separated)."""
    found = []
    for part in re.split(r";(?=[^:;]*:|[^;]*\.pdf)", value or ""):
        pieces = [p for p in re.split(r"(?<!\\):", part) if p]
        candidates = [p for p in pieces if p.lower().endswith(".pdf")] or (
            [part] if part.lower().endswith(".pdf") else []
        )
        for candidate in candidates:
            path = Path(candidate.replace("\\:", ":").strip()).expanduser()
            found.append(path if path.is_absolute() else base / path)
    return found


def read_bibtex(path: Path) -> ReadResult:
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    logging.getLogger("bibtexparser").setLevel(
        logging.CRITICAL
    )  # broken blocks are reported as skipped entries instead
    text = _text(path)
    try:
        library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    except Exception as exc:
        raise BadFileError(f"broken BibTeX ({type(exc).__name__})") from None
    result = ReadResult()
    for block in library.failed_blocks:
        result.skipped.append(
            Skipped(
                path=f"{path}:{(block.start_line or 0) + 1}",
                reason="broken BibTeX entry (unbalanced braces or a missing comma?)",
            )
        )
    if not library.entries:
        if library.failed_blocks:
            raise BadFileError(
                f"broken BibTeX: none of its {len(library.failed_blocks)} "
                f"entr{'y' if len(library.failed_blocks) == 1 else 'ies'} could be read"
            )
        raise BadFileError("no BibTeX entries in the file")
    for entry in library.entries:
        fields = {k.lower(): str(v.value).strip() for k, v in entry.fields_dict.items()}
        title = " ".join(fields.get("title", "").replace("{", "").replace("}", "").split())
        if not title:
            result.skipped.append(
                Skipped(path=f"{path}:{(entry.start_line or 0) + 1}", reason=f"BibTeX entry {entry.key!r} has no title")
            )
            continue
        arxiv = (
            fields.get("eprint")
            if fields.get("archiveprefix", "").lower() == "arxiv" or "arxiv" in fields.get("journal", "").lower()
            else None
        )
        document = LibraryDocument(
            id="",
            title=title,
            authors=split_authors(fields.get("author", "")),
            year=year_of(fields.get("year") or fields.get("date")),
            venue=fields.get("journal") or fields.get("booktitle"),
            doi=fields.get("doi"),
            arxiv_id=arxiv,
            pmid=fields.get("pmid"),
            abstract=" ".join(fields.get("abstract", "").split()),
            kind="bibtex",
            files=[str(path.resolve())],
        )
        result.items.append(
            Item(document=document, key=entry.key, attachments=_attachment_paths(fields.get("file", ""), path.parent))
        )
    return result


def read_ris(path: Path) -> ReadResult:
    import rispy

    try:
        entries = rispy.loads(_text(path))
    except Exception as exc:
        raise BadFileError(f"broken RIS ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not entries:
        raise BadFileError("no RIS records in the file")
    result = ReadResult()
    for n, entry in enumerate(entries, 1):
        title = entry.get("title") or entry.get("primary_title") or entry.get("translated_title") or ""
        if not title:
            result.skipped.append(Skipped(path=f"{path}#{n}", reason="RIS record has no title"))
            continue
        authors = [a for key in ("authors", "first_authors") for a in entry.get(key) or []]
        attachments = [entry[k] for k in ("file_attachments1", "file_attachments2") if isinstance(entry.get(k), str)]
        document = LibraryDocument(
            id="",
            title=" ".join(title.split()),
            authors=split_authors(" and ".join(authors)),
            year=year_of(entry.get("year") or entry.get("publication_year") or entry.get("date")),
            venue=entry.get("journal_name") or entry.get("secondary_title"),
            doi=entry.get("doi"),
            abstract=" ".join((entry.get("abstract") or "").split()),
            kind="ris",
            files=[str(path.resolve())],
        )
        result.items.append(
            Item(
                document=document,
                attachments=[
                    p if p.is_absolute() else path.parent / p
                    for p in map(Path, attachments)
                    if p.suffix.lower() == ".pdf"
                ],
            )
        )
    return result


def read_json(path: Path) -> ReadResult:
    """Better BibTeX JSON (`{"items": [...]}`, Zotero fields) or CSL JSON (a list of items)."""
    try:
        data = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise BadFileError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        items, kind = data["items"], "zotero"
    elif isinstance(data, list) and all(isinstance(x, dict) for x in data):
        items, kind = data, "csl-json"
    else:
        raise BadFileError(
            "JSON that is neither a Better BibTeX export ({'items': [...]}) nor CSL JSON (a list of items)"
        )
    result = ReadResult()
    for n, raw in enumerate(items, 1):
        if not isinstance(raw, dict):
            result.skipped.append(
                Skipped(path=f"{path}#{n}", reason=f"item is not a JSON object ({type(raw).__name__})")
            )
            continue
        if raw.get("itemType") in ("attachment", "note"):
            continue
        document, key, attachments = _zotero_json_item(raw, path) if kind == "zotero" else _csl_item(raw, path)
        if not document.title:
            result.skipped.append(Skipped(path=f"{path}#{n}", reason="item has no title"))
            continue
        result.items.append(Item(document=document, key=key, attachments=attachments))
    if not result.items and not result.skipped:
        raise BadFileError("no items in the JSON export")
    return result


def _text_of(raw: dict, *keys: str) -> str:
    """The first of `keys` holding text (a number written out), whitespace collapsed; '' when none does: an export
    from another tool may put a list, an object or null where the format has text."""
    for key in keys:
        value = raw.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def _objects(value: object) -> list[dict]:
    """The JSON objects of a list (creators, authors, attachments); anything else in it, or a value that is not a
    list, is no entry."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _zotero_json_item(raw: dict, path: Path) -> tuple[LibraryDocument, str | None, list[Path]]:
    creators = [
        " ".join(x for x in (_text_of(c, "firstName"), _text_of(c, "lastName", "name")) if x)
        for c in _objects(raw.get("creators"))
    ]
    attachments = [
        Path(_text_of(a, "path"))
        for a in _objects(raw.get("attachments"))
        if _text_of(a, "path").lower().endswith(".pdf")
    ]
    document = LibraryDocument(
        id="",
        title=_text_of(raw, "title"),
        authors=[c for c in creators if c],
        year=year_of(raw.get("date")),
        venue=_text_of(raw, "publicationTitle") or None,
        doi=_text_of(raw, "DOI") or None,
        abstract=_text_of(raw, "abstractNote"),
        kind="zotero",
        files=[str(path.resolve())],
        arxiv_id=arxiv_from_extra(_text_of(raw, "extra")),
    )
    return (
        document,
        _text_of(raw, "citationKey", "citekey") or None,
        [a if a.is_absolute() else path.parent / a for a in attachments],
    )


def _csl_item(raw: dict, path: Path) -> tuple[LibraryDocument, str | None, list[Path]]:
    authors = [
        " ".join(x for x in (_text_of(a, "given"), _text_of(a, "family", "literal")) if x)
        for a in _objects(raw.get("author"))
    ]
    issued = raw.get("issued")
    parts = issued.get("date-parts") if isinstance(issued, dict) else None
    first = parts[0] if isinstance(parts, list) and parts else None
    document = LibraryDocument(
        id="",
        title=_text_of(raw, "title"),
        authors=[a for a in authors if a],
        year=year_of(first[0] if isinstance(first, list) and first else None),
        venue=_text_of(raw, "container-title") or None,
        doi=_text_of(raw, "DOI") or None,
        pmid=_text_of(raw, "PMID") or None,
        abstract=_text_of(raw, "abstract"),
        kind="csl-json",
        files=[str(path.resolve())],
    )
    return document, raw.get("id") if isinstance(raw.get("id"), str) else None, []


def read_jsonl(path: Path) -> ReadResult:
    """A JSONL corpus (SciFact, BEIR or generic lines): one abstract document per record, ids kept."""
    from agent.tools.index.corpus_records import load_corpus

    try:
        records = load_corpus(path)
    except CorpusError as exc:
        raise BadFileError(str(exc)) from None
    result = ReadResult()
    for record in records:
        document = LibraryDocument.from_record(
            record, id=record.id, references=record.references, kind="jsonl", files=[str(path.resolve())]
        )
        result.items.append(Item(document=document, record=record, key=record.id))
    return result
