"""A Qdrant folder without a server: Qdrant Edge (qdrant-edge-py), the server's own segment engine in-process, behind
the few QdrantClient calls agent.tools.index.qdrant_index and agent.tools.index.qdrant_build make.

qdrant-client's local mode was the only serverless Qdrant before: exact search in Python, the whole collection held
as Python objects (42 KB per record to serve, 4.5 GB at 100,000) and scanned per query, one SQLite commit per point;
a million records did not fit (evals/HISTORY.md, issue 37). Qdrant Edge runs the engine a server runs (HNSW over the
int8-quantised vectors, the sparse inverted index, mmap'd storage) inside the process, so a folder holds millions on
one machine. The search and build code stay the server's: this module translates their qdrant-client requests
(points, prefetch + RRF queries, filters) into Edge's and its answers back into the shapes qdrant-client returns, and
keeps what Edge has not: the collection's metadata (a JSON file beside the shard, written atomically) and a lock, so
one process at a time opens a folder, as in local mode.

Layout: `<qdrant_path>/<collection>/shard/` (Edge's files) and `<qdrant_path>/<collection>/sparkit.json`.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agent.errors import ConfigurationError
from agent.tools.models.encoder import DIM

SHARD_DIR, META_FILE, LOCK_FILE = "shard", "sparkit.json", ".lock"
HNSW_M, HNSW_EF_CONSTRUCT = 16, 100  # Qdrant's defaults: the server's collection gets the same graph
FULL_SCAN_KB = 10_000  # below this many KB of vectors a segment is searched exactly (Qdrant's default)


def edge_available() -> bool:
    try:
        import qdrant_edge  # noqa: F401
    except ImportError:
        return False
    return True


def _edge() -> Any:
    try:
        import qdrant_edge
    except ImportError:
        raise ConfigurationError(
            "a Qdrant folder (qdrant_path) needs Qdrant Edge: pip install -e '.[qdrant]' (qdrant-edge-py)"
        ) from None
    return qdrant_edge


def _config(dense: str, sparse: str) -> Any:
    """The collection the server path creates (agent.tools.index.qdrant_build._create), as an Edge shard: MiniLM cosine
    vectors on disk with an int8 copy in RAM, an HNSW graph, a sparse BM25 index with the IDF modifier."""
    qe = _edge()
    return qe.EdgeConfig(
        vectors={dense: qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine, memory=qe.Memory.Cold)},
        sparse_vectors={sparse: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        quantization_config=qe.ScalarQuantizationConfig(
            type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Pinned
        ),
        hnsw_config=qe.HnswIndexConfig(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=FULL_SCAN_KB),
    )


class EdgeClient:
    """The QdrantClient methods SPARKIT calls, over one folder of Edge shards (one per collection). Not thread-safe
    for writes; reads from several threads are Edge's to serialise."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._lock_handle = (root / LOCK_FILE).open("a+")
        try:
            fcntl.flock(self._lock_handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_handle.close()
            raise ConfigurationError(
                f"Qdrant Edge at {root} cannot be opened (another process holds it); a folder allows one process at "
                "a time: run a Qdrant server for several"
            ) from None
        self._shards: dict[str, Any] = {}
        self._guard = threading.Lock()

    # ------------------------------------------------------------------------------------------ collections
    def _folder(self, name: str) -> Path:
        return self.root / name

    def collection_exists(self, name: str) -> bool:
        return (self._folder(name) / SHARD_DIR).is_dir()

    def _shard(self, name: str) -> Any:
        with self._guard:
            if name not in self._shards:
                try:
                    self._shards[name] = _edge().EdgeShard.load(str(self._folder(name) / SHARD_DIR))
                except (OSError, RuntimeError, ValueError) as exc:
                    raise ConfigurationError(
                        f"Qdrant Edge at {self.root} cannot open collection {name!r} ({_first_line(exc)}): "
                        "rebuild it with `sparkit index build --engine qdrant --force`"
                    ) from None
            return self._shards[name]

    def get_collection(self, name: str) -> Any:
        """Its metadata as a server returns it; a shard SPARKIT did not build has none ({})."""
        meta_file = self._folder(name) / META_FILE
        meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
        return SimpleNamespace(config=SimpleNamespace(metadata=meta))

    def create_collection(
        self,
        name: str,
        vectors_config: Any,
        sparse_vectors_config: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        **server_only: Any,
    ) -> None:
        """A new shard with the server's collection shape; the qdrant-client configs only name the vectors (the
        shape is `_config`'s), and shards, replicas and the like mean nothing in one folder."""
        dense = next(iter(vectors_config)) if isinstance(vectors_config, dict) else ""
        sparse = next(iter(sparse_vectors_config or {"bm25": None}))
        folder = self._folder(name)
        folder.mkdir(parents=True, exist_ok=True)
        shard = _edge().EdgeShard.create(str(folder / SHARD_DIR), _config(dense, sparse))
        with self._guard:
            self._shards[name] = shard
        if metadata is not None:
            self.update_collection(name, metadata=metadata)

    def update_collection(self, name: str, *, metadata: dict[str, Any]) -> None:
        """The metadata file replaced atomically: a crash leaves the old or the new one, never half of one."""
        folder = self._folder(name)
        fd, tmp = tempfile.mkstemp(prefix=".meta-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(metadata, handle)
        os.replace(tmp, folder / META_FILE)

    def delete_collection(self, name: str) -> None:
        with self._guard:
            shard = self._shards.pop(name, None)
        if shard is not None:
            shard.close()
        shutil.rmtree(self._folder(name), ignore_errors=True)

    def create_payload_index(self, name: str, field: str, schema: Any) -> None:
        qe = _edge()
        self._shard(name).update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))

    # ------------------------------------------------------------------------------------------ points
    def upsert(self, name: str, points: list[Any], wait: bool = True) -> None:
        """Write and flush, so a resumed build trusts what the shard says it holds (`wait=True` on a server)."""
        qe = _edge()
        shard = self._shard(name)
        shard.update(qe.UpdateOperation.upsert_points([_point(p) for p in points]))
        shard.flush()

    def delete(self, name: str, selector: Any, wait: bool = True) -> None:
        shard = self._shard(name)
        shard.update(_edge().UpdateOperation.delete_points(list(selector.points)))
        shard.flush()

    def retrieve(self, name: str, ids: list[str], with_payload: bool = True, with_vectors: bool = False) -> list[Any]:
        return list(self._shard(name).retrieve(list(ids), with_payload=with_payload, with_vector=with_vectors))

    def count(self, name: str, exact: bool = True) -> Any:
        return SimpleNamespace(count=int(self._shard(name).count(_edge().CountRequest(exact=exact))))

    def scroll(
        self,
        name: str,
        scroll_filter: Any = None,
        limit: int = 10,
        offset: Any = None,
        with_payload: bool = True,
        with_vectors: bool = False,
    ) -> tuple[list[Any], Any]:
        request = _edge().ScrollRequest(
            offset=offset,
            limit=limit,
            filter=_filter(scroll_filter),
            with_payload=with_payload,
            with_vector=with_vectors,
        )
        points, next_offset = self._shard(name).scroll(request)
        return list(points), next_offset

    def query_batch_points(self, name: str, requests: list[Any]) -> list[Any]:
        shard = self._shard(name)
        return [SimpleNamespace(points=list(shard.query(_query_request(r)))) for r in requests]

    def optimize(self, name: str) -> bool:
        """Build the HNSW graph and merge segments now (a server does it in the background); True if it did."""
        return bool(self._shard(name).optimize())

    def close(self) -> None:
        with self._guard:
            shards, self._shards = list(self._shards.values()), {}
        for shard in shards:
            shard.close()
        if not self._lock_handle.closed:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            self._lock_handle.close()


