"""Chooses the implementations behind the graph's interfaces from the run's settings.

`offline` (the default) and `live` are two registered factories returning the same `Backend` shape;
nodes get the run's backend from the node wrapper (agent/nodes/parts.py) and never branch on which one they got.
Tests and users can register their own factory with `register_backend`.

Each part of a backend is built by its own factory, cached on exactly the settings group that part reads
(`part(...)`): the search part (the index, the library, or the live clients) on `corpus` (with the caller's documents
and the library's stamp), the offline stance judge on `judges`, the chat models on `models`, the reranker on
retrieval's reranker fields. So changing a chat model's deadline rebuilds the cheap wrapper around the models, never
the index; and no setting a part reads can be silently ignored by a cached part. The assembled Backend is cached on
the union of those keys (`backend_key`), so two runs with the same settings share one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar, get_args

from agent.budget import setup_time
from agent.config import Context, sparkit_home
from agent.errors import ConfigurationError, CorpusError, InputError
from agent.interfaces import Calibrator, Embedder, LiteratureSource, Reasoner, Reranker, StanceJudge
from agent.scoring.calibration import PlattCalibrator, RawScore, load_table
from agent.settings.base import OfflineJudge
from agent.settings.models import JudgeSettings, ModelSettings
from agent.settings.sources import CorpusSettings, RetrievalSettings

if TYPE_CHECKING:
    from agent.english.spelling import Speller
    from agent.llm.model import RoleModel
    from agent.scoring.relevance import RelevanceGate
    from agent.tools.live import LiveTools
    from agent.tools.local_index import LocalIndex


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
_parts: OrderedDict[tuple[str, str], Any] = OrderedDict()
_lock = threading.Lock()
_build_lock = threading.RLock()
"""Held while a backend (or a part of one, or a judge) is built: two runs starting at once in a fresh process, or two
server jobs, would otherwise import transformers and load the same models concurrently, which fails (`cannot import
name 'AutoModel'`). The second waits, then finds the first's backend in the cache."""
_CACHE_SIZE = 4
T = TypeVar("T")


def register_backend(name: str, factory: BackendFactory) -> None:
    _factories[name] = factory
    clear_backend_cache()


def clear_backend_cache() -> None:
    with _lock:
        _cache.clear()
        _parts.clear()


async def release_backends() -> None:
    """Release what every cached backend holds open (HTTP clients, the response cache file)."""
    with _lock:
        backends = list(_cache.values())
    await asyncio.gather(*(b.aclose() for b in backends))


def part(kind: str, key: Any, build: Callable[[], T]) -> T:
    """The cached `kind` part built from exactly `key` (the settings it reads), built once by `build`."""
    cache_key = (kind, json.dumps(key, sort_keys=True, default=str))
    with _lock:
        if cache_key in _parts:
            _parts.move_to_end(cache_key)
            return _parts[cache_key]
    with _build_lock:
        with _lock:
            if cache_key in _parts:
                return _parts[cache_key]
        built = build()
        with _lock:
            _parts[cache_key] = built
            same_kind = [k for k in _parts if k[0] == kind]
            for old in same_kind[: max(0, len(same_kind) - _CACHE_SIZE)]:  # as many of each kind as backends cached
                del _parts[old]
    return built


def _documents_digest(documents: list[dict[str, Any]] | None) -> str:
    return hashlib.sha256(json.dumps(documents, sort_keys=True, default=str).encode()).hexdigest() if documents else ""


def _reranker_choice(retrieval: RetrievalSettings) -> dict[str, Any]:
    """The retrieval fields the backend's reranker is built from (the rest are read by the nodes at run time)."""
    return retrieval.model_dump(mode="json", include={"reranker", "enable_semantic_rerank"})


def search_key(corpus: CorpusSettings, documents: list[dict[str, Any]] | None, reranker: str = "offline") -> list[Any]:
    """What the search part is built from: the corpus group, the caller's documents and the library's stamp (a
    library that changed is opened again); live, also the hosted reranker its clients include."""
    from agent.library.searched import library_stamp

    return [
        corpus.model_dump(mode="json"),
        _documents_digest(documents),
        library_stamp(corpus),
        reranker if corpus.backend == "live" else "",
    ]


