"""The live backend's tools, built from the backend settings; the live Backend owns them and closes them.

    # -> LiveTools
    tools = build_live_tools(settings.corpus, reranker=settings.retrieval.reranker, transport=None, cache_dir=None)
    async with tools:                                                             # closes the HTTP clients
        records = await tools.sources[0].search("query", limit=10)

How queries are routed over these tools (academic sources in parallel, Brave only for queries they all
missed, within the run's budget) is agent/search.py's job.

Keys and settings come from the environment: SEMANTIC_SCHOLAR_API_KEY, OPENALEX_API_KEY,
CROSSREF_PLUS_TOKEN (optional), SPARKIT_MAILTO (contact email for the Crossref/OpenAlex polite pools),
BRAVE_API_KEY, COHERE_API_KEY, VOYAGE_API_KEY. Build LiveTools once per process (or run) and share it:
each client's pacer only spaces the calls that go through it.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from agent.config import sparkit_home
from agent.errors import ConfigurationError
from agent.interfaces import Embedder, LiteratureSource, Reranker
from agent.settings.sources import CorpusSettings
from agent.tools.http import Clock, HttpOptions, ResponseCache, SystemClock
from agent.tools.models.cohere_rerank import CohereReranker
from agent.tools.models.voyage import KEY_ENV as VOYAGE_KEY_ENV
from agent.tools.models.voyage import VoyageEmbedder, VoyageReranker
from agent.tools.sources.arxiv import ArxivClient
from agent.tools.sources.brave import KEY_ENV as BRAVE_KEY_ENV
from agent.tools.sources.brave import BraveSearchClient
from agent.tools.sources.crossref import CrossrefClient
from agent.tools.sources.openalex import OpenAlexClient
from agent.tools.sources.pubchem import PubChemClient
from agent.tools.sources.semantic_scholar import SemanticScholarClient

MAILTO_ENV = "SPARKIT_MAILTO"

_ACADEMIC: dict[str, Callable[[HttpOptions], LiteratureSource]] = {
    "arxiv": lambda options: ArxivClient(options=options),
    "semantic_scholar": lambda options: SemanticScholarClient(options=options),
    "openalex": lambda options: OpenAlexClient(options=options),
    "crossref": lambda options: CrossrefClient(options=options),
}
ACADEMIC_SOURCES = tuple(_ACADEMIC)


@dataclass
class LiveTools:
    """Everything the live backend calls out to; None where the feature is off or unconfigured."""

    sources: list[LiteratureSource]
    web: LiteratureSource | None = None
    entity_expander: PubChemClient | None = None
    reranker: Reranker | None = None
    embedder: Embedder | None = None
    cache: ResponseCache | None = None

    async def aclose(self) -> None:
        """Close every HTTP client and the cache file."""
        tools = [*self.sources, self.web, self.entity_expander, self.reranker, self.embedder]
        await asyncio.gather(*(t.aclose() for t in tools if t is not None and hasattr(t, "aclose")))
        if self.cache is not None:
            self.cache.close()

    async def __aenter__(self) -> LiveTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def build_live_tools(
    settings: CorpusSettings,
    *,
    reranker: str = "offline",
    transport: httpx.AsyncBaseTransport | None = None,
    cache_dir: Path | str | None = None,
    use_cache: bool = True,
    clock: Clock | None = None,
    rng: random.Random | None = None,
) -> LiveTools:
    """Clients for `settings.sources`, Brave (when BRAVE_API_KEY is set), PubChem (when entity expansion is
    on), the hosted `reranker` (retrieval.reranker: 'cohere' or 'voyage') and Voyage embeddings (when VOYAGE_API_KEY
    is set).

    `transport` replaces the network (tests replay fixtures through httpx.MockTransport); `cache_dir`
    defaults to $SPARKIT_HOME/http-cache and `use_cache=False` disables the cache. Raises
    ConfigurationError for an unknown source or a chosen hosted reranker without its key.
    """
    unknown = [s for s in settings.sources if s not in _ACADEMIC]
    if unknown:
        raise ConfigurationError(f"unknown live source(s) {unknown}; choose from {list(ACADEMIC_SOURCES)}")
    from agent.tools.http.shared import http_state

    if cache_dir:  # an explicit folder: the SQLite cache there, whatever SPARKIT_HTTP_STATE says
        cache, pacer_factory = (ResponseCache(Path(cache_dir)) if use_cache else None), None
    else:
        cache, pacer_factory = http_state(sparkit_home() / "http-cache", use_cache)
    options = HttpOptions(
        pacer_factory=pacer_factory,
        transport=transport,
        cache=cache,
        clock=clock or SystemClock(),
        rng=rng or random.Random(),
        mailto=os.environ.get(MAILTO_ENV) or None,
    )
    hosted: Reranker | None = None
    if reranker == "cohere":
        hosted = CohereReranker(options=options)
    elif reranker == "voyage":
        hosted = VoyageReranker(options=options)
    return LiveTools(
        sources=[_ACADEMIC[name](options) for name in dict.fromkeys(settings.sources)],
        web=BraveSearchClient(options=options) if os.environ.get(BRAVE_KEY_ENV) else None,
        entity_expander=PubChemClient(options=options) if settings.enable_entity_expansion else None,
        reranker=hosted,
        embedder=VoyageEmbedder(options=options) if os.environ.get(VOYAGE_KEY_ENV) else None,
        cache=cache,
    )
