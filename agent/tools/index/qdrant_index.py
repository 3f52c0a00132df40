"""The literature index on Qdrant: the embedded index's hybrid search, for corpora past one machine's memory.

The embedded index (agent.tools.index.local_index) reads every vector and record into RAM and multiplies a query by all
of them: right for SciFact, out of reach for PubMed's 36M abstracts. This one keeps the same two rankings in a Qdrant
collection and lets the server fuse them, so a run searches it exactly as it searches the embedded one:

- sparse BM25: each record's stems from the project's own tokeniser (`bm25_tokenize`: English stopwords, Snowball),
  hashed to 32-bit indices (crc32), weighted tf / (tf + k1 (1 - b + b dl / avgdl)) with bm25s's k1 and b; the
  collection's IDF modifier multiplies in Lucene's idf at query time, as the server's statistics stand. avgdl is
  measured on the first AVGDL_SAMPLE records and fixed in the collection's metadata (a streamed build cannot know the
  whole corpus's before it starts, and resuming must weigh as the first run did);
- dense: all-MiniLM-L6-v2 (384, cosine), stored on disk with an int8 scalar-quantised copy in RAM; a query searches
  the quantised copy with oversampling and rescores with the originals;
- fusion: reciprocal rank over both top-`depth` lists, by the server (the query API's prefetch + RRF), with the
  constant that gives the embedded index's 1 / (60 + rank).

The collection's metadata names the embedder, its dimension and the tokeniser version: an index built with another
is refused when opened or built into, with the reason, instead of answering from vectors that mean something else.

Without a server (`qdrant_path`) the same calls run in-process on Qdrant Edge, the server's own engine
(agent.tools.index.qdrant_edge: HNSW, int8 quantisation and the sparse index as on a server, a folder of millions on one
machine). qdrant-client's local mode (exact search in Python over objects in memory) remains behind `local="client"`,
for the tests of the client calls a server gets.

Building a collection (streaming a corpus in, resumably) is agent.tools.index.qdrant_build's.
"""

from __future__ import annotations

import atexit
import os
import re
import threading
import time
import uuid
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from agent.errors import ConfigurationError, CorpusError
from agent.literature import Record
from agent.tools.index.local_index import bm25_tokenize, file_digest
from agent.tools.models.encoder import DIM, MODEL_NAME, shared_encoder

if TYPE_CHECKING:
    from qdrant_client import QdrantClient
    from qdrant_client.http import models

SCHEMA = 1
TOKENISER = "bm25s-en-stopwords+snowball-english/crc32/lucene-k1.5-b0.75/v1"
"""Changes whenever a document's sparse vector would: the tokeniser, the hashing, the BM25 variant or its constants."""
K1, B = 1.5, 0.75  # bm25s's defaults, which the embedded index uses
RRF_K = 61  # Qdrant adds 1 / (k + rank0) per list; the embedded index 1 / (60 + rank0 + 1)
DENSE, SPARSE = "minilm", "bm25"
META_KEY = "sparkit"
AVGDL_SAMPLE = 10_000
WORDS_CAP = 300_000  # the speller's dictionary: the most frequent words (SciFact has ~40,000)
CITING_CAP = 1_000
API_KEY_ENV = "QDRANT_API_KEY"
_ID_NAMESPACE = uuid.UUID("6f0f6c8e-3b1b-5d2a-9a57-5a7b0c1d2e3f")
_T = TypeVar("_T")


class QdrantLocation(BaseModel):
    """Where a collection lives: a server (`url`, the API key from QDRANT_API_KEY, never a setting) or a folder
    (`path`): Qdrant Edge's (the default) or qdrant-client local mode's (`local="client"`, tests)."""

    collection: str
    url: str | None = None
    path: str | None = None
    local: Literal["edge", "client"] = "edge"
    timeout_s: float = Field(30.0, gt=0)
    retries: int = Field(3, ge=1)

    @property
    def edge(self) -> bool:
        return not self.url and self.local == "edge"

    def describe(self) -> str:
        if self.url:
            return f"Qdrant at {self.url}"
        return f"Qdrant Edge at {self.path}" if self.edge else f"Qdrant local mode at {self.path}"


