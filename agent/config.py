"""The run's settings (the graph's context schema), grouped by concern, with named presets stored as data files.

    Context(max_claims=3)                        # flat names still work: each field name is unique
    Context(verification={"max_claims": 3})      # or by group, as Studio's form and `sparkit presets -v` show it
    Context(**{"verification.max_claims": 3})    # or dotted, as `--set verification.max_claims=3`

Nine groups, each read by one part of the code: `corpus` (what is searched: the offline index, the library or live
sources), `models` (the chat models behind the LLM roles), `judges` (the stance judge and the confidence's
calibration), `retrieval` (queries to sources, reranking, citation hops), `court` (hypotheses, discrimination, how
evidence is weighed, verdicts), `answer` (when the answer abstains), `verification` (answer-claim checks), `budget`
(hard caps) and `ablations` (feature switches). The backend builds each of its parts from its own group
(agent/backend.py), so a chat-model setting never reopens the index. Every tuning constant lives in a group with a
description of what it does, so Studio shows it and an eval can change it with `--set`; word lists a setting
defaults to are data files (agent/lexicons). Spellings of earlier versions (`backend.llm`, `court.abstain_threshold`)
still name their field.

A preset (agent/presets/<name>.json, like PaperQA2's configs, or the user's own in $SPARKIT_HOME/presets) fills every
field the caller did not set; it is applied once, when the Context is validated, so a Context always holds the values
a run uses.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

PresetName = str
"""A packaged preset (agent/presets: fast, default, research_max) or one of the user's ($SPARKIT_HOME/presets)."""
PACKAGED_PRESETS: tuple[str, ...] = ("fast", "default", "research_max")
DEFAULT_PRESET: PresetName = "default"
"""The preset of a run that names none, from every entry point: CLI, Python API, MCP tools, Studio / the server."""
OfflineJudge = Literal["cross", "trained", "ensemble", "heuristic"]
StanceModel = Literal["auto", "llm", OfflineJudge]
ModelRole = Literal["fast", "strong", "second"]
StructuredOutput = Literal["auto", "json_schema", "function_calling", "json_mode", "prompt"]

PRESETS_DIR = Path(__file__).resolve().parent / "presets"
LEXICONS_DIR = Path(__file__).resolve().parent / "lexicons"


def sparkit_home() -> Path:
    """Data directory for indexes, checkpoints, traces and the HTTP cache (SPARKIT_HOME)."""
    return Path(os.environ.get("SPARKIT_HOME") or Path.home() / ".sparkit").expanduser()


def user_presets_dir() -> Path:
    """Where a user's own presets live ($SPARKIT_HOME/presets/<name>.json), beside the packaged ones."""
    return sparkit_home() / "presets"


