"""Voyage AI embeddings and rerank over plain httpx (two POST endpoints; the SDK pulls aiohttp/requests).

Embeddings ask for `encoding_format="base64"` (little-endian float32, a quarter of the JSON size) and
always pass `input_type` ("query" when searching, "document" when indexing): a mismatch silently degrades
retrieval. Rows come back L2-normalised in input order. The SDK does not retry by default; this client
retries 429/5xx with backoff like every other client.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

import numpy as np

from agent.errors import SourceError
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, require_secret
from agent.tools.http.parsing import aligned_scores, items_of

BASE_URL = "https://api.voyageai.com/v1/"
KEY_ENV = "VOYAGE_API_KEY"
DEFAULT_EMBED_MODEL = "voyage-3.5-lite"
DEFAULT_RERANK_MODEL = "rerank-2.5"
POLICY = HostPolicy(
    min_interval_s=0.0, max_concurrency=4, max_attempts=4, retry_statuses=frozenset({429, 500, 502, 503, 504})
)
EMBED_BATCH = 128


def _voyage_http(api_key: str | None, what: str, options: HttpOptions | None, base_url: str) -> HttpBase:
    key = require_secret(api_key, KEY_ENV, what)
    return HttpBase(
        "voyage",
        base_url,
        policy=POLICY,
        options=options,
        headers={"Authorization": f"Bearer {key.get_secret_value()}"},
        secrets=[key],
    )


def decode_embedding(value: Any) -> np.ndarray:
    """A float list, or base64 of little-endian float32, as a 1-D float32 array."""
    if isinstance(value, str):
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise SourceError("voyage", "malformed base64 embedding") from None
        if len(raw) % 4:
            raise SourceError("voyage", "truncated base64 embedding")
        return np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if isinstance(value, list):
        return np.asarray(value, dtype=np.float32)
    raise SourceError("voyage", "embedding missing from response")


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class VoyageEmbedder(ApiClient):
    """Embedder backed by Voyage `POST /v1/embeddings`."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str = DEFAULT_EMBED_MODEL,
        options: HttpOptions | None = None,
        base_url: str = BASE_URL,
    ):
        self.model = model
        self.name = f"voyage:{model}"
        self.http = _voyage_http(api_key, "Voyage embeddings", options, base_url)

    async def embed(self, texts: list[str], *, kind: Literal["query", "document"]) -> np.ndarray:
        """L2-normalised float32 rows, one per text (shape (0, 0) for no texts)."""
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start : start + EMBED_BATCH]
            body = {
                "input": batch,
                "model": self.model,
                "input_type": kind,
                "truncation": True,
                "encoding_format": "base64",
            }
            data = await self.http.post_json("embeddings", body)
            items = sorted(
                (d for d in items_of("voyage", data, "data") if isinstance(d, dict)), key=lambda d: d.get("index", 0)
            )
            if len(items) != len(batch):
                raise SourceError("voyage", f"expected {len(batch)} embeddings, got {len(items)}")
            vectors = [decode_embedding(d.get("embedding")) for d in items]
            if len({v.shape for v in vectors}) != 1:
                raise SourceError("voyage", "embeddings of different sizes in one response")
            rows.extend(vectors)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return l2_normalise(np.vstack(rows))


class VoyageReranker(ApiClient):
    """Reranker backed by Voyage `POST /v1/rerank`."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str = DEFAULT_RERANK_MODEL,
        options: HttpOptions | None = None,
        base_url: str = BASE_URL,
    ):
        self.model = model
        self.name = f"voyage:{model}"
        self.http = _voyage_http(api_key, "The Voyage reranker", options, base_url)

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        """Relevance of each document, in input order."""
        if not documents:
            return []
        body = {
            "query": query,
            "documents": documents,
            "model": self.model,
            "return_documents": False,
            "truncation": True,
        }
        data = await self.http.post_json("rerank", body)
        ranked = (
            (d.get("index", -1), d.get("relevance_score", 0.0))
            for d in items_of("voyage", data, "data")
            if isinstance(d, dict)
        )
        return aligned_scores(len(documents), ranked)
