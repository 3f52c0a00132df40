"""Chooses the implementations behind the graph's interfaces from the run's settings; the parts it assembles live
beside it in this package.

`offline` (the default) and `live` are two registered factories returning the same `Backend` shape;
nodes get the run's backend from the node wrapper (agent/nodes/parts.py) and never branch on which one they got.
Tests and users can register their own factory with `register_backend`.

Each part of a backend is built by its own factory, cached on exactly the settings group that part reads
(part_cache.py): the search part (the index over the default corpus (corpus.py), the library, or the live clients;
search_parts.py) on `corpus` (with the caller's documents and the library's stamp), the offline stance judge on
`judges`, the chat models on `models` (judging_parts.py), the reranker on retrieval's reranker fields. So changing a
chat model's deadline rebuilds the cheap wrapper around the models, never the index; and no setting a part reads can
be silently ignored by a cached part. The assembled Backend is cached on the union of those keys (`backend_key`), so
two runs with the same settings share one.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent.backend.judging_parts import judging, relevance_gate
from agent.backend.part_cache import CACHE_SIZE, build_lock, clear_parts, lock, part
from agent.backend.search_parts import embedded_only, offline_reranker, offline_search, reranker_choice, search_key
from agent.budget import setup_time
from agent.config import Context
from agent.errors import InputError
from agent.interfaces import Calibrator, Embedder, LiteratureSource, Reasoner, Reranker, StanceJudge
from agent.scoring.calibration import RawScore

if TYPE_CHECKING:
    from agent.english.spelling import Speller
    from agent.scoring.relevance import RelevanceGate
    from agent.tools.live import LiveTools


class EntityExpander(Protocol):
    """Synonyms of a named entity (live: PubChem), appended to the academic queries."""

    async def expand(self, entity: str) -> list[str]: ...


class Closable(Protocol):
    """What a backend opened and must close (live: agent.tools.live.LiveTools)."""

    async def aclose(self) -> None: ...


@dataclass
class Backend:
    name: str
    sources: list[LiteratureSource]
    embedder: Embedder
    reranker: Reranker
    stance: StanceJudge
    reasoner: Reasoner
    web: LiteratureSource | None = None
    entity_expander: EntityExpander | None = None
    second_opinion: Reasoner | None = None
    notes: list[str] = field(default_factory=list)
    searched: str = ""  # what the sources cover, for the answer: 'SciFact (5,183 abstracts) + your library (3 PDFs)'
    calibrator: Calibrator = field(default_factory=RawScore)
    relevance: RelevanceGate | None = None  # None: no fitted model, the gate is off (noted)
    offline_calibrator: Calibrator | None = (
        None  # with a chat-model judge: the offline judge's, for runs where the model judged nothing
    )
    tools: Closable | None = None  # what the backend opened and must close (live: agent.tools.live.LiveTools)
    speller: Speller | None = None  # over the corpus's words; None: no corpus vocabulary (live)

    async def aclose(self) -> None:
        """Release the network connections and files the backend's tools hold. They reopen on their next call, so
        a cached backend stays usable: a run releases them when it ends, since connections belong to its loop."""
        if self.tools is not None:
            await self.tools.aclose()


BackendFactory = Callable[[Context, "list[dict[str, Any]] | None"], Backend]
_factories: dict[str, BackendFactory] = {}
_cache: OrderedDict[str, Backend] = OrderedDict()


def register_backend(name: str, factory: BackendFactory) -> None:
    _factories[name] = factory
    clear_backend_cache()


def clear_backend_cache() -> None:
    with lock:
        _cache.clear()
    clear_parts()


async def release_backends() -> None:
    """Release what every cached backend holds open (HTTP clients, the response cache file)."""
    with lock:
        backends = list(_cache.values())
    await asyncio.gather(*(b.aclose() for b in backends))


def backend_key(settings: Context, documents: list[dict[str, Any]] | None = None) -> str:
    """Every setting a backend is built from and the caller's documents: two runs share a backend exactly when these
    agree (each part's own key is a part of it)."""
    return json.dumps(
        [
            search_key(settings.corpus, documents, settings.retrieval.reranker),
            settings.models.model_dump(mode="json"),
            settings.judges.model_dump(mode="json"),
            reranker_choice(settings.retrieval),
        ],
        sort_keys=True,
    )


def backend_for(settings: Context, documents: list[dict[str, Any]] | None = None) -> Backend:
    """The (cached) backend for these settings; building it may load models or an index."""
    name = settings.corpus.backend
    factory = _factories.get(name)
    if factory is None:
        raise InputError(f"unknown backend {name!r}; known: {', '.join(sorted(_factories))}")
    key = backend_key(settings, documents)
    if (cached := _cached(key)) is not None:
        return cached
    with build_lock:  # one build at a time: concurrent first imports of transformers fail, and a model loads once
        if (cached := _cached(key)) is not None:
            return cached
        from agent.common.terminal import Spinner

        with Spinner(f"loading the {name} backend (models, index)"):
            backend = factory(settings, documents)
        with lock:  # cached before the build lock is released, so a waiting second build finds it
            _cache[key] = backend
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return backend


def _cached(key: str) -> Backend | None:
    with lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    return None


async def abackend_for(settings: Context, documents: list[dict[str, Any]] | None = None) -> Backend:
    """backend_for in a worker thread: the first call for some settings may load models or an index (blocking); that
    set-up time stops the run's wall clock (agent.budget.setup_time)."""
    if (cached := _cached(backend_key(settings, documents))) is not None:
        return cached
    with setup_time(f"set-up: loading the {settings.corpus.backend} backend (models, index)"):
        return await asyncio.to_thread(backend_for, settings, documents)


def build_offline(settings: Context, documents: list[dict[str, Any]] | None = None) -> Backend:
    from agent.tools.models.encoder import shared_encoder

    key = search_key(settings.corpus, documents)
    search = part("offline_search", key, lambda: offline_search(settings.corpus, documents))
    embedder = shared_encoder()
    judged = judging(settings, embedder)
    reranker = part(
        "offline_reranker",
        [key, reranker_choice(settings.retrieval)],
        lambda: offline_reranker(settings.retrieval, *embedded_only(search.indexes)),
    )
    gate, gate_notes = part("relevance_gate", None, relevance_gate)
    return Backend(
        offline_calibrator=judged.offline_calibrator,
        name="offline",
        sources=search.sources,
        embedder=embedder,
        reranker=reranker,
        stance=judged.stance,
        reasoner=judged.reasoner,
        second_opinion=judged.second_opinion,
        notes=judged.notes + gate_notes,
        searched=search.searched,
        calibrator=judged.calibrator,
        relevance=gate,
        speller=search.speller,
    )


def build_live(settings: Context, documents: list[dict[str, Any]] | None = None) -> Backend:
    from agent.tools.live import build_live_tools

    if documents:
        raise InputError("documents are answered by the offline backend; drop --backend live")
    key = search_key(settings.corpus, None, settings.retrieval.reranker)
    return live_backend(
        settings,
        part("live_tools", key, lambda: build_live_tools(settings.corpus, reranker=settings.retrieval.reranker)),
    )


def live_backend(settings: Context, tools: LiveTools) -> Backend:
    """A live Backend around already-built LiveTools (tests pass tools on a replay transport)."""
    from agent.tools.models.encoder import shared_encoder
    from agent.tools.models.fallback import FallbackEmbedder, FallbackReranker

    # The court compares vectors from one embedder, so a hosted embedder falls back per call, never per text.
    embedder = FallbackEmbedder(tools.embedder, shared_encoder()) if tools.embedder else shared_encoder()
    offline = offline_reranker(settings.retrieval)
    reranker = FallbackReranker(tools.reranker, offline) if tools.reranker else offline
    judged = judging(settings, embedder)
    gate, gate_notes = part("relevance_gate", None, relevance_gate)
    return Backend(
        offline_calibrator=judged.offline_calibrator,
        name="live",
        sources=list(tools.sources),
        embedder=embedder,
        reranker=reranker,
        stance=judged.stance,
        reasoner=judged.reasoner,
        web=tools.web,
        entity_expander=tools.entity_expander,
        second_opinion=judged.second_opinion,
        notes=judged.notes + gate_notes,
        searched="live sources: "
        + ", ".join(s.name for s in tools.sources)
        + (f" (then {tools.web.name})" if tools.web else ""),
        calibrator=judged.calibrator,
        tools=tools,
        relevance=gate,
    )


register_backend("offline", build_offline)
register_backend("live", build_live)