def default_collection(corpus: Path) -> str:
    """The collection of a corpus when none is named: its file name and, for one file, a digest of its bytes."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", corpus.name.split(".")[0]).strip("-") or "corpus"
    return f"sparkit-{stem}" if corpus.is_dir() else f"sparkit-{stem}-{file_digest(corpus)[:10]}"


def point_id(record_id: str) -> str:
    """The point id of a record id (Qdrant takes integers or UUIDs): a UUID5, the same on every machine."""
    return str(uuid.uuid5(_ID_NAMESPACE, record_id))


def token_index(token: str) -> int:
    return zlib.crc32(token.encode("utf-8"))


def document_sparse(tokens: Iterable[str], avgdl: float) -> tuple[list[int], list[float]]:
    """BM25 document weights of one record's tokens (idf is the server's, at query time). Two stems that hash alike
    (rare: ~1 pair per 10^5 distinct stems) share an index; their weights add."""
    counts = Counter(tokens)
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / avgdl)
    weights: dict[int, float] = {}
    for token, tf in counts.items():
        index = token_index(token)
        weights[index] = weights.get(index, 0.0) + tf / (tf + norm)
    indices = sorted(weights)
    return indices, [weights[i] for i in indices]


def query_sparse(tokens: Iterable[str]) -> tuple[list[int], list[float]]:
    """A query's stems as a sparse vector: each weighs its count (bm25s adds a repeated query term twice)."""
    counts: Counter[int] = Counter(token_index(t) for t in tokens)
    indices = sorted(counts)
    return indices, [float(counts[i]) for i in indices]


def built_with() -> dict[str, Any]:
    """What decides whether a collection's vectors mean what this code's queries mean."""
    return {"schema": SCHEMA, "embedder": MODEL_NAME, "dim": DIM, "tokeniser": TOKENISER}


def incompatibility(meta: dict[str, Any] | None) -> str | None:
    """Why a collection's metadata does not fit this code, or None when it does."""
    if not meta:
        return "it has no SPARKIT metadata (not built by `sparkit index build --engine qdrant`)"
    expected = built_with()
    for key, label in (
        ("embedder", "embedder"),
        ("dim", "vector size"),
        ("tokeniser", "tokeniser"),
        ("schema", "schema"),
    ):
        if meta.get(key) != expected[key]:
            return f"it was built with {label} {meta.get(key)!r}, this SPARKIT uses {expected[key]!r}"
    return None


# ---------------------------------------------------------------------------------------------- the client
def _failure(location: QdrantLocation, what: str, exc: BaseException) -> ConfigurationError:
    """One line naming what failed and how to fix it (an API key never appears: the client does not echo it)."""
    from qdrant_client.http.exceptions import UnexpectedResponse

    if isinstance(exc, UnexpectedResponse) and exc.status_code in (401, 403):
        why = f"refused the API key (HTTP {exc.status_code}): set {API_KEY_ENV} to the server's key"
    elif isinstance(exc, UnexpectedResponse):
        why = f"answered HTTP {exc.status_code} ({exc.reason_phrase}): check the server's log"
    else:
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        fix = "start the server or fix qdrant_url" if location.url else "check qdrant_path"
        why = f"is unreachable ({reason}): {fix}"
    return ConfigurationError(f"{location.describe()} {why} (while {what})")


def _retryable(exc: BaseException) -> bool:
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    if isinstance(exc, UnexpectedResponse):
        return exc.status_code in (429, 500, 502, 503, 504)
    return isinstance(exc, (ResponseHandlingException, ConnectionError, TimeoutError))