@cache
def lexicon(name: str) -> dict[str, Any]:
    """The entries of agent/lexicons/<name>.json, a word list a setting defaults to (its `description` says what
    they are); a copy is the setting's default, so a caller can change it."""
    data = json.loads((LEXICONS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return dict(data["entries"])


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class CorpusSettings(_Group):
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
        "index build --engine qdrant` (a server at qdrant_url, or local mode in qdrant_path), for "
        "corpora of millions of records (docs/deploy.md).",
    )
    qdrant_url: str | None = Field(
        None,
        description="index 'qdrant': the server, e.g. http://qdrant:6333 (its API key from the QDRANT_API_KEY "
        "environment variable, never a setting). Unset: local mode in qdrant_path.",
    )
    qdrant_path: str | None = Field(
        None,
        description="index 'qdrant' without qdrant_url: the local-mode folder (one process at a time). Default: "
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


class ModelSettings(_Group):
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


class JudgeSettings(_Group):
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


class RetrievalSettings(_Group):
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


class CourtSettings(_Group):
    """Hypotheses, the discrimination loop, and how the court weighs evidence into scores and verdicts."""

    n_hypotheses: int = Field(4, ge=2, le=8, description="Candidate answers generated after round 1 (open questions).")
    hypothesis_evidence_records: int = Field(
        10, ge=1, description="Top reranked records whose sentences ground the generated hypotheses."
    )
    margin_threshold: float = Field(
        0.06, description="Below this margin between the top two hypotheses, run another discrimination round."
    )
    agreement_threshold: float = Field(
        0.35, description="Below this agreement between hypothesis providers, run another discrimination round."
    )
    max_discrimination_rounds: int = Field(
        2, ge=0, le=5, description="Extra discrimination rounds the margin/agreement edge may trigger."
    )
    queries_per_round: int = Field(10, ge=1, le=30, description="Cap on discriminating queries per round.")
    discrimination_closest: int = Field(
        3, ge=1, description="In later rounds, discriminating queries target only this many best-scored hypotheses."
    )
    court_records: int = Field(12, ge=1, le=100, description="Top reranked records whose sentences the court judges.")
    court_section_windows: bool = Field(
        True,
        description="Also judge windows of 2-3 consecutive sentences inside each section of a structured "
        "abstract, so a result stated over several sentences is read whole.",
    )
    sentences_per_hypothesis: int = Field(
        16, ge=1, description="Passages closest to a hypothesis (embedding cosine) that the stance judge reads for it."
    )
    neutral_kept: int = Field(
        2, ge=0, description="Neutral passages kept per hypothesis in the ledger (shown, never scored)."
    )
    support_cap: int = Field(4, description="Supporting passages kept per hypothesis in the ledger.")
    contradict_cap: int = Field(2, description="Contradicting passages kept per hypothesis in the ledger.")
    contradiction_weight: float = Field(
        0.5, description="Weight of contradiction in the hypothesis score (score = support - w * contradiction)."
    )
    verdict_min_evidence: float = Field(
        0.5,
        description="Weighted stance evidence (sum of confidence x weight) a hypothesis needs on one side before "
        "the court calls it SUPPORTED or CONTRADICTED rather than INSUFFICIENT.",
    )
    decisive_confidence: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="A verdict (SUPPORTED or CONTRADICTED) needs at least one finding sentence read on its side "
        "with at least this confidence (0: no such floor): a pile of weak on-topic readings is not a "
        "finding.",
    )
    tentative_takes_no_side: bool = Field(
        True,
        description="A sentence that says its own point needs confirming ('these effects require further "
        "investigation') takes no side in the court, whatever the judge read.",
    )
    stance_min_confidence: float = Field(
        0.5, description="Stance confidence below which a passage counts as neutral (court and claim checks)."
    )
    stance_side_floor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="In the court, a passage the judge reads as NEUTRAL still takes the likelier side (SUPPORT "
        "or CONTRADICT) when that side's probability reaches this floor; it counts with that "
        "probability as its confidence. 0.5 or more: off (the judge's argmax only).",
    )
    null_results_contradict: bool = Field(
        True,
        description="Read a passage whose every stated statistic is non-significant (p >= 0.05, intervals "
        "spanning no effect) and that names the claim's outcome as against a claim of an effect "
        "(CONTRADICT, with the judge's probability of not-support as its confidence), whatever the "
        "judge read: the judge does not read 'no significant difference' as against a claimed effect.",
    )
    quantitative_weight: float = Field(1.5, description="Weight of passages carrying quantitative claims.")
    section_weights: dict[str, float] = Field(
        default_factory=lambda: dict(lexicon("section_weights")),
        description="Weight of a passage by its structured-abstract section (enable_section_weight): "
        "background and aims say what was asked, methods how, and a trial's registration, "
        "funding or software availability nothing about the question; sections not listed "
        "(results, conclusions) weigh 1, and a joined label not listed ('patients and methods') "
        "as its most result-like part. Default: agent/lexicons/section_weights.json.",
    )
    relevance_decay: float = Field(
        2.0,
        ge=0.0,
        description="Passage weight x (record rank + 1) ** -relevance_decay: evidence from the best-reranked "
        "records counts more (0: rank ignored).",
    )
    option_relevance_decay: float = Field(
        0.0,
        ge=0.0,
        description="relevance_decay for the evidence of MCQ options: an option's records sit below the "
        "question's best ones, so rank says little (0: rank ignored).",
    )
    adversarial_hop_weight: float = Field(
        1.0,
        description="Weight of citation-hop passages for the adversarial hypothesis (above 1: the adversarial "
        "hypothesis's citation-hop evidence counts more).",
    )
    mcq_stance_share: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="MCQ option score = share x stance-based score share + (1 - share) x semantic evidence share "
        "(how close each option's statement is to the passages).",
    )
    aspect_scope: Literal["record", "passage"] = Field(
        "record",
        description="Where the aspect check (ablations.enable_aspect_check) looks for a hypothesis's subject and "
        "object: 'record', anywhere in the title or abstract; 'passage' (stricter, opt-in), in the "
        "judged passage and its record's title, so a statin-mortality sentence takes no side on "
        "'statins increase the risk of type 2 diabetes' though its abstract lists diabetes "
        "elsewhere. 'passage' answers fewer questions, each slightly more often right.",
    )
    # ---- adjudication by the chat model ----
    model_share: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="With a chat model, each hypothesis's final score = model_share x the model's adjudicated "
        "probability + (1 - model_share) x the evidence share (MCQ: the semantic evidence share; "
        "claims and open questions: the stance score share).",
    )
    adjudication_abstain_below: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="With a chat model, the answer abstains when the chosen hypothesis's blended score is below this.",
    )
    adjudication_passages: int = Field(
        3,
        ge=1,
        le=8,
        description="Supporting and contradicting ledger passages (each) shown to the model per hypothesis when "
        "it adjudicates.",
    )
    contested_share: float = Field(
        0.7,
        ge=0.5,
        le=1.0,
        description="The model and the evidence disagree strongly (a contested point, and a reason for another "
        "discrimination round) when each gives its own choice at least this share.",
    )


