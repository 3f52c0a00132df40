"""The settings of what is searched (`corpus`: the offline index, the library or live sources) and how
(`retrieval`: queries to sources, reranking, citation hops)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.settings.base import SettingsGroup


class CorpusSettings(SettingsGroup):
    """What a run searches: the offline index over a corpus and the library, or live sources. The backend's search
    part (index, sources, speller) is built from exactly these fields."""

    backend: str = Field(
        "offline",
        description="'offline' searches a local index (a corpus, the library) with the packaged models; 'live' "
        "queries real academic APIs and may use hosted models.",
    )
    corpus_path: str | None = Field(
        None,
        description="JSONL corpus for the offline index (SciFact or generic format). Default: SPARKIT_CORPUS, "
        "else the corpus chosen with `sparkit config corpus PATH`, else "
        "../shared/data/scifact/corpus.jsonl beside the project, else SciFact downloaded once "
        "(checksum-verified) into $SPARKIT_HOME/corpora.",
    )
    index_dir: str | None = Field(
        None, description="Where the offline index is persisted. Default: $SPARKIT_HOME/index/<corpus name>."
    )
    use_library: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Offline: 'auto' searches the library ($SPARKIT_HOME/library, `sparkit library add`) beside "
        "the default corpus when it has documents and no corpus_path or SPARKIT_CORPUS names another "
        "corpus; 'on' requires it; 'off' never searches it.",
    )
    library_dir: str | None = Field(None, description="Where the library lives. Default: $SPARKIT_HOME/library.")
    use_corpus: bool = Field(
        True,
        description="Offline: search the corpus (SciFact by default) beside the library; false "
        "(`--library-only`): the library alone. The answer's `searched` names what was searched.",
    )
    index: Literal["embedded", "qdrant"] = Field(
        "embedded",
        description="Offline: where the corpus is searched. 'embedded' (the default): the index folder under "
        "$SPARKIT_HOME, read whole into memory; 'qdrant': a Qdrant collection built with `sparkit "
        "index build --engine qdrant` (a server at qdrant_url, or a Qdrant Edge folder in qdrant_path), for "
        "corpora of millions of records (docs/deploy.md).",
    )
    qdrant_url: str | None = Field(
        None,
        description="index 'qdrant': the server, e.g. http://qdrant:6333 (its API key from the QDRANT_API_KEY "
        "environment variable, never a setting). Unset: the Qdrant Edge folder in qdrant_path.",
    )
    qdrant_path: str | None = Field(
        None,
        description="index 'qdrant' without qdrant_url: the folder, searched in-process by Qdrant Edge (the "
        "server's engine; one process at a time). Default: "
        "$SPARKIT_HOME/qdrant.",
    )
    qdrant_collection: str | None = Field(
        None,
        description="index 'qdrant': the collection. Default: sparkit-<corpus name>-<digest>, as `sparkit index "
        "build --engine qdrant` names it.",
    )
    qdrant_timeout_s: float = Field(
        30.0,
        gt=0,
        description="index 'qdrant': timeout of one request to the server, in seconds (3 attempts on connection "
        "errors, 429 and 5xx).",
    )
    sources: list[str] = Field(
        default_factory=lambda: ["arxiv", "semantic_scholar", "openalex", "crossref"],
        description="Live academic sources queried in parallel.",
    )
    enable_entity_expansion: bool = Field(
        True,
        description="Live: expand the chemical names a question mentions with PubChem synonyms (off: no PubChem "
        "client is built).",
    )


class RetrievalSettings(SettingsGroup):
    """Queries to sources, reranking the pool, and citation-graph hops."""

    reranker: Literal["offline", "cohere", "voyage"] = Field(
        "offline", description="Reranker: offline hybrid (BM25 + MiniLM), Cohere or Voyage."
    )
    enable_semantic_rerank: bool = Field(
        True, description="The offline reranker blends MiniLM semantic similarity with BM25 (off: BM25 alone)."
    )
    results_per_query: int = Field(20, ge=1, le=100, description="Records requested from each source per query.")
    rerank_top_k: int = Field(30, ge=1, le=200, description="Records kept after reranking.")
    rerank_prefilter: int = Field(
        200,
        ge=1,
        description="Above this pool size, only the records found by the most queries are reranked (a cheap "
        "first pass).",
    )
    rerank_per_hypothesis: int = Field(
        3,
        ge=0,
        description="Best records of each hypothesis kept whatever the blended ranking, so no candidate answer "
        "is starved of evidence.",
    )
    rerank_hypothesis_share: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Once hypotheses exist, a record's score is (1 - share) x relevance to the question + share "
        "x its best relevance to a hypothesis.",
    )
    novelty_cosine: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description="Document cosine above which a lower-ranked near-duplicate is demoted (enable_novelty_demotion).",
    )
    novelty_penalty: float = Field(
        0.5, ge=0.0, le=1.0, description="Factor a demoted near-duplicate's score is multiplied by."
    )
    citation_hop_top: int = Field(3, ge=0, le=10, description="Top records expanded through the citation graph.")
    citation_hops: int = Field(1, ge=0, le=2, description="Citation-graph hops per run.")
    citation_hop_per_record: int = Field(5, ge=1, le=50, description="New records kept per expanded record.")
    citation_min_year: int = Field(2000, description="Citation-hop records older than this are dropped.")
    citation_old_year: int = Field(
        2010, description="Citation-hop records older than this need citation_old_min_citations."
    )
    citation_old_min_citations: int = Field(50, description="Citations an old citation-hop record needs to be kept.")
    citation_keep_unknown_year: bool = Field(
        False,
        description="Also keep citation-hop records from live sources whose year (or, when old, citation count) "
        "is unknown (usually a poorly resolved reference). A local corpus's records are always kept: "
        "the user chose them, and local corpora often carry no years.",
    )
