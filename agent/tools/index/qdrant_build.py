"""Building the Qdrant literature index: a corpus streamed into a collection in batches, resumable, refused when the
collection was built with another embedder or tokeniser; agent.tools.index.qdrant_index searches it.

Idempotent (issue 46): a complete collection of the same corpus digest is left alone (nothing is read or encoded); a
changed corpus updates the collection in place (new and edited records encoded, removed ones deleted); `force` drops
the collection and builds it again."""

from __future__ import annotations

import hashlib
import itertools
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field

from agent.errors import CorpusError
from agent.literature import Record
from agent.tools.index.local_index import WORD_PATTERN, bm25_tokenize, file_digest
from agent.tools.index.qdrant_index import (
    AVGDL_SAMPLE,
    DENSE,
    META_KEY,
    SPARSE,
    WORDS_CAP,
    QdrantLocation,
    built_with,
    call,
    connect,
    document_sparse,
    incompatibility,
    point_id,
    read_metadata,
)
from agent.tools.models.encoder import DIM, shared_encoder

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


_T = TypeVar("_T")


class BuildReport(BaseModel):
    collection: str
    where: str
    documents: int
    added: int
    skipped: int = Field(description="Records already in the collection, unchanged, not encoded again.")
    edited: int = Field(0, description="Records in the collection whose content changed: encoded again.")
    removed: int = Field(0, description="Records in the collection no longer in the corpus: deleted.")
    up_to_date: bool = Field(False, description="The collection was complete and of this corpus digest: nothing done.")
    updated: bool = Field(False, description="A complete collection of another digest was brought up to date.")
    seconds: float

    def line(self) -> str:
        """What the build did, in one line."""
        where = f"collection {self.collection} ({self.where})"
        if self.up_to_date:
            return (
                f"{where} is up to date ({self.documents:,} documents; corpus digest, encoder and tokeniser match): "
                f"nothing to do ({self.seconds:.1f} s; --force rebuilds)"
            )
        if self.updated:
            return (
                f"updated {where}: {self.added:,} new, {self.edited:,} edited, {self.removed:,} removed record(s); "
                f"{self.skipped:,} unchanged; {self.documents:,} documents in {self.seconds:.1f} s"
            )
        return f"indexed {self.documents:,} documents ({self.added:,} added, {self.skipped:,} already there): {where}"


def corpus_digest(corpus: Path) -> str:
    """A file's sha256; for a folder, the sha256 of its corpus files' names, sizes and modification times (reading
    a PubMed baseline's gigabytes to learn it did not change would cost what it saves)."""
    from agent.tools.index.corpus_stream import corpus_files

    if corpus.is_file():
        return file_digest(corpus)
    digest = hashlib.sha256(b"folder:")
    for path in corpus_files(corpus):
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _batches(items: Iterator[_T], size: int) -> Iterator[list[_T]]:
    while batch := list(itertools.islice(items, size)):
        yield batch


def _create(client: QdrantClient, location: QdrantLocation, meta: dict[str, Any], shards: int, replicas: int) -> None:
    from qdrant_client.http import models

    name = location.collection
    quantisation = models.ScalarQuantization(
        scalar=models.ScalarQuantizationConfig(type=models.ScalarType.INT8, quantile=0.99, always_ram=True)
    )
    call(
        location,
        "creating the collection",
        lambda: client.create_collection(
            name,
            vectors_config={DENSE: models.VectorParams(size=DIM, distance=models.Distance.COSINE, on_disk=True)},
            sparse_vectors_config={
                SPARSE: models.SparseVectorParams(
                    modifier=models.Modifier.IDF, index=models.SparseIndexParams(on_disk=True)
                )
            },
            quantization_config=quantisation,
            shard_number=shards,
            replication_factor=replicas,
            metadata={META_KEY: meta},
        ),
    )
    for field in ("id", "references") if location.url or location.edge else ():  # local mode scans instead
        _index_payload(client, location, field)


def _index_payload(client: QdrantClient, location: QdrantLocation, field: str) -> None:
    from qdrant_client.http import models

    call(
        location,
        "indexing payload",
        lambda: client.create_payload_index(location.collection, field, models.PayloadSchemaType.KEYWORD),
    )


def _stored(client: QdrantClient, location: QdrantLocation, ids: list[str]) -> dict[str, Any]:
    """Point id -> payload of the points of these ids already in the collection: what a build skips when unchanged."""
    points = call(
        location,
        "checking which records are in",
        lambda: client.retrieve(location.collection, ids=ids, with_payload=True, with_vectors=False),
    )
    return {str(p.id): p.payload for p in points}


