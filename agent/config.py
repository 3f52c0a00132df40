"""The run's context schema: every threshold, budget and feature flag, with named presets.

One pydantic model so LangGraph Studio shows each field with its description, the CLI and Python API
validate input in one place, and presets work like PaperQA2's named settings: a preset fills every
field the caller did not set explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PresetName = Literal["fast", "default", "research_max"]

DEFAULT_CORPUS_CANDIDATES = ("../shared/data/scifact/corpus.jsonl", "shared/data/scifact/corpus.jsonl")


def sparkit_home() -> Path:
    """Data directory for indexes, checkpoints, traces and the HTTP cache (SPARKIT_HOME)."""
    return Path(os.environ.get("SPARKIT_HOME") or Path.home() / ".sparkit").expanduser()


class Context(BaseModel):
    """Run settings. Fields left unset take the value of the chosen preset."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    preset: PresetName = Field("default", description="Named preset: fast, default or research_max. Explicit fields override it.")

    # --- backend -------------------------------------------------------------------------------
    backend: str = Field("offline", description="'offline' (local index + packaged models) or 'live' (real APIs, hosted models).")
    corpus_path: str | None = Field(None, description="JSONL corpus for the offline index (SciFact or generic format). Default: ../shared/data/scifact/corpus.jsonl when present.")
    index_dir: str | None = Field(None, description="Where the offline index is persisted. Default: $SPARKIT_HOME/index/<corpus name>.")
    sources: list[str] = Field(
        default_factory=lambda: ["arxiv", "semantic_scholar", "openalex", "crossref"],
        description="Live academic sources queried in parallel.",
    )
    llm: str | None = Field(None, description="Chat model as 'provider:model' (init_chat_model). None: every LLM role runs extractively.")
    llm_temperature: float = Field(0.0, description="Sampling temperature for the chat model.")
    llm_timeout_s: float = Field(60.0, gt=0, description="Per-request timeout of the chat model, in seconds (providers whose LangChain class takes one).")
    llm_max_retries: int = Field(3, ge=0, le=10, description="Retries the provider SDK makes on rate limits, 5xx and timeouts (honouring Retry-After) before the role falls back offline.")
    reranker: Literal["offline", "cohere", "voyage"] = Field("offline", description="Reranker: offline hybrid (BM25 + MiniLM), Cohere or Voyage.")
    stance_model: Literal["auto", "cross", "trained", "ensemble", "heuristic", "llm"] = Field("auto", description="Stance judge: offline cross-encoder, MLP ('trained'), heuristic, the mean of heuristic and cross-encoder ('ensemble'), or the chat model; auto = llm when configured, else ensemble.")

    # --- thresholds (seed defaults) --------------------------------------------------------------
    margin_threshold: float = Field(0.06, description="Below this margin between the top two hypotheses, run another discrimination round.")
    agreement_threshold: float = Field(0.35, description="Below this agreement between hypothesis providers, run another discrimination round.")
    contested_threshold: int = Field(1, description="More contested claims than this triggers targeted retrieval and a second court.")
    contradiction_weight: float = Field(0.5, description="Weight of contradiction in the hypothesis score (score = support - w * contradiction).")
    quantitative_weight: float = Field(1.5, description="Weight of passages carrying quantitative claims.")
    verdict_min_evidence: float = Field(0.5, description="Weighted stance evidence (sum of confidence x weight) a hypothesis needs on one side before the court calls it SUPPORTED or CONTRADICTED rather than INSUFFICIENT.")
    stance_min_confidence: float = Field(0.5, description="Stance confidence below which a passage counts as neutral.")
    dedup_cosine: float = Field(0.85, description="Cosine at or above which two claims merge (semantic dedup).")
    support_cap: int = Field(4, description="Supporting passages kept per hypothesis in the ledger.")
    contradict_cap: int = Field(2, description="Contradicting passages kept per hypothesis in the ledger.")
    abstain_threshold: float = Field(0.3, description="The answer abstains (insufficient evidence) when the leading answer's confidence is below this.")
    calibration: Literal["auto", "fitted", "raw"] = Field("auto", description="Confidence: 'fitted' maps the evidence score through the Platt maps fitted on SciFact validation claims (agent/models/calibration.json); 'raw' reports the uncalibrated score; auto = fitted when the run's stance judge is the one the maps were fitted with, else raw.")
    relevance_decay: float = Field(2.0, ge=0.0, description="Passage weight x (record rank + 1) ** -relevance_decay: evidence from the best-reranked records counts more (0: rank ignored; 2 chosen on SciFact validation claims).")
    option_relevance_decay: float = Field(0.0, ge=0.0, description="relevance_decay for the evidence of MCQ options: an option's records sit below the question's best ones, so rank says little (0 chosen on SciFact two-option MCQ validation questions: accuracy 0.583 vs 0.167 at 2).")
    adversarial_hop_weight: float = Field(1.0, description="Weight of citation-hop passages for the adversarial hypothesis (1.5 enables seed 001's boost).")

    # --- sizes -----------------------------------------------------------------------------------
    n_hypotheses: int = Field(4, ge=2, le=8, description="Candidate answers generated after round 1 (open questions).")
    queries_per_round: int = Field(10, ge=1, le=30, description="Cap on discriminating queries per round.")
    results_per_query: int = Field(20, ge=1, le=100, description="Records requested from each source per query.")
    rerank_top_k: int = Field(30, ge=1, le=200, description="Records kept after reranking.")
    court_records: int = Field(12, ge=1, le=100, description="Top reranked records whose sentences the court judges.")
    court_section_windows: bool = Field(True, description="Also judge windows of 2-3 consecutive sentences inside each section of a structured abstract, so a result stated over several sentences is read whole (on: SciFact validation F1 0.500 vs 0.496, PubMedQA held-out half 0.390 vs 0.301; evals/README.md).")
    citation_hop_top: int = Field(3, ge=0, le=10, description="Top records expanded through the citation graph.")
    citation_hops: int = Field(1, ge=0, le=2, description="Citation-graph hops per run.")
    citation_hop_per_record: int = Field(5, ge=1, le=50, description="New records kept per expanded record.")
    citation_min_year: int = Field(2000, description="Citation-hop records older than this are dropped.")
    citation_old_year: int = Field(2010, description="Citation-hop records older than this need citation_old_min_citations.")
    citation_old_min_citations: int = Field(50, description="Citations an old citation-hop record needs to be kept.")
    max_claims: int = Field(6, ge=0, le=12, description="Claims extracted from the answer for verification.")
    max_discrimination_rounds: int = Field(2, ge=0, le=5, description="Extra discrimination rounds the margin/agreement edge may trigger.")
    max_escalations: int = Field(1, ge=0, le=3, description="Targeted re-checks the contested-claims edge may trigger.")
    brave_cap: int = Field(4, ge=0, le=20, description="Brave web searches per run (only for queries every academic source missed).")

    # --- budget ----------------------------------------------------------------------------------
    max_llm_calls: int = Field(40, ge=0, description="Hard cap on chat-model calls per run.")
    max_source_calls: int = Field(150, ge=0, description="Hard cap on source (API or index) calls per run.")
    max_wall_time_s: float = Field(300.0, gt=0, description="Wall-time budget in seconds.")
    max_cost_usd: float = Field(1.0, ge=0, description="Dollar budget (LLM tokens, rerank, search) per run.")
    recursion_limit: int = Field(80, ge=10, le=500, description="LangGraph recursion limit (steps) for one run.")

    # --- feature flags (ablations) ---------------------------------------------------------------
    enable_hypotheses: bool = Field(True, description="Generate competing hypotheses (off: the question itself is the only hypothesis).")
    enable_discrimination: bool = Field(True, description="Send hypothesis-targeted and contrastive queries.")
    enable_citation_hop: bool = Field(True, description="Expand top records through references and citing papers.")
    enable_verification: bool = Field(True, description="Extract and verify the answer's claims.")
    enable_semantic_rerank: bool = Field(True, description="Semantic reranking (off: lexical only).")
    enable_quantitative_weight: bool = Field(True, description="Weight quantitative passages by quantitative_weight.")
    enable_section_weight: bool = Field(True, description="Weight passages by structured-abstract section (background 0.5, methods 0.7, results 1.0) and skip aims and questions.")
    enable_triangulation: bool = Field(True, description="Weight evidence by cross-source triangulation.")
    enable_claim_dedup: bool = Field(True, description="Merge near-duplicate claims (cosine >= dedup_cosine).")
    enable_novelty_demotion: bool = Field(True, description="Demote near-duplicate documents in the ranking.")
    enable_entity_expansion: bool = Field(True, description="Expand chemical names via PubChem (live only).")

    # --- trust: relevance gate, verification floor, faithfulness (issue 16) ----------------------
    enable_relevance_gate: bool = Field(True, description="Before the court, decline (INSUFFICIENT_EVIDENCE) when the top records do not address the question: a logistic model over the packaged MiniLM's best question-sentence cosine and term coverage, fitted by training/fit_relevance.py (agent/models/relevance.json).")

    def resolved(self) -> "Context":
        """This context with the preset's values filled into every field not set explicitly."""
        overrides = PRESETS[self.preset]
        data = self.model_dump()
        for key, value in overrides.items():
            if key not in self.model_fields_set:
                data[key] = value
        resolved = Context.model_validate(data)
        resolved.__pydantic_fields_set__ = set(self.model_fields_set) | set(overrides)
        return resolved

    def default_corpus(self) -> Path | None:
        """The configured corpus, else the shared SciFact corpus when present."""
        if self.corpus_path:
            return Path(self.corpus_path).expanduser()
        env = os.environ.get("SPARKIT_CORPUS")
        if env:
            return Path(env).expanduser()
        for candidate in DEFAULT_CORPUS_CANDIDATES:
            path = Path(candidate)
            if path.exists():
                return path.resolve()
        return None


PRESETS: dict[str, dict[str, Any]] = {
    "fast": {
        "n_hypotheses": 3,
        "queries_per_round": 4,
        "results_per_query": 10,
        "rerank_top_k": 15,
        "court_records": 8,
        "citation_hops": 0,
        "max_claims": 3,
        "max_discrimination_rounds": 0,
        "max_escalations": 0,
        "max_llm_calls": 12,
        "max_source_calls": 40,
        "max_wall_time_s": 60.0,
        "max_cost_usd": 0.25,
    },
    "default": {},
    "research_max": {
        "n_hypotheses": 5,
        "queries_per_round": 16,
        "results_per_query": 40,
        "rerank_top_k": 50,
        "court_records": 20,
        "citation_hops": 2,
        "citation_hop_top": 5,
        "max_discrimination_rounds": 3,
        "max_escalations": 2,
        "max_llm_calls": 120,
        "max_source_calls": 400,
        "max_wall_time_s": 900.0,
        "max_cost_usd": 3.0,
    },
}
