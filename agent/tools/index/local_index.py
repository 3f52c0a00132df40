"""The offline literature index: BM25 (bm25s) + MiniLM dense vectors over a JSONL corpus, persisted on disk.

The corpus it indexes is read by agent.tools.index.corpus_records (its formats are listed there).

The index is built once (`sparkit index build PATH`) into a temporary folder and renamed into place, so
a crash never leaves a half-written index (and the encoding done before it is kept: a rerun resumes it,
agent.tools.index.encode_checkpoint); loading checks a manifest and array shapes and raises
CorpusError with a one-line message when anything is off.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any, Protocol, Self

import numpy as np

from agent.errors import CorpusError
from agent.interfaces import HopFilter
from agent.literature import Provenance, Record
from agent.tools.index.corpus_records import load_corpus
from agent.tools.index.encode_checkpoint import discard, encode_resumable, work_folder
from agent.tools.index.packaged_vectors import packaged_vectors
from agent.tools.models.encoder import DIM, MODEL_NAME, shared_encoder

INDEX_VERSION = 2
TOKENISER = "bm25s-en-stopwords+snowball-english/v1"
"""The BM25 tokenisation (`bm25_tokenize`), recorded in the manifest: change it whenever a record's tokens would."""
TOKENS_FILE = "tokens.json"  # BM25 tokens per record, written by save() so an update tokenizes only new records
WORDS_FILE = "words.json"  # word -> count over the corpus (lower case), the spelling corrector's dictionary
WORD_PATTERN = re.compile(r"[A-Za-z]+")  # a word, for the speller's counts
_WORD = WORD_PATTERN
_RRF_K = 60


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_index_dir(corpus: Path, home: Path) -> Path:
    return home / "index" / f"{corpus.stem}-{file_digest(corpus)[:10]}"


BF16_ABSTRACT_S = 0.05
"""CPU seconds per abstract of an index build in bf16 (estimated_build_s)."""


def estimated_build_s(documents: int) -> float:
    """A first guess at an index build's seconds, before any is measured: MiniLM costs about 50 ms of CPU per abstract
    in bf16 (`agent.tools.models.encoder.bulk_model`; SciFact's 5,183 took 135 s in bf16 on 2 quiet cores,
    evals/HISTORY.md stop 48, where 30 ms had promised 81 s) and BF16_BUILD_SAVING times that in fp32, spread over the
    cores torch uses."""
    import torch

    from agent.tools.models.encoder import BF16_BUILD_SAVING, bf16_bulk_encoding

    per_abstract = BF16_ABSTRACT_S if bf16_bulk_encoding() else BF16_ABSTRACT_S * BF16_BUILD_SAVING
    return 3.0 + documents * per_abstract / max(1, torch.get_num_threads())


def bm25_tokenize(
    texts: list[str], *, return_ids: bool = True
) -> Any:  # bm25s.tokenization.Tokenized (bm25s ships no types)
    """The project's one BM25 tokenisation (English stopwords, Snowball stemming), for the index and the reranker."""
    import bm25s
    import Stemmer

    return bm25s.tokenize(
        texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False, return_ids=return_ids
    )