def _remove_others(client: QdrantClient, location: QdrantLocation, keep: set[str]) -> int:
    """Delete the points whose id is not in `keep` (records the corpus no longer has); returns how many."""
    from qdrant_client.http import models

    def page(offset: Any) -> tuple[list[Any], Any]:
        return call(
            location,
            "listing the records",
            lambda: client.scroll(
                location.collection, limit=1_000, offset=offset, with_payload=False, with_vectors=False
            ),
        )

    def delete(ids: list[Any]) -> None:
        selector = models.PointIdsList(points=ids)
        call(location, "deleting removed records", lambda: client.delete(location.collection, selector, wait=True))

    removed, offset = 0, None
    while True:
        points, offset = page(offset)
        gone = [p.id for p in points if str(p.id) not in keep]
        if gone:
            delete(gone)
            removed += len(gone)
        if offset is None:
            return removed


def _write(client: QdrantClient, location: QdrantLocation, points: list[Any]) -> None:
    """Upsert one batch and wait until it is stored: a resumed build trusts what the collection says it holds."""
    call(location, "writing records", lambda: client.upsert(location.collection, points, wait=True))


def _save_metadata(client: QdrantClient, location: QdrantLocation, meta: dict[str, Any]) -> None:
    call(
        location,
        "saving the collection's metadata",
        lambda: client.update_collection(location.collection, metadata={META_KEY: meta}),
    )


