"""The offline reranker: z-score fusion of BM25, MiniLM document cosine and best-sentence cosine, on 2 CPU cores.

No cross-encoder ships with weights (docs/offline-models.md), so relevance fuses three cheap signals computed
over the candidate list itself:

- `bm25`: BM25 with statistics from the candidates (IDF reflects what was retrieved; on BEIR-SciFact this
  fused better than corpus-wide IDF);
- `dense`: cosine of query and document embeddings (the shared encoder's cache, primed by the local index,
  makes this one query encoding for corpus records);
- `sentence`: the best cosine between the query and one sentence of the document (the title counts as one).
  MiniLM truncates a whole abstract at 256 word pieces and averages its topics; a claim usually restates
  one sentence.

Each signal is standardised over the candidates (z-score) and the three are summed with equal weights:
unlike min-max, z-scores are not dominated by one outlier, and equal weights were within noise of weights
learned by logistic regression in grouped cross-validation (evals/HISTORY.md, "BEIR-SciFact retrieval").

Sentence vectors of corpus records come from a `SentenceStore` precomputed once per index (encoding the ~51k
titles and sentences of SciFact takes 10-20 minutes on 2 cores; looking them up takes microseconds). Documents outside
the store have their sentences encoded only while that stays within `max_new_sentences` per call, so a call on ~100
candidates stays well under a second; past it the sentence signal is dropped for the whole call, never for some
documents only (z-scores over a mixed list would be biased)."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.common.text import split_sentences
from agent.config import sparkit_home
from agent.tools.index.packaged_vectors import texts_digest
from agent.tools.models.encoder import DIM, MODEL_NAME, MiniLMEncoder, shared_encoder

if TYPE_CHECKING:
    from agent.tools.index.local_index import LocalIndex

SIGNALS = ("bm25", "dense", "sentence")
MAX_NEW_SENTENCES = 32
STORE_VERSION = 1


def zscores(values: np.ndarray) -> np.ndarray:
    """(x - mean) / std over the candidates; all zeros when they do not differ (or there is one)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return np.zeros_like(values)
    std = float(values.std())
    return (values - values.mean()) / std if std > 1e-12 else np.zeros_like(values)


def bm25_scores(query: str, documents: list[str]) -> np.ndarray:
    """BM25 of `query` against each document, with statistics from the documents themselves."""
    import bm25s

    from agent.tools.index.local_index import bm25_tokenize

    tokens = bm25_tokenize([*documents, query], return_ids=False)
    query_tokens, doc_tokens = tokens[-1], tokens[:-1]
    if not query_tokens or not any(doc_tokens):
        return np.zeros(len(documents))
    retriever = bm25s.BM25()
    retriever.index(doc_tokens, show_progress=False)
    return np.asarray(retriever.get_scores(query_tokens), dtype=np.float64)


class SentenceStore:
    """Sentence embeddings of an index's records, looked up by document text.

    Persisted as float16 (cosines move by < 1e-3) under $SPARKIT_HOME/cache/rerank/, keyed by the corpus
    digest, so it is computed once per corpus; loading checks that it matches the index's sentences.
    """

    def __init__(self, vectors: np.ndarray, starts: np.ndarray, rows: dict[str, int]):
        self.vectors = vectors
        self.starts = starts
        self.rows = rows

    def get(self, text: str) -> np.ndarray | None:
        """Sentence vectors (float32, one row per sentence) of a stored document, else None."""
        row = self.rows.get(text)
        if row is None:
            return None
        return self.vectors[self.starts[row] : self.starts[row + 1]].astype(np.float32)

    def __len__(self) -> int:
        return len(self.rows)

    # ------------------------------------------------------------------ persistence
    @staticmethod
    def path_for(index: LocalIndex, home: Path | None = None) -> Path | None:
        """Where the store of `index` lives; None for an in-memory index (nothing to key it by)."""
        digest = index.manifest.get("corpus_sha256")
        return SentenceStore.path_of(digest, home) if digest else None

    @staticmethod
    def path_of(corpus_sha256: str, home: Path | None = None) -> Path:
        """Where the store of the index of a corpus of this digest lives."""
        name = f"sentences-{corpus_sha256[:16]}-{MODEL_NAME}-v{STORE_VERSION}.npz"
        return (home or sparkit_home()) / "cache" / "rerank" / name

    @staticmethod
    def _layout(index: LocalIndex) -> tuple[list[str], np.ndarray, dict[str, int]]:
        sentences: list[str] = []
        starts = [0]
        rows: dict[str, int] = {}
        for row, record in enumerate(index.records):
            sentences.extend(_units_of(record.title, record.sentences, record.abstract))
            starts.append(len(sentences))
            rows.setdefault(record.text, row)
        return sentences, np.asarray(starts, dtype=np.int64), rows

    @classmethod
    def size_of(cls, index: LocalIndex) -> int:
        """How many titles and sentences the store of `index` holds (what a build encodes)."""
        return len(cls._layout(index)[0])

    @classmethod
    def load(cls, index: LocalIndex, path: Path | None = None) -> SentenceStore | None:
        """The persisted store of `index`, or None when absent or built from other sentences."""
        path = path or cls.path_for(index)
        if path is None or not path.exists():
            return None
        sentences, starts, rows = cls._layout(index)
        try:
            with np.load(path) as data:
                vectors, stored_starts, check = data["vectors"], data["starts"], str(data["check"])
        except (OSError, KeyError, ValueError):
            return None
        if (
            not np.array_equal(stored_starts, starts)
            or check != texts_digest(sentences)
            or vectors.shape != (len(sentences), DIM)
        ):
            return None
        return cls(vectors, starts, rows)

    @classmethod
    def build(
        cls,
        index: LocalIndex,
        path: Path | None = None,
        encoder: MiniLMEncoder | None = None,
        *,
        progress: bool = False,
        on_progress: Callable[[int], None] | None = None,
    ) -> SentenceStore:
        """Encode every sentence of the index (minutes on 2 cores for ~50k sentences) and persist it atomically;
        `on_progress(n)` after each chunk of n sentences (it may raise to stop the build: nothing is written)."""
        sentences, starts, rows = cls._layout(index)
        vectors = (
            (encoder or shared_encoder())
            .encode(sentences, show_progress=progress, on_progress=on_progress)
            .astype(np.float16)
        )
        path = path if path is not None else cls.path_for(index)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(prefix=".sentences-", suffix=".npz", dir=path.parent)
            os.close(handle)
            try:
                np.savez(tmp, vectors=vectors, starts=starts, check=np.asarray(texts_digest(sentences)))
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return cls(vectors, starts, rows)

    @classmethod
    def open(cls, index: LocalIndex, *, build: bool = False, progress: bool = False) -> SentenceStore | None:
        """Load the store of `index`; build it first when absent and `build` is set."""
        store = cls.load(index)
        if store is None and build:
            store = cls.build(index, progress=progress)
        return store