class LocalIndex:
    """Hybrid lexical + dense index over a corpus, with reciprocal-rank fusion."""

    def __init__(self, records: list[Record], bm25: Any, embeddings: np.ndarray, manifest: dict):
        self.records = records
        self.bm25 = bm25
        self.embeddings = embeddings
        self.manifest = manifest
        self.by_id = {r.id: r for r in records}
        self.index_dir: Path | None = None
        self._tokens: list[list[str]] | None = None
        self._words: dict[str, int] | None = None
        self._lock = threading.Lock()
        self._words_lock = threading.Lock()
        shared_encoder().prime([r.text for r in records], embeddings)
        self._citing: dict[str, list[str]] = defaultdict(list)
        for record in records:
            for ref in record.references:
                self._citing[ref].append(record.id)

    # ------------------------------------------------------------------ build / load
    @classmethod
    def build(cls, corpus: Path, index_dir: Path, *, progress: bool | None = None) -> LocalIndex:
        """Index `corpus` into `index_dir`, with the vectors shipped for it when there are (the default SciFact corpus:
        agent.tools.index.packaged_vectors), else by encoding it. It reports itself on stderr (`StepProgress`: a start
        line with an estimate, progress with rate and ETA, an end line), on a terminal or not, unless `progress` is
        False or SPARKIT_PROGRESS=0."""
        from agent.common.terminal import StepProgress, fmt_duration, setup_progress_wanted
        from agent.metering import waiting_for

        records = load_corpus(corpus)
        texts = [r.text for r in records]
        shipped = packaged_vectors(file_digest(corpus), texts)
        if shipped is None:
            how = f"about {fmt_duration(estimated_build_s(len(records)))} (later runs load it in seconds)"
        else:
            how = "from the vectors shipped for it, in seconds"
        start = f"building the offline index of {corpus} ({len(records):,} records) into {index_dir}, once: {how} ..."
        step = StepProgress(
            "encoding",
            len(records),
            start=start,
            done=f"indexed {len(records):,} records in {{elapsed}}: {index_dir}",
            enabled=progress,
        )
        with (
            waiting_for(
                f"building the offline index ({len(records):,} records)",
                reports_progress=setup_progress_wanted(progress),
            ),
            step,
        ):
            if shipped is not None:
                return cls.from_vectors(corpus, index_dir, records, shipped)
            work = work_folder(index_dir)  # a stopped build resumes its encoding (agent.tools.index.encode_checkpoint)
            embeddings = encode_resumable(
                texts, work, shared_encoder(), on_progress=step.advance, announce=setup_progress_wanted(progress)
            )
            index = cls.from_vectors(corpus, index_dir, records, embeddings)
        discard(work)
        return index

    @classmethod
    def from_vectors(cls, corpus: Path, index_dir: Path, records: list[Record], embeddings: np.ndarray) -> LocalIndex:
        """The index of `corpus`'s records with these vectors (one row per record), BM25 built here, saved in
        `index_dir`."""
        import bm25s

        bm25 = bm25s.BM25()
        bm25.index(bm25_tokenize([r.text for r in records]), show_progress=False)
        manifest = {
            "version": INDEX_VERSION,
            "corpus": str(corpus.resolve()),
            "corpus_sha256": file_digest(corpus),
            "documents": len(records),
            "model": MODEL_NAME,
            "dim": DIM,
            "tokeniser": TOKENISER,
        }
        index = cls(records, bm25, embeddings, manifest)
        index.save(index_dir)
        return index

    def save(self, index_dir: Path) -> None:
        """Write the index into a temporary folder beside `index_dir` and rename it into place, so a crash
        never leaves a half-written index (the token lists are kept when known, for incremental updates)."""
        index_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=index_dir.parent))
        try:
            self.bm25.save(str(tmp / "bm25"))
            np.save(tmp / "embeddings.npy", self.embeddings)
            with (tmp / "records.jsonl").open("w", encoding="utf-8") as handle:
                for record in self.records:
                    handle.write(record.model_dump_json(exclude_defaults=True) + "\n")
            if self._tokens is not None:
                (tmp / TOKENS_FILE).write_text(json.dumps(self._tokens), encoding="utf-8")
            (tmp / WORDS_FILE).write_text(json.dumps(self.word_counts()), encoding="utf-8")
            (tmp / "manifest.json").write_text(json.dumps(self.manifest, indent=2))
            if index_dir.exists():
                shutil.rmtree(index_dir)
            tmp.rename(index_dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.index_dir = index_dir

    def tokens(self) -> list[list[str]]:
        """BM25 tokens of every record (read from the index folder when saved there, else computed once)."""
        if self._tokens is None:
            stored = self.index_dir / TOKENS_FILE if self.index_dir is not None else None
            if stored is not None and stored.exists():
                self._tokens = json.loads(stored.read_text(encoding="utf-8"))
            else:
                self._tokens = [list(t) for t in bm25_tokenize([r.text for r in self.records], return_ids=False)]
        return self._tokens

    def word_counts(self) -> dict[str, int]:
        """How often each word (letters only, lower case) occurs in the records' titles and abstracts: what the
        corpus knows, for the spelling corrector (agent/english/spelling.py). Read from the index folder when saved
        there; else counted once (about a second for 5,000 abstracts) and, for an index saved before this file
        existed, stored beside it."""
        with self._words_lock:
            if self._words is None:
                stored = self.index_dir / WORDS_FILE if self.index_dir is not None else None
                if stored is not None and stored.exists():
                    self._words = json.loads(stored.read_text(encoding="utf-8"))
                else:
                    self._words = word_counts(self.records)
                    if stored is not None:
                        _write_quietly(stored, json.dumps(self._words))
            return self._words

    def updated(
        self, records: list[Record], manifest: dict, *, progress: bool = False, bulk: bool = False
    ) -> LocalIndex:
        """A new index over `records` that reuses this one's vectors and BM25 tokens for every record whose id and
        text are unchanged: only new or changed records are encoded (`bulk`: as an index build encodes). BM25 scores
        depend on corpus-wide term statistics, so its matrix is recomputed from the stored tokens (about a second for
        5,000 abstracts)."""
        import bm25s

        old_rows = {r.id: i for i, r in enumerate(self.records)}
        old_tokens = self.tokens() if self.records else []
        keep = [
            old_rows.get(r.id)
            if old_rows.get(r.id) is not None and self.records[old_rows[r.id]].text == r.text
            else None
            for r in records
        ]
        fresh = [i for i, row in enumerate(keep) if row is None]
        vectors = shared_encoder().encode([records[i].text for i in fresh], show_progress=progress, bulk=bulk)
        fresh_tokens = bm25_tokenize([records[i].text for i in fresh], return_ids=False) if fresh else []
        embeddings = np.zeros((len(records), DIM), dtype=np.float32)
        tokens: list[list[str]] = [[] for _ in records]
        for i, row in enumerate(keep):
            if row is not None:
                embeddings[i] = self.embeddings[row]
                tokens[i] = old_tokens[row]
        for j, i in enumerate(fresh):
            embeddings[i] = vectors[j]
            tokens[i] = list(fresh_tokens[j])
        bm25 = bm25s.BM25()
        if records:
            bm25.index([t or ["<empty>"] for t in tokens], show_progress=False)
        index = type(self)(
            records,
            bm25,
            embeddings,
            {
                **manifest,
                "version": INDEX_VERSION,
                "documents": len(records),
                "model": MODEL_NAME,
                "dim": DIM,
                "tokeniser": TOKENISER,
            },
        )
        index._tokens = tokens
        return index

    @classmethod
    def from_records(cls, records: list[Record]) -> LocalIndex:
        """An in-memory index over given records (a user's own documents); nothing is written."""
        import bm25s

        if not records:
            raise CorpusError("no documents given")
        bm25 = bm25s.BM25()
        bm25.index(bm25_tokenize([r.text for r in records]), show_progress=False)
        embeddings = shared_encoder().encode([r.text for r in records])
        manifest = {
            "version": INDEX_VERSION,
            "corpus": "<documents>",
            "documents": len(records),
            "model": MODEL_NAME,
            "dim": DIM,
        }
        return cls(records, bm25, embeddings, manifest)

    @classmethod
    def load(cls, index_dir: Path) -> Self:
        import bm25s

        manifest_path = index_dir / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("version") != INDEX_VERSION:
                raise CorpusError(
                    f"index at {index_dir} has version {manifest.get('version')}, expected {INDEX_VERSION}: "
                    "rebuild it with `sparkit index build`"
                )
            records = [
                Record.model_validate_json(line)
                for line in (index_dir / "records.jsonl").read_text(encoding="utf-8").splitlines()
                if line
            ]
            embeddings = np.load(index_dir / "embeddings.npy")
            bm25 = bm25s.BM25.load(str(index_dir / "bm25"))
        except CorpusError:
            raise
        except Exception as exc:  # any unreadable piece means the index is corrupt
            raise CorpusError(
                f"index at {index_dir} is corrupt ({type(exc).__name__}): rebuild it with `sparkit index build`"
            ) from None
        if embeddings.shape != (len(records), DIM) or manifest.get("documents") != len(records):
            raise CorpusError(
                f"index at {index_dir} is corrupt (sizes disagree): rebuild it with `sparkit index build`"
            )
        index = cls(records, bm25, embeddings, manifest)
        index.index_dir = index_dir
        return index

    # ------------------------------------------------------------------ search
    def lexical(self, query: str, k: int) -> list[tuple[int, float]]:
        k = min(k, len(self.records))
        with self._lock:  # bm25s retrieval is not documented as thread-safe
            docs, scores = self.bm25.retrieve(bm25_tokenize([query]), k=k, show_progress=False, n_threads=1)
        return [(int(d), float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def dense(self, query_vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        sims = self.embeddings @ query_vector
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(int(i), float(sims[i])) for i in top]

    def search(self, query: str, limit: int, *, depth: int = 100) -> list[tuple[Record, float]]:
        """Hybrid search: BM25 and dense rankings fused by reciprocal rank."""
        return [(record, scores["fused"]) for record, scores in self.search_scored(query, limit, depth=depth)]

    def search_scored(self, query: str, limit: int, *, depth: int = 100) -> list[tuple[Record, dict[str, float]]]:
        """`search` with each hit's reasons: its rank, BM25 score (0 outside BM25's top `depth`), dense cosine and fused
        score."""
        query_vector = shared_encoder().encode([query])[0]
        fused: dict[int, float] = defaultdict(float)
        bm25: dict[int, float] = {}
        for rank, (doc, score) in enumerate(self.lexical(query, depth)):
            fused[doc] += 1.0 / (_RRF_K + rank + 1)
            bm25[doc] = score
        for rank, (doc, _) in enumerate(self.dense(query_vector, depth)):
            fused[doc] += 1.0 / (_RRF_K + rank + 1)
        ranked = sorted(fused.items(), key=lambda item: -item[1])[:limit]
        return [
            (
                self.records[doc],
                {
                    "rank": rank + 1,
                    "bm25": round(bm25.get(doc, 0.0), 4),
                    "dense": round(float(self.embeddings[doc] @ query_vector), 4),
                    "fused": round(score, 6),
                },
            )
            for rank, (doc, score) in enumerate(ranked)
        ]

    def neighbours(self, record_id: str, limit: int | None = None) -> list[Record]:
        """Referenced and citing records inside the corpus (all of them when `limit` is None)."""
        record = self.by_id.get(record_id)
        if record is None:
            return []
        ids = [r for r in record.references if r in self.by_id] + self._citing.get(record_id, [])
        return [self.by_id[i] for i in dict.fromkeys(ids)][:limit]

    @property
    def has_citations(self) -> bool:
        return any(r.references for r in self.records)


def word_counts(records: list[Record]) -> dict[str, int]:
    """word (letters only, lower case) -> how often the records' titles and abstracts use it."""
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        for word in _WORD.findall(record.text):
            counts[word.lower()] += 1
    return dict(counts)


def _write_quietly(path: Path, text: str) -> None:
    """Write a cache file atomically (a temporary file renamed into place); a read-only folder just skips it."""
    try:
        handle, tmp = tempfile.mkstemp(prefix=".words-", dir=path.parent)
    except OSError:
        return  # not writable: the counts stay in memory for this process
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


class SearchIndex(Protocol):
    """What LocalSource searches: the embedded LocalIndex, or an index on a search engine
    (agent.tools.index.qdrant_index.QdrantIndex), with the same hybrid ranking and the same scores per hit."""

    manifest: dict

    @property
    def has_citations(self) -> bool: ...

    def search_scored(self, query: str, limit: int, *, depth: int = 100) -> list[tuple[Record, dict[str, float]]]: ...

    def neighbours(self, record_id: str, limit: int | None = None) -> list[Record]: ...

    def word_counts(self) -> dict[str, int]: ...


class LocalSource:
    """LiteratureSource over one LocalIndex or several (the corpus and the library); CPU work runs in a thread.

    Over several indexes a search returns each one's best `limit` hits: a small library's passages, which always
    rank first in their own index, join the corpus's hits instead of displacing them, and the reranker weighs them
    together. It counts as one source call, as one index does."""

    name = "local"

    def __init__(self, index: SearchIndex, *more: SearchIndex):
        self.index = index
        self.indexes = [index, *more]
        self.supports_citations = any(i.has_citations for i in self.indexes)

    async def search(self, query: str, *, limit: int) -> list[Record]:
        """Copies of the hits, each carrying its scores in a provenance entry (the search service adds the query)."""
        hits = await asyncio.to_thread(
            lambda: [hit for index in self.indexes for hit in index.search_scored(query, limit)]
        )
        return [
            record.model_copy(
                deep=True, update={"provenance": [*record.provenance, Provenance(source=self.name, scores=scores)]}
            )
            for record, scores in hits
        ]

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        if not self.supports_citations:
            return []
        linked = await asyncio.to_thread(
            lambda: [r for index in self.indexes if index.has_citations for r in index.neighbours(record.id, None)]
        )
        return [r.model_copy(deep=True) for r in linked if gate is None or gate.keeps(r)][:limit]