def build_qdrant_index(
    corpus: Path,
    location: QdrantLocation,
    *,
    batch_size: int = 256,
    progress: bool | None = None,
    shards: int = 1,
    replicas: int = 1,
    records: Iterable[Record] | None = None,
    total: int | None = None,
    force: bool = False,
) -> BuildReport:
    """Stream `corpus` (JSONL or PubMed XML, agent.tools.index.corpus_stream) into the collection, `batch_size` records
    per encoding call and upsert. Resumable: records whose id is already in the collection are skipped, not encoded
    again, so after a crash or Ctrl-C the same command continues where it stopped. A collection built with another
    embedder or tokeniser is refused before anything is written. A complete collection of this corpus digest is left
    alone; one of another digest is updated: edited records are encoded again, records no longer in the corpus are
    deleted. `force` drops the collection first. `records`/`total` replace reading `corpus` (evals)."""
    from qdrant_client.http import models

    from agent.common.terminal import StepProgress, fmt_duration, setup_progress_wanted
    from agent.metering import waiting_for
    from agent.tools.index.corpus_stream import count_records, iter_records

    started = time.monotonic()
    client = connect(location)
    meta = read_metadata(client, location)
    where = f"collection {location.collection!r} ({location.describe()})"
    if meta is not None and force:
        call(location, "dropping the collection", lambda: client.delete_collection(location.collection))
        meta = None
    if meta is not None and (why := incompatibility(meta)) is not None:
        raise CorpusError(f"{where} is refused: {why}; build into a new collection (--collection NAME)")
    digest = corpus_digest(corpus) if records is None and corpus.exists() else None
    updating = meta is not None and bool(meta.get("complete"))
    if updating and meta is not None and digest is not None and meta.get("corpus_sha256") == digest:
        documents = int(meta.get("documents") or 0)
        return BuildReport(
            collection=location.collection,
            where=location.describe(),
            documents=documents,
            added=0,
            skipped=documents,
            up_to_date=True,
            seconds=time.monotonic() - started,
        )
    stream = iter(records) if records is not None else iter_records(corpus)
    total = total if total is not None else count_records(corpus)
    before = 0
    if meta is None:
        head = list(itertools.islice(stream, AVGDL_SAMPLE))
        if not head:
            raise CorpusError(f"corpus is empty: {corpus}")
        lengths = [len(t) for t in bm25_tokenize([r.text for r in head], return_ids=False)]
        meta = {**built_with(), "avgdl": max(1.0, sum(lengths) / len(lengths)), "complete": False, "documents": 0}
        _create(client, location, meta, shards, replicas)
        stream = itertools.chain(head, stream)
    else:
        before = call(location, "counting", lambda: client.count(location.collection, exact=True).count)
        meta = {**meta, "complete": False}
        _save_metadata(client, location, meta)
    words: Counter[str] = Counter()
    added = skipped = edited = 0
    seen: set[str] = set()
    cites = False
    start = (
        f"building the Qdrant index of {corpus} ({total:,} records) into {where}: about "
        f"{fmt_duration(_estimated_s(total - before))}; if it stops, the same command resumes it ..."
    )
    step = StepProgress(
        "indexing", total, start=start, done=f"indexed {total:,} records in {{elapsed}}: {where}", enabled=progress
    )
    if before and setup_progress_wanted(progress):
        print(
            f"resuming: {before:,} records are already in {where}; they are skipped, not encoded again",
            file=sys.stderr,
            flush=True,
        )
    encoder = shared_encoder()
    try:
        with (
            waiting_for(
                f"building the Qdrant index ({total:,} records)", reports_progress=setup_progress_wanted(progress)
            ),
            step,
        ):
            for batch in _batches(stream, batch_size):
                unique = list({r.id: r for r in reversed(batch)}.values())[
                    ::-1
                ]  # first of an id wins, as in the embedded index
                for record in unique:
                    words.update(w.lower() for w in WORD_PATTERN.findall(record.text))
                    cites = cites or bool(record.references)
                ids = [point_id(r.id) for r in unique]
                seen.update(ids)
                present = _stored(client, location, ids)
                payloads = [r.model_dump(mode="json", exclude_defaults=True) for r in unique]
                fresh = [r for r, i, p in zip(unique, ids, payloads, strict=True) if present.get(i) != p]
                changed = sum(1 for i, p in zip(ids, payloads, strict=True) if i in present and present[i] != p)
                edited += changed
                skipped += len(unique) - len(fresh)
                if fresh:
                    texts = [r.text for r in fresh]
                    vectors = encoder.encode(texts, bulk=True)
                    tokens = bm25_tokenize(texts, return_ids=False)
                    points = []
                    for record, vector, toks in zip(fresh, vectors, tokens, strict=True):
                        indices, values = document_sparse(toks, meta["avgdl"])
                        points.append(
                            models.PointStruct(
                                id=point_id(record.id),
                                payload=record.model_dump(mode="json", exclude_defaults=True),
                                vector={
                                    DENSE: vector.tolist(),
                                    SPARSE: models.SparseVector(indices=indices, values=values),
                                },
                            )
                        )
                    _write(client, location, points)
                    added += len(fresh) - changed
                step.advance(len(batch))
    except KeyboardInterrupt:
        print(
            f"interrupted: {before + added:,} records are in {where}; the same command resumes the build",
            file=sys.stderr,
            flush=True,
        )
        raise
    removed = _remove_others(client, location, seen) if before else 0  # the whole corpus was read: the rest is gone
    documents = call(location, "counting", lambda: client.count(location.collection, exact=True).count)
    meta = {
        **meta,
        "complete": True,
        "documents": documents,
        "has_citations": cites,
        "words": dict(words.most_common(WORDS_CAP)),
        "corpus": str(corpus.resolve()),
        "corpus_sha256": digest,  # every record was compared with the corpus: the collection is this digest's
    }
    if location.edge:  # a server builds its HNSW graph in the background; in-process it is built now, once
        edge_client: Any = client  # agent.tools.index.qdrant_edge.EdgeClient, which has what a server does unasked
        call(location, "building the search graph", lambda: edge_client.optimize(location.collection))
    _save_metadata(client, location, meta)
    if location.url:
        client.close()
    return BuildReport(
        collection=location.collection,
        where=location.describe(),
        documents=documents,
        added=added,
        skipped=skipped,
        edited=edited,
        removed=removed,
        updated=updating,
        seconds=time.monotonic() - started,
    )


def _estimated_s(documents: int) -> float:
    from agent.tools.index.local_index import estimated_build_s

    return estimated_build_s(max(0, documents))


def prime_from_embedded(index_dir: Path) -> int:
    """Seed the encoder's cache with an embedded index's vectors (records.jsonl + embeddings.npy), so a Qdrant build of
    the same texts reuses them instead of encoding again; returns how many were read."""
    import json

    from agent.tools.index.local_index import LocalIndex

    try:
        documents = int(json.loads((index_dir / "manifest.json").read_text(encoding="utf-8")).get("documents", 0))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"no embedded index at {index_dir} to take vectors from ({exc})") from None
    encoder = shared_encoder()
    encoder.cache_size = max(encoder.cache_size, documents + 1_000)
    index = LocalIndex.load(index_dir)  # loading primes the shared encoder's cache with the index's vectors
    return len(index.records)
