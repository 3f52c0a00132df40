"""The offline reranker: BM25 over the candidates fused with MiniLM cosine, on 2 CPU cores.

No cross-encoder ships with weights (docs/offline-models.md), so relevance is the fusion of a lexical
score (BM25 computed over the candidate set itself, so IDF reflects what was retrieved) and the dense
cosine between query and document embeddings. Embeddings come from the shared encoder's cache, which
the local index primes with its stored vectors: reranking corpus records costs one query encoding.
"""

from __future__ import annotations

import asyncio

import numpy as np

from agent.tools.encoder import MiniLMEncoder, shared_encoder

DENSE_WEIGHT = 0.5


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros_like(values)


def bm25_scores(query: str, documents: list[str]) -> np.ndarray:
    """BM25 of `query` against each document, with statistics from the documents themselves."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(documents, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False)[0]
    return np.asarray(retriever.get_scores(tokens), dtype=np.float64) if tokens else np.zeros(len(documents))


class HybridReranker:
    """Reranker: (1 - w) * minmax(BM25) + w * minmax(cosine); lexical only when `semantic` is off."""

    name = "offline-hybrid"

    def __init__(self, semantic: bool = True, dense_weight: float = DENSE_WEIGHT, encoder: MiniLMEncoder | None = None):
        self.semantic = semantic
        self.dense_weight = dense_weight
        self.encoder = encoder

    def scores(self, query: str, documents: list[str]) -> list[float]:
        if not documents:
            return []
        lexical = _minmax(bm25_scores(query, documents))
        if not self.semantic:
            return lexical.tolist()
        vectors = (self.encoder or shared_encoder()).encode([query, *documents])
        dense = _minmax(vectors[1:] @ vectors[0])
        return ((1 - self.dense_weight) * lexical + self.dense_weight * dense).tolist()

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        return await asyncio.to_thread(self.scores, query, documents)