class SentenceStores:
    """Several indexes' stores read as one (the corpus's and the library's): the first that knows a document answers."""

    def __init__(self, stores: list[SentenceStore]):
        self.stores = stores

    def get(self, text: str) -> np.ndarray | None:
        return next((found for store in self.stores if (found := store.get(text)) is not None), None)

    def __len__(self) -> int:
        return sum(len(store) for store in self.stores)


def _sentences_of(sentences: list[str], text: str) -> list[str]:
    return [s for s in sentences if s.strip()] or split_sentences(text) or [text]


def _units_of(title: str, sentences: list[str], abstract: str) -> list[str]:
    """What the sentence signal compares the query with: the title, then each abstract sentence. Matches
    splitting a record's text ("title. abstract") on the fly, so stored and unstored documents agree."""
    return ([title.strip()] if title.strip() else []) + _sentences_of(sentences, abstract)


class HybridReranker:
    """Reranker: z(BM25) + z(document cosine) + z(best-sentence cosine) over the candidates.

    `semantic=False` keeps BM25 only (the `enable_semantic_rerank` ablation); `sentences` is the index's
    SentenceStore (optional: without it only cheap sentence encodings are made, see the module doc).
    """

    name = "offline-hybrid"

    def __init__(
        self,
        semantic: bool = True,
        encoder: MiniLMEncoder | None = None,
        sentences: SentenceStore | SentenceStores | None = None,
        use_sentences: bool = True,
        max_new_sentences: int = MAX_NEW_SENTENCES,
    ):
        self.semantic = semantic
        self.encoder = encoder
        self.sentences = sentences
        self.use_sentences = use_sentences
        self.max_new_sentences = max_new_sentences

    @classmethod
    def for_index(
        cls, index: LocalIndex, *more: LocalIndex, semantic: bool = True, build_sentences: bool = False
    ) -> HybridReranker:
        """A reranker that looks sentence vectors up in the indexes' stores (built first when asked)."""
        if not semantic:
            return cls(semantic=False)
        stores = [s for i in (index, *more) if (s := SentenceStore.open(i, build=build_sentences)) is not None]
        return cls(
            semantic=semantic, sentences=stores[0] if len(stores) == 1 else SentenceStores(stores) if stores else None
        )

    def _encoder(self) -> MiniLMEncoder:
        return self.encoder or shared_encoder()

    def _sentence_best(self, query_vector: np.ndarray, documents: list[str]) -> np.ndarray | None:
        """Best sentence cosine per document, or None when encoding the missing sentences is over budget."""
        known: list[np.ndarray | None] = [self.sentences.get(d) if self.sentences else None for d in documents]
        missing = {i: _sentences_of([], documents[i]) for i, vectors in enumerate(known) if vectors is None}
        if sum(len(s) for s in missing.values()) > self.max_new_sentences:
            return None
        if missing:
            flat = [s for sentences in missing.values() for s in sentences]
            encoded = self._encoder().encode(flat)
            offset = 0
            for i, sentences in missing.items():
                known[i] = encoded[offset : offset + len(sentences)]
                offset += len(sentences)
        return np.array([float((v @ query_vector).max()) if v is not None and len(v) else 0.0 for v in known])

    def signals(self, query: str, documents: list[str]) -> dict[str, np.ndarray]:
        """The raw signals per document (BM25 always; dense and sentence when semantic and affordable)."""
        result = {"bm25": bm25_scores(query, documents)}
        if not self.semantic:
            return result
        vectors = self._encoder().encode([query, *documents])
        result["dense"] = (vectors[1:] @ vectors[0]).astype(np.float64)
        if self.use_sentences:
            best = self._sentence_best(vectors[0], documents)
            if best is not None:
                result["sentence"] = best
        return result

    def scores(self, query: str, documents: list[str]) -> list[float]:
        if not documents:
            return []
        fused = sum(zscores(values) for values in self.signals(query, documents).values())
        return [float(s) for s in np.asarray(fused, dtype=np.float64)]

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        return await asyncio.to_thread(self.scores, query, documents)
