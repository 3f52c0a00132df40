"""Chooses the implementations behind the graph's interfaces from the run's settings.

`offline` (the default) and `live` are two registered factories returning the same `Backend` shape;
nodes call `backend_for(settings, documents)` and never branch on which one they got. Tests and
users can register their own factory with `register_backend`. A factory sees only the run's backend
settings (`Context.backend`), and the cache is keyed on exactly those, so no other setting can be
silently ignored by a cached backend.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args

from agent.budget import setup_time
from agent.calibration import PlattCalibrator, RawScore, load_table
from agent.config import BackendSettings, Context, OfflineJudge, sparkit_home
from agent.errors import ConfigurationError, CorpusError, InputError
from agent.interfaces import Calibrator, Embedder, LiteratureSource, Reasoner, Reranker, StanceJudge


@dataclass
class Backend:
    name: str
    sources: list[LiteratureSource]
    embedder: Embedder
    reranker: Reranker
    stance: StanceJudge
    reasoner: Reasoner
    web: LiteratureSource | None = None
    entity_expander: Any = None
    second_opinion: Reasoner | None = None
    notes: list[str] = field(default_factory=list)
    searched: str = ""  # what the sources cover, for the answer: 'SciFact (5,183 abstracts) + your library (3 PDFs)'
    calibrator: Calibrator = field(default_factory=RawScore)
    relevance: Any = None  # agent.scoring.relevance.RelevanceGate; None: no fitted model, the gate is off (noted)
    offline_calibrator: Calibrator | None = None  # with a chat-model judge: the offline judge's, for runs where the model judged nothing
    tools: Any = None  # what the backend opened and must close (live: agent.tools.live.LiveTools)
    speller: Any = None  # agent.reasoners.spelling.Speller over the corpus's words; None: no corpus vocabulary (live)

    async def aclose(self) -> None:
        """Release the network connections and files the backend's tools hold. They reopen on their next call, so
        a cached backend stays usable: a run releases them when it ends, since connections belong to its loop."""
        if self.tools is not None:
            await self.tools.aclose()


BackendFactory = Callable[[BackendSettings, list[dict] | None], Backend]
_factories: dict[str, BackendFactory] = {}
_cache: OrderedDict[str, Backend] = OrderedDict()
_lock = threading.Lock()
_build_lock = threading.RLock()
"""Held while a backend (or a judge) is built: two runs starting at once in a fresh process, or two server jobs,
would otherwise import transformers and load the same models concurrently, which fails (`cannot import name
'AutoModel'`). The second waits, then finds the first's backend in the cache."""
_CACHE_SIZE = 4


def register_backend(name: str, factory: BackendFactory) -> None:
    _factories[name] = factory
    clear_backend_cache()


def clear_backend_cache() -> None:
    with _lock:
        _cache.clear()


async def release_backends() -> None:
    """Release what every cached backend holds open (HTTP clients, the response cache file)."""
    with _lock:
        backends = list(_cache.values())
    await asyncio.gather(*(b.aclose() for b in backends))


def cache_key(settings: BackendSettings, documents: list[dict] | None) -> str:
    """Every backend setting and the caller's documents: two runs share a backend exactly when these agree."""
    docs = hashlib.sha256(json.dumps(documents, sort_keys=True, default=str).encode()).hexdigest() if documents else ""
    from agent.library.store import library_stamp

    return json.dumps([settings.model_dump(mode="json"), docs, library_stamp(settings)], sort_keys=True)


def backend_for(settings: Context | BackendSettings, documents: list[dict] | None = None) -> Backend:
    """The (cached) backend for these settings; building it may load models or an index."""
    settings = settings.backend if isinstance(settings, Context) else settings
    factory = _factories.get(settings.name)
    if factory is None:
        raise InputError(f"unknown backend {settings.name!r}; known: {', '.join(sorted(_factories))}")
    key = cache_key(settings, documents)
    if (cached := _cached(key)) is not None:
        return cached
    with _build_lock:  # one build at a time: concurrent first imports of transformers fail, and a model loads once
        if (cached := _cached(key)) is not None:
            return cached
        from agent.terminal import Spinner

        with Spinner(f"loading the {settings.name} backend (models, index)"):
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


