"""Hosted rerank/embedding calls are bounded and fall back to the offline path, with the fallback recorded."""

import asyncio

import numpy as np

from agent.errors import SourceError
from agent.metering import metered
from agent.tools.models.fallback import FallbackEmbedder, FallbackReranker


class Slow:
    name = "hosted"

    async def rerank(self, query, documents):
        await asyncio.sleep(5)
        return [9.0] * len(documents)

    async def embed(self, texts, *, kind="document"):
        raise SourceError("voyage", "HTTP 503 after 3 attempts")


class Local:
    name = "offline"

    async def rerank(self, query, documents):
        return [float(len(d)) for d in documents]

    async def embed(self, texts, *, kind="document"):
        return np.ones((len(texts), 4), dtype=np.float32)


async def test_slow_reranker_falls_back_within_the_bound():
    with metered() as meter:
        scores = await FallbackReranker(Slow(), Local(), timeout_s=0.05).rerank("q", ["ab", "abc"])
    assert scores == [2.0, 3.0]
    assert meter.usage.fallbacks == ["rerank: hosted -> offline (TimeoutError)"]


async def test_failing_embedder_falls_back():
    with metered() as meter:
        vectors = await FallbackEmbedder(Slow(), Local()).embed(["a", "b"], kind="query")
    assert vectors.shape == (2, 4) and "embed: hosted -> offline (SourceError)" in meter.usage.fallbacks