def call(location: QdrantLocation, what: str, fn: Callable[[], _T]) -> _T:
    """`fn()` against the server with retries (exponential back-off) on connection errors, 429 and 5xx; any other
    failure, or the last one, becomes a one-line ConfigurationError."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    if location.edge:  # in-process: nothing to retry; the engine's own faults (a corrupt or foreign folder) named
        try:
            return fn()
        except (RuntimeError, OSError) as exc:
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise ConfigurationError(f"{location.describe()} failed ({reason}) (while {what})") from None
    for attempt in range(location.retries):
        try:
            return fn()
        except (ResponseHandlingException, UnexpectedResponse, ConnectionError, TimeoutError) as exc:
            if not _retryable(exc) or attempt + 1 == location.retries:
                raise _failure(location, what, exc) from None
            time.sleep(min(8.0, 0.5 * 2**attempt))
    raise AssertionError("unreachable")


def connect(location: QdrantLocation) -> QdrantClient:
    """A client for the location; a folder another process holds open is refused with the reason. A folder is
    Qdrant Edge's (agent.tools.index.qdrant_edge.EdgeClient, which answers the calls below as a QdrantClient does)."""
    from qdrant_client import QdrantClient

    if location.url:
        client = QdrantClient(
            url=location.url,
            api_key=os.environ.get(API_KEY_ENV) or None,
            timeout=int(location.timeout_s),
            check_compatibility=False,
        )  # its failure is a warning; the next call names the fault
        call(location, "connecting", client.get_collections)
        return client
    if not location.path:
        raise ConfigurationError("the qdrant index needs qdrant_url (a server) or qdrant_path (a folder)")
    key = str(Path(location.path).expanduser().resolve())
    if location.edge:
        return _edge_client(Path(key), location)
    with _local_lock:
        if key not in _local_clients:  # a folder's lock is per open: two backends in one process share one client
            try:
                _local_clients[key] = QdrantClient(path=key)
            except (RuntimeError, OSError) as exc:  # portalocker: the folder is open in another process
                raise ConfigurationError(
                    f"{location.describe()} cannot be opened ({str(exc).splitlines()[0][:160]}); local "
                    "mode allows one process at a time: run a Qdrant server for several"
                ) from None
        return _local_clients[key]


def _edge_client(root: Path, location: QdrantLocation) -> Any:
    from agent.tools.index.qdrant_edge import EdgeClient, local_mode_folder

    if local_mode_folder(root, location.collection):
        raise ConfigurationError(
            f"{location.describe()} holds collection {location.collection!r} in qdrant-client's local mode (the "
            "format before Qdrant Edge): build it again into another --qdrant-path"
        )
    key = f"edge:{root}"
    with _local_lock:
        if key not in _local_clients:
            _local_clients[key] = EdgeClient(root)
        return _local_clients[key]


_local_clients: dict[str, Any] = {}
_local_lock = threading.Lock()


@atexit.register
def _close_local_clients() -> None:
    """Close local-mode folders before the interpreter tears down (the client's own __del__ then fails noisily)."""
    with _local_lock:
        for client in _local_clients.values():
            client.close()
        _local_clients.clear()


def read_metadata(client: QdrantClient, location: QdrantLocation) -> dict[str, Any] | None:
    """The collection's SPARKIT metadata; None when the collection does not exist."""
    if not call(location, "looking the collection up", lambda: client.collection_exists(location.collection)):
        return None
    info = call(location, "reading the collection", lambda: client.get_collection(location.collection))
    meta = (info.config.metadata or {}).get(META_KEY)
    return dict(meta) if isinstance(meta, dict) else {}