class AnswerSettings(_Group):
    """When the reported answer abstains rather than answers (agent/nodes/report.py)."""

    abstain_threshold: float = Field(
        0.3,
        description="The answer abstains (insufficient evidence) when the leading answer's confidence is below this.",
    )


class VerificationSettings(_Group):
    """Checking the answer's claims against fresh retrieval, and the contested-claims loop."""

    max_claims: int = Field(6, ge=0, le=12, description="Claims extracted from the answer for verification.")
    dedup_cosine: float = Field(0.85, description="Cosine at or above which two claims merge (semantic dedup).")
    claim_results_per_query: int = Field(
        8, ge=1, le=100, description="Records requested from each source for a claim's literal and negation queries."
    )
    claim_context_records: int = Field(
        10, ge=0, description="Top reranked records of the run checked beside a claim's fresh records."
    )
    claim_sentences: int = Field(
        10, ge=1, description="Passages closest to a claim (embedding cosine) that the stance judge reads."
    )
    claim_dossier_size: int = Field(
        2, ge=1, description="Supporting and refuting passages (each) kept in a claim's dossier."
    )
    claim_min_independent: int = Field(
        2,
        ge=1,
        description="Independent supporting sources (institution, else DOI, else document) a claim needs to be "
        "VERIFIED, its own source included; at least one must be another record's confident reading "
        "(claim_support_confidence).",
    )
    claim_support_confidence: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Stance confidence at or above which another record's supporting passage can verify a claim "
        "(the confidence at which an answer's quote takes a side, compose.STRONG): a claim is "
        "VERIFIED only by such a reading from a record about it, of another document and "
        "independence token than the claim's own sources.",
    )
    claim_strong_refutation: float = Field(
        0.8, ge=0.0, le=1.0, description="Refutation confidence at or above which a claim cannot be VERIFIED."
    )
    contested_threshold: int = Field(
        1, description="More contested claims than this triggers targeted retrieval and a second court."
    )
    max_escalations: int = Field(1, ge=0, le=3, description="Targeted re-checks the contested-claims edge may trigger.")


class BudgetSettings(_Group):
    """Hard caps on one run; the stop reason names the one that ended it."""

    max_llm_calls: int = Field(40, ge=0, description="Hard cap on chat-model calls per run.")
    max_source_calls: int = Field(150, ge=0, description="Hard cap on source (API or index) calls per run.")
    max_wall_time_s: float = Field(300.0, gt=0, description="Wall-time budget in seconds.")
    max_cost_usd: float = Field(1.0, ge=0, description="Dollar budget (LLM tokens, rerank, search) per run.")
    brave_cap: int = Field(
        4, ge=0, le=20, description="Brave web searches per run (only for queries every academic source missed)."
    )
    recursion_limit: int = Field(80, ge=10, le=500, description="LangGraph recursion limit (steps) for one run.")


class AblationSettings(_Group):
    """Feature switches for ablations (the two that change the backend's parts are in the backend group)."""

    enable_hypotheses: bool = Field(
        True, description="Generate competing hypotheses (off: the question itself is the only hypothesis)."
    )
    enable_discrimination: bool = Field(True, description="Send hypothesis-targeted and contrastive queries.")
    enable_citation_hop: bool = Field(True, description="Expand top records through references and citing papers.")
    enable_verification: bool = Field(True, description="Extract and verify the answer's claims.")
    enable_quantitative_weight: bool = Field(True, description="Weight quantitative passages by quantitative_weight.")
    enable_section_weight: bool = Field(
        True,
        description="Weight passages by structured-abstract section (court.section_weights) and skip aims and "
        "questions.",
    )
    enable_triangulation: bool = Field(True, description="Weight evidence by cross-source triangulation.")
    enable_claim_dedup: bool = Field(True, description="Merge near-duplicate claims (cosine >= dedup_cosine).")
    enable_novelty_demotion: bool = Field(True, description="Demote near-duplicate documents in the ranking.")
    enable_aspect_check: bool = Field(
        True,
        description="In the court, a record takes a side on a hypothesis only when its title or abstract "
        "(court.aspect_scope: or the passage with its title) names a content word of the statement's "
        "subject and one of its object (agent/scoring/aspect.py); otherwise its passages read as "
        "neutral.",
    )
    enable_relevance_gate: bool = Field(
        True,
        description="Before the court, decline (INSUFFICIENT_EVIDENCE) when the top records do not address the "
        "question: a logistic model over the packaged MiniLM's best question-sentence cosine and "
        "term coverage, fitted by training/fit_relevance.py (agent/models/relevance.json).",
    )