async def abackend_for(settings: Context | BackendSettings, documents: list[dict] | None = None) -> Backend:
    """backend_for in a worker thread: the first call for some settings may load models or an index (blocking); that
    set-up time stops the run's wall clock (agent.budget.setup_time)."""
    settings = settings.backend if isinstance(settings, Context) else settings
    if (cached := _cached(cache_key(settings, documents))) is not None:
        return cached
    with setup_time(f"set-up: loading the {settings.name} backend (models, index)"):
        return await asyncio.to_thread(backend_for, settings, documents)


# ---------------------------------------------------------------------------------------------- pieces
OFFLINE_JUDGES: tuple[str, ...] = get_args(OfflineJudge)


def offline_stance(settings: BackendSettings) -> tuple[StanceJudge, list[str]]:
    """The offline judge for settings.stance_model ('llm' uses it as the fallback); notes say when auto fell back."""
    from agent.judges import offline_stance_judge
    from agent.judges.cross import direction_weights_in_use

    kind = settings.stance_model if settings.stance_model != "llm" else "auto"  # 'llm' falls back to the auto judge
    judge = offline_stance_judge(kind, Path(settings.stance_weights).expanduser() if settings.stance_weights else None,
                                 direction_weights_in_use(settings.stance_direction_weights))
    if settings.stance_structure:
        from agent.judges.reading import StructureReadJudge

        judge = StructureReadJudge(judge)
    notes = [f"stance: cross-encoder weights absent, using the {judge.name} judge"] if kind == "auto" and "cross" not in judge.name else []
    return judge, notes


def reasoner_and_stance(settings: BackendSettings, embedder: Embedder, offline_judge: StanceJudge) -> tuple[Reasoner, StanceJudge, Reasoner | None]:
    """Extractive roles offline; with chat models the chat reasoner (fast and strong roles), the LLM stance judge on the
    fast model unless told otherwise, and the second opinion: the second provider's hypotheses, else the extractive
    ones."""
    from agent.reasoners.extractive import ExtractiveReasoner

    extractive = ExtractiveReasoner(embedder)
    if not (settings.llm or settings.llm_fast or settings.llm_strong):
        if settings.stance_model == "llm":
            raise ConfigurationError("stance_model 'llm' needs a chat model: pass --llm provider:model")
        if settings.llm_second:
            raise ConfigurationError("llm_second is a second opinion beside a first chat model: pass --llm (or llm_fast / llm_strong) "
                "too")
        return extractive, offline_judge, None
    from agent.judges.llm import LLMStanceJudge
    from agent.llm import RoleModel, role_config
    from agent.reasoners.chat import ChatReasoner

    built: dict[Any, Any] = {}

    def role(name: str) -> RoleModel:
        config = role_config(settings, name)
        assert config is not None, name  # fast and strong fall back on each other and on llm, one of which is set here
        key = (config.spec, config.temperature, config.timeout_s, config.max_retries, config.base_url, config.n_ctx, config.max_tokens, config.n_threads)
        if key not in built:  # one client (one loaded GGUF) per distinct model
            built[key] = RoleModel.build(config).model
        return RoleModel(built[key], config)

    fast, strong = role("fast"), role("strong")
    reasoner = ChatReasoner(fast, strong, extractive, settings.prompts_dir)
    stance = offline_judge if settings.stance_model in OFFLINE_JUDGES else LLMStanceJudge(
        fast, offline_judge, settings.llm_stance_batch, settings.llm_stance_min_batch, settings.prompts_dir)
    second = ChatReasoner(role("second"), role("second"), extractive, settings.prompts_dir) if settings.llm_second else extractive
    return reasoner, stance, second


def offline_calibrator(settings: BackendSettings, stance: StanceJudge, offline_judge: StanceJudge) -> Calibrator | None:
    """With a chat-model judge, the calibrator of the offline judge it falls back to (for runs where the model judged
    nothing)."""
    return None if stance is offline_judge else calibrator_for(settings, offline_judge)[0]