# ---------------------------------------------------------------------------------------------- translation
def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return text


def _vector(value: Any) -> Any:
    """A qdrant-client vector (a float list or models.SparseVector) as Edge's."""
    if hasattr(value, "indices"):
        return _edge().SparseVector(list(value.indices), list(value.values))
    return list(value)


def _point(point: Any) -> Any:
    vector = {name: _vector(v) for name, v in point.vector.items()}
    return _edge().Point(id=str(point.id), vector=vector, payload=point.payload)


def _params(params: Any) -> Any:
    if params is None:
        return None
    qe = _edge()
    quantization = params.quantization
    return qe.SearchParams(
        hnsw_ef=params.hnsw_ef,
        exact=bool(params.exact),
        quantization=qe.QuantizationSearchParams(rescore=quantization.rescore, oversampling=quantization.oversampling)
        if quantization is not None
        else None,
    )


def _scoring(query: Any, using: str | None) -> Any:
    """qdrant-client's query (an RrfQuery, a sparse vector or a dense list) as Edge's scoring query."""
    qe = _edge()
    if query is None:
        return None
    if hasattr(query, "rrf"):
        return qe.Fusion.Rrf(k=int(query.rrf.k))
    return qe.Query.Nearest(_vector(query), using=using)


def _prefetch(prefetch: Any) -> Any:
    return _edge().Prefetch(
        limit=prefetch.limit, query=_scoring(prefetch.query, prefetch.using), params=_params(prefetch.params)
    )


def _query_request(request: Any) -> Any:
    prefetch = request.prefetch or []
    prefetch = prefetch if isinstance(prefetch, list) else [prefetch]
    return _edge().QueryRequest(
        limit=request.limit,
        query=_scoring(request.query, request.using),
        prefetches=[_prefetch(p) for p in prefetch] or None,
        with_payload=request.with_payload,
        with_vector=request.with_vector,
        params=_params(request.params),
        filter=_filter(request.filter),
    )


def _filter(condition: Any) -> Any:
    """A qdrant-client Filter of keyword matches (`must` FieldCondition / MatchValue, what SPARKIT asks) as Edge's."""
    if condition is None:
        return None
    qe = _edge()
    must = [qe.FieldCondition(key=c.key, match=qe.MatchValue(c.match.value)) for c in condition.must or []]
    return qe.Filter(must=must)


def local_mode_folder(root: Path, collection: str) -> bool:
    """Whether `root` holds `collection` in qdrant-client's local mode (the format before Qdrant Edge)."""
    return (root / "collection" / collection / "storage.sqlite").is_file()