GROUPS: dict[str, type[_Group]] = {
    "corpus": CorpusSettings,
    "models": ModelSettings,
    "judges": JudgeSettings,
    "retrieval": RetrievalSettings,
    "court": CourtSettings,
    "answer": AnswerSettings,
    "verification": VerificationSettings,
    "budget": BudgetSettings,
    "ablations": AblationSettings,
}
FLAT_NAMES: dict[str, str] = {name: group for group, model in GROUPS.items() for name in model.model_fields}
"""Every field's flat name -> its group (names are unique across groups)."""
LEGACY_GROUPS = ("backend",)
"""Group names of earlier versions (`backend.llm`, `--set backend.name=live`, a trace's `{"backend": {...}}`): each
field is placed in the group it belongs to now, as are fields named under a group they have since left
(`court.abstain_threshold` is `answer.abstain_threshold`)."""
_LEGACY_FIELDS = {"name": "backend"}  # backend.name is corpus.backend


def _place(tree: dict[str, Any], group: str, field: str, value: Any) -> None:
    tree.setdefault(group, {})[field] = value


def settings_tree(data: Mapping[str, Any] | BaseModel | None) -> dict[str, Any]:
    """Caller input in any accepted spelling (flat, dotted, by group, group models, an earlier version's group) as
    {group: {field: value}} plus `preset`; unknown keys are kept so validation names them."""
    if isinstance(data, BaseModel):
        data = data.model_dump(exclude_unset=True)
    tree: dict[str, Any] = {}
    for key, value in (data or {}).items():
        if key == "preset":
            tree["preset"] = value
        elif (key in GROUPS or key in LEGACY_GROUPS) and isinstance(value, (Mapping, BaseModel)):
            for field, inner in _items(value):
                _place_field(tree, key, field, inner)
        elif "." in key and (group := key.split(".", 1)[0]) in (*GROUPS, *LEGACY_GROUPS):
            _place_field(tree, group, key.split(".", 1)[1], value)
        elif key in FLAT_NAMES:
            _place(tree, FLAT_NAMES[key], key, value)
        else:
            tree[key] = value
    return tree


def _place_field(tree: dict[str, Any], group: str, field: str, value: Any) -> None:
    """`group.field` where it is now: in `group`, else (a group or field an earlier version named) in its own group."""
    if group in GROUPS and field in GROUPS[group].model_fields:
        _place(tree, group, field, value)
        return
    field = _LEGACY_FIELDS.get(field, field) if group in LEGACY_GROUPS else field
    if field in FLAT_NAMES:
        _place(tree, FLAT_NAMES[field], field, value)
    else:
        _place(tree, group if group in GROUPS else FLAT_NAMES.get(field, group), field, value)  # validation names it


def _items(value: Mapping[str, Any] | BaseModel) -> list[tuple[str, Any]]:
    return list((value.model_dump(exclude_unset=True) if isinstance(value, BaseModel) else value).items())


def merge_trees(*trees: Mapping[str, Any]) -> dict[str, Any]:
    """Later trees win, field by field inside each group."""
    merged: dict[str, Any] = {}
    for tree in trees:
        for key, value in tree.items():
            if key in GROUPS and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = copy.deepcopy(value)
    return merged


def available_presets() -> dict[str, Path]:
    """Every preset a run may name -> its file: the packaged ones, then the user's (a user file named like a packaged
    preset does not replace it: an eval's `fast` stays the documented one)."""
    found = {name: PRESETS_DIR / f"{name}.json" for name in PACKAGED_PRESETS}
    user = user_presets_dir()
    if user.is_dir():
        for path in sorted(user.glob("*.json")):
            found.setdefault(path.stem, path)
    return found


def load_preset(name: str) -> dict[str, Any]:
    """A preset as a settings tree (its `description` left out)."""
    path = available_presets()[name]
    return copy.deepcopy(_read_preset(path, path.stat().st_mtime_ns))


