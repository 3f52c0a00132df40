"""Hosted rerankers and embedders, bounded in time, with an automatic offline fallback (seed 000).

A hosted call that errs or exceeds `timeout_s` (3 s by default) is answered by the offline implementation
instead; the fallback is recorded in the node's usage (and so in the trace), never silent.
"""

from __future__ import annotations

import asyncio
from typing import Literal

import numpy as np

from agent.errors import SparkitError
from agent.interfaces import Embedder, Reranker
from agent.metering import current_meter

HOSTED_TIMEOUT_S = 3.0


class FallbackReranker:
    def __init__(self, primary: Reranker, fallback: Reranker, timeout_s: float = HOSTED_TIMEOUT_S):
        self.primary, self.fallback, self.timeout_s = primary, fallback, timeout_s
        self.name = f"{primary.name}|{fallback.name}"

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        try:
            return await asyncio.wait_for(self.primary.rerank(query, documents), self.timeout_s)
        except (TimeoutError, SparkitError) as exc:
            current_meter().fallback(f"rerank: {self.primary.name} -> {self.fallback.name} ({type(exc).__name__})")
            return await self.fallback.rerank(query, documents)


class FallbackEmbedder:
    def __init__(self, primary: Embedder, fallback: Embedder, timeout_s: float = HOSTED_TIMEOUT_S):
        self.primary, self.fallback, self.timeout_s = primary, fallback, timeout_s
        self.name = f"{primary.name}|{fallback.name}"

    async def embed(self, texts: list[str], *, kind: Literal["query", "document"] = "document") -> np.ndarray:
        try:
            return await asyncio.wait_for(self.primary.embed(texts, kind=kind), self.timeout_s)
        except (TimeoutError, SparkitError) as exc:
            current_meter().fallback(f"embed: {self.primary.name} -> {self.fallback.name} ({type(exc).__name__})")
            return await self.fallback.embed(texts, kind=kind)
