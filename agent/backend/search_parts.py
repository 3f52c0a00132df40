"""The search parts of a backend: what an offline run searches (the caller's documents, the corpus's embedded or Qdrant
index, the library beside it), the speller over their words and the offline reranker over their sentence stores. The
search part is cached (agent/backend/part_cache.py) on `search_key`: the corpus group, the caller's documents and the
library's stamp, so a library that changed is opened again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import sparkit_home
from agent.errors import ConfigurationError, CorpusError
from agent.interfaces import LiteratureSource, Reranker
from agent.settings.sources import CorpusSettings, RetrievalSettings

if TYPE_CHECKING:
    from agent.english.spelling import Speller
    from agent.tools.index.local_index import LocalIndex


def documents_digest(documents: list[dict[str, Any]] | None) -> str:
    return hashlib.sha256(json.dumps(documents, sort_keys=True, default=str).encode()).hexdigest() if documents else ""


def reranker_choice(retrieval: RetrievalSettings) -> dict[str, Any]:
    """The retrieval fields the backend's reranker is built from (the rest are read by the nodes at run time)."""
    return retrieval.model_dump(mode="json", include={"reranker", "enable_semantic_rerank"})


def search_key(corpus: CorpusSettings, documents: list[dict[str, Any]] | None, reranker: str = "offline") -> list[Any]:
    """What the search part is built from: the corpus group, the caller's documents and the library's stamp (a
    library that changed is opened again); live, also the hosted reranker its clients include."""
    from agent.library.searched import library_stamp

    return [
        corpus.model_dump(mode="json"),
        documents_digest(documents),
        library_stamp(corpus),
        reranker if corpus.backend == "live" else "",
    ]


def offline_reranker(retrieval: RetrievalSettings, *indexes: LocalIndex) -> Reranker:
    """The offline hybrid reranker; over local indexes it uses their sentence stores where they were built."""
    from agent.tools.index.offline_rerank import HybridReranker

    if indexes:
        return HybridReranker.for_index(*indexes, semantic=retrieval.enable_semantic_rerank)
    return HybridReranker(semantic=retrieval.enable_semantic_rerank)


def offline_indexes(
    corpus: CorpusSettings, documents: list[dict[str, Any]] | None
) -> tuple[list[LocalIndex], list[str]]:
    """The indexes an offline run searches, and what each is, for the answer's `searched`: the caller's documents
    alone; else the corpus (SciFact by default) and beside it the library when it has documents (`use_library`);
    with `use_corpus` false the library alone. Adding to the library never drops the corpus."""
    from agent.library.searched import library_index, library_label
    from agent.tools.index.corpus_records import records_from_dicts
    from agent.tools.index.local_index import LocalIndex

    if documents:
        return [LocalIndex.from_records(records_from_dicts(documents))], [f"your documents ({len(documents):,})"]
    library = library_index(corpus)
    indexes: list[LocalIndex] = []
    labels: list[str] = []
    if library is None or corpus.use_corpus:
        path, index = _corpus_index(corpus)
        from agent.backend.corpus import corpus_label

        indexes.append(index)
        labels.append(
            corpus_label(path, index.manifest.get("corpus_sha256"), int(index.manifest.get("documents") or 0))
        )
    if library is not None:
        indexes.append(library)
        labels.append(library_label(corpus))
    return indexes, labels


def qdrant_location(corpus: CorpusSettings, path: Path | None = None) -> Any:
    """Where the settings' Qdrant collection lives: the named collection (else the one a build of the default corpus
    names), on the server at qdrant_url or in a Qdrant Edge folder (qdrant_path, else $SPARKIT_HOME/qdrant)."""
    from agent.backend.corpus import corpus_of
    from agent.tools.index.qdrant_index import QdrantLocation, default_collection

    collection = corpus.qdrant_collection
    if collection is None:
        path = path or corpus_of(corpus, download=True)
        if path is None or not path.exists():
            raise ConfigurationError(
                "index 'qdrant' needs qdrant_collection (or a corpus to name it after): --set qdrant_collection=NAME"
            )
        collection = default_collection(path)
    folder = (
        None
        if corpus.qdrant_url
        else str(Path(corpus.qdrant_path).expanduser() if corpus.qdrant_path else sparkit_home() / "qdrant")
    )
    return QdrantLocation(collection=collection, url=corpus.qdrant_url, path=folder, timeout_s=corpus.qdrant_timeout_s)


def _qdrant_index(corpus: CorpusSettings) -> tuple[Path, Any]:
    """The corpus's Qdrant collection, opened and checked (agent.tools.index.qdrant_index.QdrantIndex.open)."""
    from agent.tools.index.qdrant_index import QdrantIndex

    index = QdrantIndex.open(qdrant_location(corpus))
    return Path(index.manifest.get("corpus") or index.location.collection), index


def _corpus_index(corpus: CorpusSettings) -> tuple[Path, LocalIndex]:
    from agent.backend.corpus import corpus_of
    from agent.tools.index.index_refresh import open_index
    from agent.tools.index.local_index import default_index_dir

    if corpus.index == "qdrant":
        return _qdrant_index(corpus)  # a QdrantIndex: searched as a LocalIndex is (local_index.SearchIndex)
    path = corpus_of(corpus, download=True)
    if path is None:
        raise CorpusError(
            "no corpus configured: pass --corpus PATH (JSONL, SciFact or generic format) or run `sparkit config "
            "corpus PATH`"
        )
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    index_dir = Path(corpus.index_dir).expanduser() if corpus.index_dir else None
    index_dir = index_dir or default_index_dir(path, sparkit_home())
    return path, open_index(path, index_dir)  # a first build reports itself on stderr (LocalIndex.build)


def merged_word_counts(indexes: list[LocalIndex]) -> dict[str, int]:
    """The words every searched index knows, with their counts summed: what the speller corrects towards."""
    counts: dict[str, int] = {}
    for index in indexes:
        for word, count in index.word_counts().items():
            counts[word] = counts.get(word, 0) + count
    return counts


@dataclass(frozen=True)
class OfflineSearch:
    """The offline search part: the indexes, their source, what they cover and the speller over their words."""

    indexes: list[LocalIndex]
    sources: list[LiteratureSource]
    searched: str
    speller: Speller


def offline_search(corpus: CorpusSettings, documents: list[dict[str, Any]] | None) -> OfflineSearch:
    from agent.english.spelling import Speller
    from agent.tools.index.local_index import LocalSource

    indexes, searched = offline_indexes(corpus, documents)
    return OfflineSearch(
        indexes, [LocalSource(*indexes)], " + ".join(searched), Speller(lambda: merged_word_counts(indexes))
    )


def embedded_only(indexes: list[Any]) -> list[LocalIndex]:
    """The embedded indexes among these: the reranker's sentence stores exist for them alone (not for a Qdrant
    index)."""
    from agent.tools.index.local_index import LocalIndex

    return [index for index in indexes if isinstance(index, LocalIndex)]