@cache
def _read_preset(path: Path, mtime_ns: int) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"preset {path} is not readable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"preset {path} must hold a JSON object of settings")
    data.pop("description", None)
    return settings_tree(data)


def preset_description(name: str) -> str:
    return str(json.loads(available_presets()[name].read_text(encoding="utf-8")).get("description", ""))


class Context(BaseModel):
    """Run settings by concern. Fields the caller leaves unset take the preset's value, then the documented default."""

    model_config = ConfigDict(extra="forbid")

    preset: PresetName = Field(
        DEFAULT_PRESET,
        description="Named preset: fast, default or research_max (agent/presets/<name>.json), or one of your own "
        "($SPARKIT_HOME/presets/<name>.json). Explicit fields override it.",
    )
    corpus: CorpusSettings = Field(default_factory=CorpusSettings, description=CorpusSettings.__doc__)
    models: ModelSettings = Field(default_factory=ModelSettings, description=ModelSettings.__doc__)
    judges: JudgeSettings = Field(default_factory=JudgeSettings, description=JudgeSettings.__doc__)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description=RetrievalSettings.__doc__)
    court: CourtSettings = Field(default_factory=CourtSettings, description=CourtSettings.__doc__)
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description=AnswerSettings.__doc__)
    verification: VerificationSettings = Field(
        default_factory=VerificationSettings, description=VerificationSettings.__doc__
    )
    budget: BudgetSettings = Field(default_factory=BudgetSettings, description=BudgetSettings.__doc__)
    ablations: AblationSettings = Field(default_factory=AblationSettings, description=AblationSettings.__doc__)

    _explicit: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, name: str) -> str:
        if name not in (known := available_presets()):
            raise ValueError(
                f"unknown preset {name!r}; known: {', '.join(known)} (your own: {user_presets_dir()}/<name>.json)"
            )
        return name

    @model_validator(mode="wrap")
    @classmethod
    def _apply_preset(cls, data: Any, handler: Any) -> Context:
        """The one place a preset is applied: the caller's values over the preset's over the defaults."""
        if isinstance(data, Context) or not isinstance(data, (Mapping, BaseModel)):
            return handler(data)
        explicit = settings_tree(data)
        name = explicit.pop("preset", DEFAULT_PRESET)
        preset = load_preset(name) if isinstance(name, str) and name in available_presets() else {}
        context = handler({**merge_trees(preset, explicit), "preset": name})
        context._explicit = explicit
        return context

    def explicit(self) -> dict[str, Any]:
        """What the caller set, as a settings tree with the preset's name: re-validating it gives this Context back."""
        return {"preset": self.preset, **copy.deepcopy(self._explicit)}

    def with_overrides(self, *layers: Mapping[str, Any]) -> Context:
        """This Context's explicit settings with later layers on top (a new `preset` re-applies that preset)."""
        return Context.model_validate(merge_trees(self.explicit(), *(settings_tree(layer) for layer in layers)))

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON schema with the groups inlined (no $ref), so a form renderer such as LangGraph Studio's shows
        each group as a titled, described section of fields.

        A field's default is written into its description ("Default: 4; fast: 3; research_max: 5"), not as the
        schema's `default`: a form fills every `default` into what it sends, and sent values are explicit, so they
        would override the chosen preset. Left out, a field the user does not touch is not sent and the preset
        decides it."""
        schema = _inline_refs(super().model_json_schema(*args, **kwargs))
        schema["properties"]["preset"]["enum"] = list(available_presets())
        for group, model in GROUPS.items():
            defaults = model().model_dump(mode="json")
            for field, prop in schema["properties"][group]["properties"].items():
                prop.pop("default", None)
                prop["description"] = (
                    f"{prop.get('description', '').rstrip()} {default_note(group, field, defaults[field])}".strip()
                )
        return schema


def default_note(group: str, field: str, default: Any) -> str:
    """'Default: 4; fast: 3; research_max: 5.': the documented default and every preset that changes it."""
    by_preset = [
        f"{name}: {json.dumps(tree[group][field])}"
        for name, tree in PRESETS.items()
        if field in tree.get(group, {}) and tree[group][field] != default
    ]
    return "; ".join([f"Default: {json.dumps(default)}", *by_preset]) + "."


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = resolve(defs[node["$ref"].rsplit("/", 1)[-1]])
                return {**target, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


PRESETS: dict[str, dict[str, Any]] = {name: load_preset(name) for name in PACKAGED_PRESETS}
"""Each packaged preset's settings tree, read from agent/presets/*.json."""