# ---------------------------------------------------------------------------------------------- searching
class QdrantIndex:
    """A collection built by `build_qdrant_index`, searched as agent.tools.index.local_index.LocalIndex is
    (SearchIndex)."""

    def __init__(self, client: QdrantClient, location: QdrantLocation, meta: dict[str, Any]):
        self.client = client
        self.location = location
        self.meta = meta
        self.manifest: dict[str, Any] = {
            "engine": "qdrant",
            "collection": location.collection,
            "where": location.describe(),
            "corpus": meta.get("corpus"),
            "corpus_sha256": meta.get("corpus_sha256"),
            "documents": meta.get("documents", 0),
            "model": meta.get("embedder"),
            "dim": meta.get("dim"),
        }

    @classmethod
    def open(cls, location: QdrantLocation, client: QdrantClient | None = None) -> QdrantIndex:
        """The collection, checked: absent, built with another embedder or tokeniser, or half built: CorpusError."""
        client = client or connect(location)
        meta = read_metadata(client, location)
        where = f"collection {location.collection!r} ({location.describe()})"
        if meta is None:
            raise CorpusError(f"{where} does not exist: build it with `sparkit index build --engine qdrant`")
        if (why := incompatibility(meta)) is not None:
            raise CorpusError(f"{where} is refused: {why}; rebuild it into a new collection")
        if not meta.get("complete"):
            raise CorpusError(
                f"{where} is incomplete (its build stopped): rerun `sparkit index build --engine qdrant` to resume it"
            )
        return cls(client, location, meta)

    @property
    def documents(self) -> int:
        return int(self.meta.get("documents", 0))

    @property
    def has_citations(self) -> bool:
        return bool(self.meta.get("has_citations"))

    def word_counts(self) -> dict[str, int]:
        """The corpus's most frequent words (WORDS_CAP) with their counts, counted while it was built."""
        return dict(self.meta.get("words") or {})

    def search(self, query: str, limit: int, *, depth: int = 100) -> list[tuple[Record, float]]:
        return [(record, scores["fused"]) for record, scores in self.search_scored(query, limit, depth=depth)]

    def search_scored(self, query: str, limit: int, *, depth: int = 100) -> list[tuple[Record, dict[str, float]]]:
        """Hybrid search fused by the server, with each hit's reasons as the embedded index gives them: rank, BM25
        score (0 outside BM25's top `depth`), dense cosine, fused score. One round trip: the fused query and the BM25
        list it fused, in one batch."""
        from qdrant_client.http import models

        vector = shared_encoder().encode([query])[0]
        indices, values = query_sparse(bm25_tokenize([query], return_ids=False)[0])
        sparse = models.SparseVector(indices=indices, values=values)
        dense = models.Prefetch(query=vector.tolist(), using=DENSE, limit=depth, params=_search_params())
        prefetch = [models.Prefetch(query=sparse, using=SPARSE, limit=depth), dense] if indices else [dense]
        requests = [
            models.QueryRequest(
                prefetch=prefetch,
                query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
                limit=limit,
                with_payload=True,
                with_vector=[DENSE],
            )
        ]
        if indices:
            requests.append(models.QueryRequest(query=sparse, using=SPARSE, limit=depth, with_payload=False))
        responses = call(
            self.location, "searching", lambda: self.client.query_batch_points(self.location.collection, requests)
        )
        bm25 = {point.id: point.score for point in responses[1].points} if indices else {}
        hits = []
        for rank, point in enumerate(responses[0].points):
            stored = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
            cosine = float(np.asarray(stored, dtype=np.float32) @ vector) if stored is not None else 0.0
            hits.append(
                (
                    Record.model_validate(point.payload),
                    {
                        "rank": rank + 1,
                        "bm25": round(float(bm25.get(point.id, 0.0)), 4),
                        "dense": round(cosine, 4),
                        "fused": round(point.score, 6),
                    },
                )
            )
        return hits

    def records(self, record_ids: list[str]) -> list[Record]:
        """The stored records of these ids, in the order given (unknown ids left out)."""
        if not record_ids:
            return []
        points = call(
            self.location,
            "reading records",
            lambda: self.client.retrieve(
                self.location.collection, ids=[point_id(r) for r in record_ids], with_payload=True, with_vectors=False
            ),
        )
        by_id = {r.id: r for r in (Record.model_validate(p.payload) for p in points)}
        return [by_id[r] for r in record_ids if r in by_id]

    def neighbours(self, record_id: str, limit: int | None = None) -> list[Record]:
        """Referenced records in the collection, then records citing this one (a payload-index lookup)."""
        from qdrant_client.http import models

        found = self.records([record_id])
        if not found:
            return []
        cited = self.records(list(dict.fromkeys(found[0].references)))
        condition = models.Filter(
            must=[models.FieldCondition(key="references", match=models.MatchValue(value=record_id))]
        )
        citing, _ = call(
            self.location,
            "reading citations",
            lambda: self.client.scroll(
                self.location.collection,
                scroll_filter=condition,
                limit=CITING_CAP,
                with_payload=True,
                with_vectors=False,
            ),
        )
        linked = {r.id: r for r in [*cited, *(Record.model_validate(p.payload) for p in citing)]}
        return list(linked.values())[:limit]


def _search_params() -> models.SearchParams:
    from qdrant_client.http import models

    return models.SearchParams(quantization=models.QuantizationSearchParams(rescore=True, oversampling=2.0))