def backend_key(settings: Context, documents: list[dict[str, Any]] | None = None) -> str:
    """Every setting a backend is built from and the caller's documents: two runs share a backend exactly when these
    agree (each part's own key is a part of it)."""
    return json.dumps(
        [
            search_key(settings.corpus, documents, settings.retrieval.reranker),
            settings.models.model_dump(mode="json"),
            settings.judges.model_dump(mode="json"),
            _reranker_choice(settings.retrieval),
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
    with _build_lock:  # one build at a time: concurrent first imports of transformers fail, and a model loads once
        if (cached := _cached(key)) is not None:
            return cached
        from agent.terminal import Spinner

        with Spinner(f"loading the {name} backend (models, index)"):
            backend = factory(settings, documents)
        with _lock:  # cached before the build lock is released, so a waiting second build finds it
            _cache[key] = backend
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return backend


def _cached(key: str) -> Backend | None:
    with _lock:
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


# ---------------------------------------------------------------------------------------------- pieces
OFFLINE_JUDGES: tuple[str, ...] = get_args(OfflineJudge)


def is_offline_judge(name: str) -> TypeGuard[OfflineJudge]:
    """Whether `name` is one of the offline judges (not 'auto' or 'llm'); a TypeGuard, so the type checker knows."""
    return name in OFFLINE_JUDGES


def offline_stance(judges: JudgeSettings) -> tuple[StanceJudge, list[str]]:
    """The offline judge for judges.stance_model ('llm' uses it as the fallback); notes say when auto fell back."""
    from agent.judges import offline_stance_judge
    from agent.judges.cross import direction_weights_in_use, readers_in_use

    kind = judges.stance_model if is_offline_judge(judges.stance_model) else "auto"
    judge = offline_stance_judge(
        kind,
        Path(judges.stance_weights).expanduser() if judges.stance_weights else None,
        direction_weights_in_use(judges.stance_direction_weights),
        readers_in_use(judges.stance_readers),
    )
    if judges.stance_structure:
        from agent.judges.reading import StructureReadJudge

        judge = StructureReadJudge(judge)
    notes = (
        [f"stance: cross-encoder weights absent, using the {judge.name} judge"]
        if kind == "auto" and "cross" not in judge.name
        else []
    )
    return judge, notes


def cached_offline_stance(judges: JudgeSettings) -> tuple[StanceJudge, list[str]]:
    """offline_stance, built once per judge setting (loading its weights)."""
    offline = judges.model_dump(
        mode="json",
        include={"stance_model", "stance_weights", "stance_direction_weights", "stance_readers", "stance_structure"},
    )
    return part("offline_stance", offline, lambda: offline_stance(judges))


def role_models(models: ModelSettings) -> dict[str, RoleModel]:
    """The chat model of each role that has one, with its call settings; one client (one loaded GGUF) per distinct
    model."""
    from agent.llm.model import RoleModel
    from agent.llm.roles import role_config

    clients: dict[tuple[Any, ...], Any] = {}
    roles: dict[str, RoleModel] = {}
    for name in ("fast", "strong", "second"):
        config = role_config(models, name)
        if config is None:
            continue
        client = (
            config.spec,
            config.temperature,
            config.timeout_s,
            config.max_retries,
            config.base_url,
            config.n_ctx,
            config.max_tokens,
            config.n_threads,
        )
        if client not in clients:
            clients[client] = RoleModel.build(config).model
        roles[name] = RoleModel(clients[client], config)
    return roles


def reasoner_and_stance(
    models: ModelSettings, judges: JudgeSettings, embedder: Embedder, offline_judge: StanceJudge
) -> tuple[Reasoner, StanceJudge, Reasoner | None]:
    """Extractive roles offline; with chat models the chat reasoner (fast and strong roles), the LLM stance judge on the
    fast model unless told otherwise, and the second opinion: the second provider's hypotheses, else the extractive
    ones."""
    from agent.reasoners.extractive import ExtractiveReasoner

    extractive = ExtractiveReasoner(embedder)
    if not (models.llm or models.llm_fast or models.llm_strong):
        if judges.stance_model == "llm":
            raise ConfigurationError("stance_model 'llm' needs a chat model: pass --llm provider:model")
        if models.llm_second:
            raise ConfigurationError(
                "llm_second is a second opinion beside a first chat model: pass --llm (or llm_fast / llm_strong) too"
            )
        return extractive, offline_judge, None
    from agent.judges.llm import LLMStanceJudge
    from agent.reasoners.chat import ChatReasoner

    roles = role_models(models)
    fast, strong = roles["fast"], roles["strong"]
    reasoner = ChatReasoner(fast, strong, extractive, models.prompts_dir)
    stance = (
        offline_judge
        if judges.stance_model in OFFLINE_JUDGES
        else LLMStanceJudge(
            fast, offline_judge, judges.llm_stance_batch, judges.llm_stance_min_batch, models.prompts_dir
        )
    )
    second = (
        ChatReasoner(roles["second"], roles["second"], extractive, models.prompts_dir)
        if "second" in roles
        else extractive
    )
    return reasoner, stance, second


def offline_calibrator(judges: JudgeSettings, stance: StanceJudge, offline_judge: StanceJudge) -> Calibrator | None:
    """With a chat-model judge, the calibrator of the offline judge it falls back to (for runs where the model judged
    nothing)."""
    return None if stance is offline_judge else calibrator_for(judges, offline_judge)[0]


def judge_for(settings: Context) -> StanceJudge:
    """The stance judge a run with these settings uses (the offline judge, or the chat model's with an LLM
    stance_model), built without opening a corpus: for pair-level evals."""
    from agent.tools.encoder import shared_encoder

    with _build_lock:
        judge, _ = cached_offline_stance(settings.judges)
        return reasoner_and_stance(settings.models, settings.judges, shared_encoder(), judge)[1]


def calibrator_for(judges: JudgeSettings, stance: StanceJudge) -> tuple[Calibrator, list[str]]:
    """The fitted maps when asked for, or (auto) when they were fitted with this run's judge; else the raw score."""
    if judges.calibration == "raw":
        return RawScore(), []
    chosen = Path(judges.calibration_table).expanduser() if judges.calibration_table else None
    if chosen is not None and not chosen.is_file():
        raise ConfigurationError(
            f"calibration_table {chosen} does not exist: write one with `python -m training.fit_calibration --out FILE`"
        )
    table = load_table(chosen)
    if judges.calibration == "fitted":
        if table is None:
            raise ConfigurationError(
                "calibration 'fitted' needs agent/models/calibration.json: run training/fit_calibration.py"
            )
        return PlattCalibrator(table), []
    from agent.judges.cross import cross_weights_in_use, direction_weights_in_use, readers_in_use
    from agent.judges.packaged import weights_digest

    def fitted_with(recorded: str, path: Path | None) -> bool:  # '' records no check (older tables)
        return not recorded or (path is not None and recorded == weights_digest(path))

    same_weights = (
        table is not None
        and fitted_with(table.stance_weights_sha256, cross_weights_in_use(judges.stance_weights))
        and fitted_with(table.direction_weights_sha256, direction_weights_in_use(judges.stance_direction_weights))
        and table.reader_weights_sha256 == [weights_digest(path) for path in readers_in_use(judges.stance_readers)]
    )
    if table is not None and table.stance_model == stance.name and same_weights:
        return PlattCalibrator(table), []
    why = (
        "no fitted table"
        if table is None
        else f"the fitted maps are for the {table.stance_model} judge, not {stance.name}"
        if table.stance_model != stance.name
        else "the fitted maps are for other cross-encoder weights than the ones in use"
    )
    return RawScore(), [f"calibration: {why}; confidence is the raw evidence score"]


def relevance_gate() -> tuple[RelevanceGate | None, list[str]]:
    """The relevance gate with the packaged encoder (the same scale in every backend) and the fitted model."""
    from agent.scoring.relevance import RelevanceGate, load_model
    from agent.tools.encoder import shared_encoder

    model = load_model()
    if model is None:
        return None, [
            "relevance gate: agent/models/relevance.json is absent (run python -m training.fit_relevance); "
            "off-topic questions are not declined"
        ]
    return RelevanceGate(shared_encoder(), model), []


def offline_reranker(retrieval: RetrievalSettings, *indexes: LocalIndex) -> Reranker:
    """The offline hybrid reranker; over local indexes it uses their sentence stores where they were built."""
    from agent.tools.offline_rerank import HybridReranker

    if indexes:
        return HybridReranker.for_index(*indexes, semantic=retrieval.enable_semantic_rerank)
    return HybridReranker(semantic=retrieval.enable_semantic_rerank)


@dataclass(frozen=True)
class Judging:
    """The backend's judging parts: the reasoner, the stance judge, the second opinion and the calibrators."""

    reasoner: Reasoner
    stance: StanceJudge
    second_opinion: Reasoner | None
    calibrator: Calibrator
    offline_calibrator: Calibrator | None
    notes: list[str]


def judging(settings: Context, embedder: Embedder) -> Judging:
    """The judging parts, from the models and judges groups (the offline judge and the chat clients are cached
    parts)."""
    judge, stance_notes = cached_offline_stance(settings.judges)
    reasoner, stance, second = reasoner_and_stance(settings.models, settings.judges, embedder, judge)
    calibrator, calibration_notes = calibrator_for(settings.judges, stance)
    return Judging(
        reasoner,
        stance,
        second,
        calibrator,
        offline_calibrator(settings.judges, stance, judge),
        stance_notes + calibration_notes,
    )


# ---------------------------------------------------------------------------------------------- factories
def offline_indexes(
    corpus: CorpusSettings, documents: list[dict[str, Any]] | None
) -> tuple[list[LocalIndex], list[str]]:
    """The indexes an offline run searches, and what each is, for the answer's `searched`: the caller's documents
    alone; else the corpus (SciFact by default) and beside it the library when it has documents (`use_library`);
    with `use_corpus` false the library alone. Adding to the library never drops the corpus."""
    from agent.library.searched import library_index, library_label
    from agent.tools.corpus_records import records_from_dicts
    from agent.tools.local_index import LocalIndex

    if documents:
        return [LocalIndex.from_records(records_from_dicts(documents))], [f"your documents ({len(documents):,})"]
    library = library_index(corpus)
    indexes: list[LocalIndex] = []
    labels: list[str] = []
    if library is None or corpus.use_corpus:
        path, index = _corpus_index(corpus)
        from agent.corpus import corpus_label

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
    names), on the server at qdrant_url or in the local-mode folder (qdrant_path, else $SPARKIT_HOME/qdrant)."""
    from agent.corpus import corpus_of
    from agent.tools.qdrant_index import QdrantLocation, default_collection

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
    """The corpus's Qdrant collection, opened and checked (agent.tools.qdrant_index.QdrantIndex.open)."""
    from agent.tools.qdrant_index import QdrantIndex

    index = QdrantIndex.open(qdrant_location(corpus))
    return Path(index.manifest.get("corpus") or index.location.collection), index


def _corpus_index(corpus: CorpusSettings) -> tuple[Path, LocalIndex]:
    from agent.corpus import corpus_of
    from agent.tools.local_index import LocalIndex, default_index_dir

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
    return path, LocalIndex.open(path, index_dir)  # a first build reports itself on stderr (LocalIndex.build)


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
    from agent.tools.local_index import LocalSource

    indexes, searched = offline_indexes(corpus, documents)
    return OfflineSearch(
        indexes, [LocalSource(*indexes)], " + ".join(searched), Speller(lambda: merged_word_counts(indexes))
    )


def embedded_only(indexes: list[Any]) -> list[LocalIndex]:
    """The embedded indexes among these: the reranker's sentence stores exist for them alone (not for a Qdrant
    index)."""
    from agent.tools.local_index import LocalIndex

    return [index for index in indexes if isinstance(index, LocalIndex)]


def build_offline(settings: Context, documents: list[dict[str, Any]] | None = None) -> Backend:
    from agent.tools.encoder import shared_encoder

    key = search_key(settings.corpus, documents)
    search = part("offline_search", key, lambda: offline_search(settings.corpus, documents))
    embedder = shared_encoder()
    judged = judging(settings, embedder)
    reranker = part(
        "offline_reranker",
        [key, _reranker_choice(settings.retrieval)],
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
    from agent.tools.encoder import shared_encoder
    from agent.tools.fallback import FallbackEmbedder, FallbackReranker

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
