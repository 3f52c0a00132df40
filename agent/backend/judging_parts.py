"""The judging parts of a backend: the offline stance judge, the chat models of each role, the reasoner and the LLM
stance judge built on them, the calibrators, and the relevance gate. The offline judge (its weights) is a cached part
(agent/backend/part_cache.py) on the judges group; `judging` assembles them for agent/backend/__init__.py."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, get_args

from agent.backend.part_cache import build_lock, part
from agent.config import Context
from agent.errors import ConfigurationError
from agent.interfaces import Calibrator, Embedder, Reasoner, StanceJudge
from agent.scoring.calibration import PlattCalibrator, RawScore, load_table
from agent.settings.base import OfflineJudge
from agent.settings.models import JudgeSettings, ModelSettings

if TYPE_CHECKING:
    from agent.llm.model import RoleModel
    from agent.scoring.relevance import RelevanceGate

OFFLINE_JUDGES: tuple[str, ...] = get_args(OfflineJudge)


def is_offline_judge(name: str) -> TypeGuard[OfflineJudge]:
    """Whether `name` is one of the offline judges (not 'auto' or 'llm'); a TypeGuard, so the type checker knows."""
    return name in OFFLINE_JUDGES


def offline_stance(judges: JudgeSettings) -> tuple[StanceJudge, list[str]]:
    """The offline judge for judges.stance_model ('llm' uses it as the fallback); notes say when auto fell back."""
    from agent.judges import offline_stance_judge
    from agent.judges.cross import direction_weights_in_use, readers_in_use
    from agent.judges.decider import DeciderReader, DeciderReadJudge, decider_weights_in_use
    from agent.judges.evidence import EvidenceReader, EvidenceReadJudge, evidence_weights_in_use

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
    evidence = evidence_weights_in_use(judges.stance_evidence_weights)
    if evidence is not None and "cross" in judge.name:  # it reads over the cross-encoder's lower layers
        reader = EvidenceReader(evidence)
        _ = reader.model  # loaded now: a missing or stale file fails at start-up, not mid-run
        judge = EvidenceReadJudge(judge, reader)
    decider = decider_weights_in_use(judges.stance_decider_weights)
    if decider is not None and "cross" in judge.name:  # its verdict model reads it beside the ensemble's readers
        decider_reader = DeciderReader(decider)
        _ = decider_reader.model  # the adapter and the MPNet base are checked now: a missing part fails at start-up
        judge = DeciderReadJudge(judge, decider_reader)
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
        include={
            "stance_model",
            "stance_weights",
            "stance_direction_weights",
            "stance_evidence_weights",
            "stance_decider_weights",
            "stance_readers",
            "stance_structure",
        },
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
    from agent.tools.models.encoder import shared_encoder

    with build_lock:
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
    from agent.tools.models.encoder import shared_encoder

    model = load_model()
    if model is None:
        return None, [
            "relevance gate: agent/models/relevance.json is absent (run python -m training.fit_relevance); "
            "off-topic questions are not declined"
        ]
    return RelevanceGate(shared_encoder(), model), []


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
