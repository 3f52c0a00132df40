"""The settings of how evidence becomes an answer: the court (`court`), when the answer abstains (`answer`),
answer-claim checks (`verification`), hard caps (`budget`) and feature switches (`ablations`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.settings.base import SettingsGroup, lexicon


class CourtSettings(SettingsGroup):
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
    verdict_model: bool = Field(
        True,
        description="The fitted verdict model (agent/models/verdict.json, training/fit_verdict.py) decides a claim's "
        "or an option's verdict and the probability that it is right; false: the hand-set score formula with the "
        "decisive floor below (an ablation). Open questions always use the formula.",
    )
    verdict_model_path: str | None = Field(
        None, description="Another verdict model file (from `python -m training.fit_verdict --out FILE`)."
    )
    verdict_threshold: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="The probability below which a claim's verdict abstains; None: the model's own operating point, "
        "chosen out of fold (the largest coverage whose precision keeps its Clopper-Pearson bound at 0.80).",
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
    abstain_lean_share: float = Field(
        0.7,
        ge=0.5,
        le=1.0,
        description="When the adjudicating model abstains (or the answering model finds the evidence insufficient), "
        "the run states no verdict: it leans towards the evidence's choice where that choice holds at least this "
        "share of the evidence, and is INSUFFICIENT_EVIDENCE otherwise.",
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


class AnswerSettings(SettingsGroup):
    """When the reported answer abstains rather than answers (agent/answer/assemble.py)."""

    abstain_threshold: float = Field(
        0.3,
        description="The answer abstains (insufficient evidence) when the leading answer's confidence is below this.",
    )
    mcq_abstain_below: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="With the verdict model, a multiple-choice question abstains when its likeliest option's "
        "probability is below this; 0 (exam-style): it always names the option the evidence favours.",
    )
    confident_only: bool = Field(
        False,
        description="Give only the confident tier: a leading answer under the operating point is reported as "
        "insufficient evidence (with its lean in words) instead of as LEANING with its probability.",
    )
    review: bool = Field(
        False,
        description="Stop after the court for a scientist's review of its ledger (strike a passage, change its "
        "reading, add a retrieved record), then recompute the verdict from the edited ledger "
        "(agent/nodes/review.py; `sparkit ask --review`, Studio's interrupt, the SDK's command.resume).",
    )


class VerificationSettings(SettingsGroup):
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


class BudgetSettings(SettingsGroup):
    """Hard caps on one run; the stop reason names the one that ended it."""

    max_llm_calls: int = Field(40, ge=0, description="Hard cap on chat-model calls per run.")
    max_source_calls: int = Field(150, ge=0, description="Hard cap on source (API or index) calls per run.")
    max_wall_time_s: float = Field(300.0, gt=0, description="Wall-time budget in seconds.")
    max_cost_usd: float = Field(1.0, ge=0, description="Dollar budget (LLM tokens, rerank, search) per run.")
    brave_cap: int = Field(
        4, ge=0, le=20, description="Brave web searches per run (only for queries every academic source missed)."
    )
    recursion_limit: int = Field(80, ge=10, le=500, description="LangGraph recursion limit (steps) for one run.")


class AblationSettings(SettingsGroup):
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