def judge_for(settings: BackendSettings) -> StanceJudge:
    """The stance judge a run with these settings uses (the offline judge, or the chat model's with an LLM
    stance_model), built without opening a corpus: for pair-level evals."""
    from agent.tools.encoder import shared_encoder

    with _build_lock:
        judge, _ = offline_stance(settings)
        return reasoner_and_stance(settings, shared_encoder(), judge)[1]


def calibrator_for(settings: BackendSettings, stance: StanceJudge) -> tuple[Calibrator, list[str]]:
    """The fitted maps when asked for, or (auto) when they were fitted with this run's judge; else the raw score."""
    if settings.calibration == "raw":
        return RawScore(), []
    chosen = Path(settings.calibration_table).expanduser() if settings.calibration_table else None
    if chosen is not None and not chosen.is_file():
        raise ConfigurationError(f"calibration_table {chosen} does not exist: write one with `python -m training.fit_calibration "
            "--out FILE`")
    table = load_table(chosen)
    if settings.calibration == "fitted":
        if table is None:
            raise ConfigurationError("calibration 'fitted' needs agent/models/calibration.json: run training/fit_calibration.py")
        return PlattCalibrator(table), []
    from agent.judges.cross import cross_weights_in_use, direction_weights_in_use
    from agent.judges.packaged import weights_digest

    def fitted_with(recorded: str, path: Path | None) -> bool:  # '' records no check (older tables)
        return not recorded or path is not None and recorded == weights_digest(path)

    same_weights = table is not None and fitted_with(table.stance_weights_sha256, cross_weights_in_use(settings.stance_weights)) and \
        fitted_with(table.direction_weights_sha256, direction_weights_in_use(settings.stance_direction_weights))
    if table is not None and table.stance_model == stance.name and same_weights:
        return PlattCalibrator(table), []
    why = ("no fitted table" if table is None else f"the fitted maps are for the {table.stance_model} judge, not {stance.name}"
           if table.stance_model != stance.name else "the fitted maps are for other cross-encoder weights than the ones in use")
    return RawScore(), [f"calibration: {why}; confidence is the raw evidence score"]


def relevance_gate() -> tuple[Any, list[str]]:
    """The relevance gate with the packaged encoder (the same scale in every backend) and the fitted model."""
    from agent.scoring.relevance import RelevanceGate, load_model
    from agent.tools.encoder import shared_encoder

    model = load_model()
    if model is None:
        return None, ["relevance gate: agent/models/relevance.json is absent (run python -m training.fit_relevance); "
            "off-topic questions are not declined"]
    return RelevanceGate(shared_encoder(), model), []


def offline_reranker(settings: BackendSettings, *indexes: Any) -> Reranker:
    """The offline hybrid reranker; over local indexes it uses their sentence stores where they were built."""
    from agent.tools.offline_rerank import HybridReranker

    if indexes:
        return HybridReranker.for_index(*indexes, semantic=settings.enable_semantic_rerank)
    return HybridReranker(semantic=settings.enable_semantic_rerank)


# ---------------------------------------------------------------------------------------------- factories
def offline_indexes(settings: BackendSettings, documents: list[dict] | None) -> tuple[list[Any], list[str]]:
    """The indexes an offline run searches, and what each is, for the answer's `searched`: the caller's documents
    alone; else the corpus (SciFact by default) and beside it the library when it has documents (`use_library`);
    with `use_corpus` false the library alone. Adding to the library never drops the corpus."""
    from agent.library.store import library_index, library_label
    from agent.tools.local_index import LocalIndex, records_from_dicts

    if documents:
        return [LocalIndex.from_records(records_from_dicts(documents))], [f"your documents ({len(documents):,})"]
    library = library_index(settings)
    indexes, labels = [], []
    if library is None or settings.use_corpus:
        corpus, index = _corpus_index(settings)
        from agent.corpus import corpus_label

        indexes.append(index)
        labels.append(corpus_label(corpus, index.manifest.get("corpus_sha256"), len(index.records)))
    if library is not None:
        indexes.append(library)
        labels.append(library_label(settings))
    return indexes, labels


