"""Cohere Rerank v2 over plain httpx (one POST; the SDK would add heavy dependencies for nothing).

The v2 response carries only `index` and `relevance_score` (no document text), so scores are mapped back
to the caller's list by index. Retries follow the Cohere SDK: 408/409/429/5xx, honouring Retry-After.
"""

from __future__ import annotations

from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, require_secret
from agent.tools.http.parsing import aligned_scores, items_of

BASE_URL = "https://api.cohere.com/v2/"
KEY_ENV = "COHERE_API_KEY"
DEFAULT_MODEL = "rerank-v3.5"
POLICY = HostPolicy(
    min_interval_s=0.0, max_concurrency=4, max_attempts=3, retry_statuses=frozenset({408, 409, 429, 500, 502, 503, 504})
)
MAX_DOCUMENTS = 1000


class CohereReranker(ApiClient):
    """Reranker backed by Cohere `POST /v2/rerank`."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str = DEFAULT_MODEL,
        options: HttpOptions | None = None,
        base_url: str = BASE_URL,
    ):
        key = require_secret(api_key, KEY_ENV, "The Cohere reranker")
        self.model = model
        self.name = f"cohere:{model}"
        self.http = HttpBase(
            "cohere",
            base_url,
            policy=POLICY,
            options=options,
            headers={"Authorization": f"Bearer {key.get_secret_value()}"},
            secrets=[key],
        )

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        """Relevance in [0, 1] for each document, in input order (batches of 1000 documents)."""
        scores: list[float] = []
        for start in range(0, len(documents), MAX_DOCUMENTS):
            batch = documents[start : start + MAX_DOCUMENTS]
            body = {"model": self.model, "query": query, "documents": batch, "top_n": len(batch)}
            data = await self.http.post_json("rerank", body)
            ranked = (
                (r.get("index", -1), r.get("relevance_score", 0.0))
                for r in items_of("cohere", data, "results")
                if isinstance(r, dict)
            )
            scores.extend(aligned_scores(len(batch), ranked))
        return scores
