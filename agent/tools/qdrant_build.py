"""Building the Qdrant literature index: a corpus streamed into a collection in batches, resumable, refused when the
collection was built with another embedder or tokeniser; agent.tools.qdrant_index searches it."""

from __future__ import annotations

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
from agent.tools.encoder import DIM, shared_encoder
from agent.tools.local_index import WORD_PATTERN, bm25_tokenize, file_digest
from agent.tools.qdrant_index import (
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

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


_T = TypeVar("_T")


class BuildReport(BaseModel):
    collection: str
    where: str
    documents: int
    added: int
    skipped: int = Field(description="Records already in the collection (a resumed build), not encoded again.")
    seconds: float


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
    for field in ("id", "references") if location.url else ():  # local mode has no payload indexes (it scans)
        _index_payload(client, location, field)


def _index_payload(client: QdrantClient, location: QdrantLocation, field: str) -> None:
    from qdrant_client.http import models

    call(
        location,
        "indexing payload",
        lambda: client.create_payload_index(location.collection, field, models.PayloadSchemaType.KEYWORD),
    )


def _stored(client: QdrantClient, location: QdrantLocation, ids: list[str]) -> list[Any]:
    """The points of these ids already in the collection (ids only): what a resumed build skips."""
    return call(
        location,
        "checking which records are in",
        lambda: client.retrieve(location.collection, ids=ids, with_payload=False, with_vectors=False),
    )


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
) -> BuildReport:
    """Stream `corpus` (JSONL or PubMed XML, agent.tools.corpus_stream) into the collection, `batch_size` records per
    encoding call and upsert. Resumable: records whose id is already in the collection are skipped, not encoded
    again, so after a crash or Ctrl-C the same command continues where it stopped. A collection built with another
    embedder or tokeniser is refused before anything is written. `records`/`total` replace reading `corpus` (evals)."""
    from qdrant_client.http import models

    from agent.metering import waiting_for
    from agent.terminal import StepProgress, fmt_duration, setup_progress_wanted
    from agent.tools.corpus_stream import count_records, iter_records

    started = time.monotonic()
    stream = iter(records) if records is not None else iter_records(corpus)
    total = total if total is not None else count_records(corpus)
    client = connect(location)
    meta = read_metadata(client, location)
    where = f"collection {location.collection!r} ({location.describe()})"
    if meta is not None and (why := incompatibility(meta)) is not None:
        raise CorpusError(f"{where} is refused: {why}; build into a new collection (--collection NAME)")
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
    digest = file_digest(corpus) if corpus.is_file() else None
    words: Counter[str] = Counter()
    added = skipped = 0
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
                present = {str(p.id) for p in _stored(client, location, ids)}
                fresh = [r for r, i in zip(unique, ids, strict=True) if i not in present]
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
                    added += len(fresh)
                step.advance(len(batch))
    except KeyboardInterrupt:
        print(
            f"interrupted: {before + added:,} records are in {where}; the same command resumes the build",
            file=sys.stderr,
            flush=True,
        )
        raise
    documents = call(location, "counting", lambda: client.count(location.collection, exact=True).count)
    previous = meta.get("corpus_sha256")
    meta = {
        **meta,
        "complete": True,
        "documents": documents,
        "has_citations": bool(meta.get("has_citations")) or cites,
        "words": dict(words.most_common(WORDS_CAP)),
        "corpus": str(corpus.resolve()),
        "corpus_sha256": digest if before == 0 or previous == digest else None,
    }
    _save_metadata(client, location, meta)
    if location.url:
        client.close()
    return BuildReport(
        collection=location.collection,
        where=location.describe(),
        documents=documents,
        added=added,
        skipped=skipped,
        seconds=time.monotonic() - started,
    )


def _estimated_s(documents: int) -> float:
    from agent.tools.local_index import estimated_build_s

    return estimated_build_s(max(0, documents))


def prime_from_embedded(index_dir: Path) -> int:
    """Seed the encoder's cache with an embedded index's vectors (records.jsonl + embeddings.npy), so a Qdrant build of
    the same texts reuses them instead of encoding again; returns how many were read."""
    import json

    from agent.tools.local_index import LocalIndex

    try:
        documents = int(json.loads((index_dir / "manifest.json").read_text(encoding="utf-8")).get("documents", 0))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"no embedded index at {index_dir} to take vectors from ({exc})") from None
    encoder = shared_encoder()
    encoder.cache_size = max(encoder.cache_size, documents + 1_000)
    index = LocalIndex.load(index_dir)  # loading primes the shared encoder's cache with the index's vectors
    return len(index.records)