def _corpus_index(settings: BackendSettings) -> tuple[Path, Any]:
    from agent.tools.local_index import LocalIndex, default_index_dir

    corpus = settings.default_corpus(download=True)
    if corpus is None:
        raise CorpusError("no corpus configured: pass --corpus PATH (JSONL, SciFact or generic format) or run `sparkit config "
            "corpus PATH`")
    if not corpus.exists():
        raise CorpusError(f"corpus not found: {corpus}")
    index_dir = Path(settings.index_dir).expanduser() if settings.index_dir else None
    index_dir = index_dir or default_index_dir(corpus, sparkit_home())
    return corpus, LocalIndex.open(corpus, index_dir)  # a first build reports itself on stderr (LocalIndex.build)


def merged_word_counts(indexes: list[Any]) -> dict[str, int]:
    """The words every searched index knows, with their counts summed: what the speller corrects towards."""
    counts: dict[str, int] = {}
    for index in indexes:
        for word, count in index.word_counts().items():
            counts[word] = counts.get(word, 0) + count
    return counts


def build_offline(settings: BackendSettings, documents: list[dict] | None = None) -> Backend:
    from agent.reasoners.spelling import Speller
    from agent.tools.encoder import shared_encoder
    from agent.tools.local_index import LocalSource

    notes: list[str] = []
    indexes, searched = offline_indexes(settings, documents)
    embedder = shared_encoder()
    judge, stance_notes = offline_stance(settings)
    reasoner, stance, second = reasoner_and_stance(settings, embedder, judge)
    calibrator, calibration_notes = calibrator_for(settings, stance)
    gate, gate_notes = relevance_gate()
    return Backend(
        offline_calibrator=offline_calibrator(settings, stance, judge),
        name="offline",
        sources=[LocalSource(*indexes)],
        embedder=embedder,
        reranker=offline_reranker(settings, *indexes),
        stance=stance,
        reasoner=reasoner,
        second_opinion=second,
        notes=notes + stance_notes + calibration_notes + gate_notes,
        searched=" + ".join(searched),
        calibrator=calibrator,
        relevance=gate,
        speller=Speller(lambda: merged_word_counts(indexes)),
    )


def build_live(settings: BackendSettings, documents: list[dict] | None = None) -> Backend:
    from agent.tools.live import build_live_tools

    if documents:
        raise InputError("documents are answered by the offline backend; drop --backend live")
    return live_backend(settings, build_live_tools(settings))


def live_backend(settings: BackendSettings, tools: Any) -> Backend:
    """A live Backend around already-built LiveTools (tests pass tools on a replay transport)."""
    from agent.tools.encoder import shared_encoder
    from agent.tools.fallback import FallbackEmbedder, FallbackReranker

    # The court compares vectors from one embedder, so a hosted embedder falls back per call, never per text.
    embedder = FallbackEmbedder(tools.embedder, shared_encoder()) if tools.embedder else shared_encoder()
    reranker = FallbackReranker(tools.reranker, offline_reranker(settings)) if tools.reranker else offline_reranker(settings)
    judge, notes = offline_stance(settings)
    reasoner, stance, second = reasoner_and_stance(settings, embedder, judge)
    calibrator, calibration_notes = calibrator_for(settings, stance)
    gate, gate_notes = relevance_gate()
    return Backend(
        offline_calibrator=offline_calibrator(settings, stance, judge),
        name="live",
        sources=list(tools.sources),
        embedder=embedder,
        reranker=reranker,
        stance=stance,
        reasoner=reasoner,
        web=tools.web,
        entity_expander=tools.entity_expander,
        second_opinion=second,
        notes=notes + calibration_notes + gate_notes,
        searched="live sources: " + ", ".join(s.name for s in tools.sources) + (f" (then {tools.web.name})" if tools.web else ""),
        calibrator=calibrator,
        tools=tools,
        relevance=gate,
    )


register_backend("offline", build_offline)
register_backend("live", build_live)
