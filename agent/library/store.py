"""The library in $SPARKIT_HOME/library: a manifest of documents and one index of their passages, grown in place.

Layout:
    library/manifest.json      {"version", "index": "index-<id>", "documents": [LibraryDocument, ...]}
    library/index-<id>/        a LocalIndex (records.jsonl, embeddings.npy, bm25/, tokens.json, manifest.json)

Adding reuses the vectors and BM25 tokens of every unchanged record (`LocalIndex.updated`), so ten papers added
to a 5,000-abstract library cost seconds, not a rebuild. A commit writes the new index into a fresh folder,
then replaces manifest.json atomically (write, fsync, rename); the previous index is deleted only after that.
An add interrupted at any point leaves the previous manifest pointing at the previous, intact index; leftovers
are removed by the next add. A lock file serialises writers (two `library add` at once would lose one).

Documents are de-duplicated by DOI, arXiv id and normalised title (and by file checksum before a PDF is parsed).
When a PDF arrives for a work known only from a bibliography, the document keeps its id and bibliographic
metadata and gains the PDF's full text (identity.py). A document's index records are its passages (passages.py); the
references parsed from a PDF are resolved against the library (references.py); whether a run searches the
library is searched.py's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent.common.terminal import Progress
from agent.config import sparkit_home
from agent.errors import CorpusError, InputError
from agent.library.identity import combine_documents, unique_id
from agent.library.importers import expand, read
from agent.library.items import Item
from agent.library.models import AddReport, BadFileError, LibraryDocument, Skipped
from agent.library.passages import document_of, document_records
from agent.library.references import with_references
from agent.literature import Record, normalize_doi
from agent.tools.index.local_index import LocalIndex, file_digest
from agent.tools.models.encoder import DIM

LIBRARY_VERSION = 1
MANIFEST = "manifest.json"


def default_library_dir() -> Path:
    return sparkit_home() / "library"


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON to `path` so a reader sees the old file or the new one, never half of either."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class LibraryIndex(LocalIndex):
    """The library's index: the citation hop works per document, not per passage. A passage's neighbours are
    the first record (the abstract) of each library document its paper cites or is cited by."""

    def __init__(self, records: list[Record], bm25: Any, embeddings: np.ndarray, manifest: dict):
        super().__init__(records, bm25, embeddings, manifest)
        self.record_document = {r.id: document_of(r) for r in records}
        self.first_record: dict[str, str] = {}
        for record in records:
            self.first_record.setdefault(self.record_document[record.id], record.id)
        self.cites: dict[str, list[str]] = defaultdict(list)
        self.cited_by: dict[str, list[str]] = defaultdict(list)
        for record in records:
            doc = self.record_document[record.id]
            for ref in record.references:
                target = self.record_document.get(ref)
                if target and target != doc and target not in self.cites[doc]:
                    self.cites[doc].append(target)
                    self.cited_by[target].append(doc)

    @classmethod
    def empty(cls) -> LibraryIndex:
        import bm25s

        return cls([], bm25s.BM25(), np.zeros((0, DIM), dtype=np.float32), {})

    def neighbours(self, record_id: str, limit: int | None = None) -> list[Record]:
        doc = self.record_document.get(record_id)
        if doc is None:
            return []
        docs = list(dict.fromkeys([*self.cites.get(doc, []), *self.cited_by.get(doc, [])]))
        return [self.by_id[self.first_record[d]] for d in docs if d in self.first_record][:limit]


class Library:
    """A user's library under `root` (default $SPARKIT_HOME/library)."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root).expanduser() if root else default_library_dir()
        self._corpora: list[Path] = []  # JSONL corpora read by the add under way

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    # ------------------------------------------------------------------ reading
    def _manifest(self) -> dict:
        if not self.manifest_path.exists():
            return {"version": LIBRARY_VERSION, "index": None, "documents": []}
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CorpusError(f"library manifest {self.manifest_path} is unreadable ({type(exc).__name__})") from None
        if data.get("version") != LIBRARY_VERSION:
            raise CorpusError(f"library at {self.root} has version {data.get('version')}, expected {LIBRARY_VERSION}")
        return data

    def documents(self) -> list[LibraryDocument]:
        return [LibraryDocument.model_validate(d) for d in self._manifest()["documents"]]

    def exists(self) -> bool:
        """True when the library has at least one document."""
        return self.manifest_path.exists() and bool(self._manifest()["documents"])

    def stamp(self) -> str:
        """Changes whenever the library does (for caches of its loaded index)."""
        try:
            stat = self.manifest_path.stat()
        except FileNotFoundError:
            return "none"
        return f"{stat.st_mtime_ns}-{stat.st_size}"

    def index(self) -> LibraryIndex | None:
        """The loaded index, or None for an empty library."""
        name = self._manifest().get("index")
        return LibraryIndex.load(self.root / name) if name else None

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _cleanup(self, keep: str | None) -> None:
        """Remove index folders no manifest points at (left by an interrupted add) and stray temporary files."""
        for path in self.root.iterdir():
            if path.is_dir() and (
                path.name.startswith(".building-") or (path.name.startswith("index-") and path.name != keep)
            ):
                shutil.rmtree(path, ignore_errors=True)
            elif path.is_file() and path.name.startswith(f".{MANIFEST}.") and path.name.endswith(".tmp"):
                path.unlink(missing_ok=True)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[tuple[dict, dict[str, LibraryDocument]]]:
        """Under the lock: the manifest and its documents by id, leftovers of an interrupted add removed."""
        with self._locked():
            manifest = self._manifest()
            self._cleanup(manifest.get("index"))
            yield manifest, {d["id"]: LibraryDocument.model_validate(d) for d in manifest["documents"]}

    def add(self, paths: Sequence[Path | str], *, progress: Progress | None = None) -> AddReport:
        """Add files and folders; bad files are skipped with a reason, the rest committed at once."""
        progress = progress or Progress(enabled=False)
        started = time.monotonic()
        report = AddReport()
        with self._transaction() as (manifest, docs):
            files, skipped = expand([Path(p) for p in paths])
            report.skipped += skipped
            items = self._read(files, docs, report, progress)
            report.timings["reading"] = round(time.monotonic() - started, 3)
            self._apply(manifest, docs, items, report, progress)
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def add_items(self, items: list[Item], *, progress: Progress | None = None) -> AddReport:
        """Add documents already read (fetched records, for instance)."""
        started = time.monotonic()
        report = AddReport()
        with self._transaction() as (manifest, docs):
            self._apply(manifest, docs, items, report, progress or Progress(enabled=False))
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def remove(self, ids: list[str], *, progress: Progress | None = None) -> list[str]:
        """Remove documents by library id (or DOI); returns the ids removed. Unknown ids raise InputError."""
        with self._transaction() as (manifest, docs):
            by_doi = {d.doi: d.id for d in docs.values() if d.doi}
            chosen = [i if i in docs else by_doi.get(normalize_doi(i) or "", i) for i in ids]
            unknown = [i for i, c in zip(ids, chosen) if c not in docs]
            if unknown:
                raise InputError(f"not in the library: {', '.join(unknown[:5])}")
            for doc_id in chosen:
                docs.pop(doc_id, None)
            index = self._load(manifest)
            records = [r for r in (index.records if index else []) if document_of(r) in docs]
            self._commit(docs, with_references(docs, records), index, progress or Progress(enabled=False))
        return list(dict.fromkeys(chosen))

    def _load(self, manifest: dict) -> LibraryIndex | None:
        return LibraryIndex.load(self.root / manifest["index"]) if manifest.get("index") else None

    def _read(
        self, files: list[Path], docs: dict[str, LibraryDocument], report: AddReport, progress: Progress
    ) -> list[Item]:
        known = {sha: doc.id for doc in docs.values() for sha in doc.file_sha256}
        items: list[Item] = []
        with progress.task("reading", len(files)) as bar:
            for path in files:
                sha = ""
                try:
                    if path.suffix.lower() == ".pdf":
                        sha = file_digest(path)
                        if sha in known:
                            report.duplicates.append(known[sha])
                            continue
                    result = read(path)
                    if path.suffix.lower() == ".jsonl":
                        self._corpora.append(path)  # its indexed vectors are read only if something needs encoding
                except BadFileError as exc:
                    report.skipped.append(Skipped(path=str(path), reason=str(exc)))
                    continue
                except OSError as exc:
                    report.skipped.append(
                        Skipped(path=str(path), reason=f"cannot read it ({exc.strerror or type(exc).__name__})")
                    )
                    continue
                finally:
                    bar.advance(detail=path.name)
                for item in result.items:
                    if item.parsed is not None:
                        item.document.file_sha256 = [sha]
                        known[sha] = "(this add)"
                    self._attach(item, report, known)
                items += result.items
                report.skipped += result.skipped
        return items

    @staticmethod
    def _attach(item: Item, report: AddReport, known: dict[str, str]) -> None:
        """Read the first readable PDF attachment of a bibliography entry into the item."""
        for pdf in item.attachments:
            if not pdf.exists():
                report.notes.append(f"{item.document.title[:60]}: attachment not found: {pdf}")
                continue
            try:
                sha = file_digest(pdf)
                if sha in known:
                    continue  # read on its own in this add (or already in the library): merged by DOI/title
                from agent.library.pdf import parse_pdf

                item.parsed = parse_pdf(pdf)
            except BadFileError as exc:
                report.skipped.append(Skipped(path=str(pdf), reason=str(exc)))
                continue
            known[sha] = "(this add)"
            document = item.document
            item.document = document.model_copy(
                update={
                    "full_text": True,
                    "pages": item.parsed.pages,
                    "sections": item.parsed.sections,
                    "notes": item.parsed.notes,
                    "references": document.references or item.parsed.references,
                    "abstract": document.abstract or item.parsed.abstract,
                    "doi": document.doi or item.parsed.doi,
                    "files": [*document.files, str(pdf.resolve())],
                    "file_sha256": [sha],
                }
            )
            return

    def _apply(
        self, manifest: dict, docs: dict[str, LibraryDocument], items: list[Item], report: AddReport, progress: Progress
    ) -> None:
        index = self._load(manifest)
        old_records: dict[str, list[Record]] = defaultdict(list)
        for record in index.records if index else []:
            old_records[document_of(record)].append(record)
        rebuild: dict[str, Item | None] = {}
        key_to_id = {key: doc.id for doc in docs.values() for key in doc.dedupe_keys()}
        for item in items:
            incoming = item.document
            existing = next(
                (
                    key_to_id[k]
                    for k in incoming.dedupe_keys()
                    if k in key_to_id and docs[key_to_id[k]].may_be(incoming)
                ),
                None,
            )
            if existing is None and item.record is not None and item.record.id in docs:
                existing = item.record.id
            if existing is None:
                doc_id = incoming.id = unique_id(item, docs)
                docs[doc_id] = incoming
                rebuild[doc_id] = item
                report.added.append(doc_id)
            else:
                doc_id = existing
                old = docs[existing]
                merged, full_text_arrives = combine_documents(old, incoming, item)
                if full_text_arrives:
                    rebuild[existing] = item
                elif merged.model_dump(exclude={"files", "file_sha256", "added_at"}) == old.model_dump(
                    exclude={"files", "file_sha256", "added_at"}
                ):
                    report.duplicates.append(existing)
                    docs[existing] = merged
                    continue
                else:
                    rebuild.setdefault(existing, None)
                docs[existing] = merged
                if existing not in report.added and existing not in report.updated:
                    report.updated.append(existing)
            for key in docs[doc_id].dedupe_keys():
                key_to_id.setdefault(key, doc_id)
        corpora, self._corpora = self._corpora, []
        if not rebuild:
            report.documents = len(docs)
            return
        for corpus in corpora:  # loading a corpus's index costs seconds: only when something is to be encoded
            _reuse_corpus_vectors(corpus)
        records: list[Record] = []
        for doc_id, doc in docs.items():
            records += (
                document_records(doc, rebuild[doc_id], old_records.get(doc_id, []))
                if doc_id in rebuild
                else old_records.get(doc_id, [])
            )
        for doc_id in report.added + report.updated:
            for note in docs[doc_id].notes:
                report.notes.append(f"{doc_id}: {note}")
        report.passages_added = self._commit(docs, with_references(docs, records), index, progress, report.timings)
        report.documents = len(docs)

    def _commit(
        self,
        docs: dict[str, LibraryDocument],
        records: list[Record],
        index: LibraryIndex | None,
        progress: Progress,
        timings: dict[str, float] | None = None,
    ) -> int:
        """Write the new index and then the manifest (atomically); returns how many records were new or changed."""
        counts: dict[str, int] = defaultdict(int)
        for record in records:
            counts[document_of(record)] += 1
        for doc_id, doc in docs.items():
            doc.passages = counts.get(doc_id, 0)
        name, changed = None, 0
        if records:
            changed = sum(
                1 for r in records if index is None or r.id not in index.by_id or index.by_id[r.id].text != r.text
            )
            progress.line(f"indexing: {changed} new or changed passage(s), {len(records)} in all")
            started = time.monotonic()
            updated = (index or LibraryIndex.empty()).updated(
                records, {"corpus": "<library>", "library": str(self.root)}, progress=progress.enabled
            )
            indexed = time.monotonic()
            name = f"index-{uuid.uuid4().hex[:10]}"
            updated.save(self.root / name)
        write_json_atomic(
            self.manifest_path,
            {
                "version": LIBRARY_VERSION,
                "index": name,
                "documents": [
                    d.model_dump(exclude_defaults=True) | {"id": d.id, "kind": d.kind} for d in docs.values()
                ],
            },
        )
        self._cleanup(name)
        if timings is not None and records:
            timings["indexing"] = round(indexed - started, 3)
            timings["writing"] = round(time.monotonic() - indexed, 3)
        return changed

    # ------------------------------------------------------------------ queries
    def search(self, query: str, limit: int = 10) -> list[tuple[Record, float]]:
        index = self.index()
        if index is None:
            return []
        return index.search(query, limit)

    def stats(self) -> dict:
        docs = self.documents()
        manifest = self._manifest()
        index_dir = self.root / manifest["index"] if manifest.get("index") else None
        size = (
            sum(p.stat().st_size for p in index_dir.rglob("*") if p.is_file())
            if index_dir and index_dir.exists()
            else 0
        )
        kinds: dict[str, int] = defaultdict(int)
        for doc in docs:
            kinds[doc.kind] += 1
        return {
            "library": str(self.root),
            "documents": len(docs),
            "full_text": sum(d.full_text for d in docs),
            "abstract_only": sum(not d.full_text for d in docs),
            "passages": sum(d.passages for d in docs),
            "pages": sum(d.pages or 0 for d in docs),
            "by_kind": dict(sorted(kinds.items())),
            "with_references": sum(bool(d.references) for d in docs),
            "index_bytes": size,
        }


# ---------------------------------------------------------------------------------------------- helpers
def _reuse_corpus_vectors(corpus: Path) -> None:
    """When `sparkit index build` (or a first `sparkit ask`) already indexed this corpus, load that index: it primes
    the encoder's cache with its vectors, so adding the corpus to the library encodes nothing it already has."""
    from agent.tools.index.local_index import default_index_dir

    index_dir = default_index_dir(corpus, sparkit_home())
    if (index_dir / "manifest.json").exists():
        with contextlib.suppress(CorpusError):
            LocalIndex.load(index_dir)
