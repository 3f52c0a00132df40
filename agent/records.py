"""What the court and the answer are made of, shared by every layer: hypotheses, the ledger of judged passages, claims
and their verdicts, the edges' decisions, usage, and the answer a run returns. The literature records they cite are in
agent/literature.py.

These import nothing from the rest of the package but agent.literature, so tools, nodes, the CLI and evals can all use
them.
"""

from __future__ import annotations

from enum import Enum
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, Field

# A checkpoint names each stored class by module and name: checkpoints written before these moved to agent.literature
# name them agent.records.X, so they stay importable from here (agent.api.checkpoint.FORMER_MODULES), for that alone.
from agent.literature import Citation as Citation
from agent.literature import Passage as Passage
from agent.literature import Provenance as Provenance
from agent.literature import Query as Query
from agent.literature import Record as Record
from agent.literature import SourceLocation as SourceLocation

TaskType = Literal["mcq", "open", "polar", "claim"]  # polar: a yes / no question
Stance = Literal["SUPPORT", "CONTRADICT", "NEUTRAL"]
STANCE_LABELS: tuple[Stance, ...] = ("SUPPORT", "CONTRADICT", "NEUTRAL")  # the order of every stance model's outputs
Route = Literal[
    "retrieve",
    "citation_hop",
    "rerank",
    "hypothesize",
    "court",
    "discriminate",
    "synthesize",
    "target_claims",
    "report",
]
"""Every node a conditional edge can lead to (agent/routing.py narrows it per edge)."""
RouteT = TypeVar("RouteT", bound=Route)


class Status(str, Enum):
    """ANSWERED: the confident tier (the leading answer reaches the operating point); LEANING: a side leads but is
    under it, and the answer states the lean with its probability; INSUFFICIENT_EVIDENCE: nothing addresses the
    question, no record takes a side, or "not enough information" is the likeliest reading."""

    ANSWERED = "ANSWERED"
    LEANING = "LEANING"
    INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    ERROR = "ERROR"


class ClaimVerdict(str, Enum):
    VERIFIED = "VERIFIED"
    UNVERIFIED = "UNVERIFIED"
    CONTESTED = "CONTESTED"


class HypothesisVerdict(str, Enum):
    SUPPORTED = "SUPPORTED"
    CONTRADICTED = "CONTRADICTED"
    INSUFFICIENT = "INSUFFICIENT"


class Hypothesis(BaseModel):
    """A candidate answer weighed by the court."""

    id: str
    text: str
    origin: Literal["option", "evidence", "claim", "negation", "llm", "abstain"] = "evidence"
    option_index: int | None = None
    claim: str | None = Field(
        default=None, description="Declarative statement the stance judge tests (defaults to text)."
    )
    polarity: int = Field(
        default=1, description="+1 when support for `claim` supports this hypothesis, -1 when it refutes it."
    )
    support: float = 0.0
    contradiction: float = 0.0
    score: float = 0.0
    verdict: HypothesisVerdict = HypothesisVerdict.INSUFFICIENT

    @property
    def statement(self) -> str:
        return self.claim or self.text


class LedgerEntry(BaseModel):
    """One judged passage for one hypothesis."""

    hypothesis_id: str
    record_id: str
    sentence_index: int | None = None
    sentence_end: int | None = Field(
        default=None, description="Set when the passage is a window: the index after its last sentence."
    )
    text: str
    stance: Stance
    confidence: float
    weight: float = 1.0
    via: str = "search"
    judged_by: str | None = Field(
        default=None, description="'llm' when a chat model judged this passage's stance; None for the offline judge."
    )
    decided: bool = Field(
        default=False,
        description="The sentence whose reading decided the verdict (the verdict model's strongest finding on the "
        "winning side): quoted first.",
    )
    reviewed: bool = Field(
        default=False, description="A reviewer set this passage's reading (agent/nodes/review.py): confidence 1."
    )


class Claim(BaseModel):
    """A checkable statement extracted from the answer, with its verification dossier."""

    text: str
    key_terms: list[str] = Field(default_factory=list)
    sources: list[str] = Field(
        default_factory=list,
        description="Record ids the answer cites for this claim. They are left out of its check: a quoted "
        "record cannot corroborate, or refute, its own quote.",
    )
    against_answer: bool = Field(
        False,
        description="The claim quotes evidence the answer shows as contradicting it: verified, it speaks against "
        "the answer, so it does not raise the answer's confidence.",
    )
    verdict: ClaimVerdict = ClaimVerdict.UNVERIFIED
    supporting: list[str] = Field(default_factory=list, description="Record ids supporting the claim.")
    refuting: list[str] = Field(default_factory=list, description="Record ids refuting the claim.")
    independent_sources: int = 0
    dossier: list[LedgerEntry] = Field(default_factory=list)
    note: str = Field(
        default="",
        description="Why the verdict is what it is when no other record could be weighed ('no independent source "
        "found').",
    )


class Decision(BaseModel, Generic[RouteT]):
    """A conditional edge's choice and the numbers behind it (for traces and stop reasons); each edge's decisions
    are a subclass whose `next` is that edge's Literal of routes (agent/routing.py)."""

    at: str
    next: RouteT
    reason: str
    margin: float | None = None
    agreement: float | None = None
    contested: int | None = None
    round: int = 0


class Usage(BaseModel):
    llm_calls: int = 0
    source_calls: int = 0
    source_failures: dict[str, int] = Field(default_factory=dict)
    calls_by_source: dict[str, int] = Field(default_factory=dict)
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    wall_time_s: float = 0.0
    setup_s: float = Field(
        default=0.0,
        description="Set-up this run waited for (loading models, a first index build): paid "
        "once per process, not part of wall_time_s or of any node's seconds (filled by "
        "the API at run end).",
    )
    fallbacks: list[str] = Field(default_factory=list)
    llm_retries: int = Field(
        default=0, description="Chat-model calls that were retries of an unusable reply (each also in llm_calls)."
    )
    by_node: dict[str, dict] = Field(
        default_factory=dict,
        description="Per graph node: runs, seconds, llm_calls, tokens, cost_usd, source_calls, "
        "calls_by_source, cache_hits "
        "(filled by the API at run end; `add` leaves it empty).",
    )

    def add(self, other: Usage) -> Usage:
        merged = Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            source_calls=self.source_calls + other.source_calls,
            cache_hits=self.cache_hits + other.cache_hits,
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cost_usd=self.cost_usd + other.cost_usd,
            wall_time_s=max(self.wall_time_s, other.wall_time_s),
            setup_s=self.setup_s + other.setup_s,
            fallbacks=[*self.fallbacks, *other.fallbacks],
            llm_retries=self.llm_retries + other.llm_retries,
        )
        for field in ("source_failures", "calls_by_source"):
            combined = dict(getattr(self, field))
            for key, count in getattr(other, field).items():
                combined[key] = combined.get(key, 0) + count
            setattr(merged, field, combined)
        return merged


class AnswerSentence(BaseModel):
    """One sentence of the answer and the ids of the retrieved records it cites."""

    text: str
    citations: list[str] = Field(
        default_factory=list, description="Ids of records the run retrieved that this sentence relies on."
    )
    role: str | None = Field(
        default=None,
        description="For an evidence statement, its role as the reader sees it: supports_claim / against_claim "
        "(towards the claim as the user wrote it, whichever answer won), for_option / against_option "
        "(towards the selected option), for_answer / against_answer (towards an open answer's line), "
        "related (a reading not confident enough to take a side: shown as 'Related evidence'). See "
        "agent/answer/compose.py, ROLES.",
    )


class HypothesisJudgement(BaseModel):
    """The chat model's judgement of one hypothesis when it adjudicates (issue 17), its citations checked in code."""

    hypothesis_id: str
    judgement: Literal["holds", "fails", "undecided"]
    probability: float = Field(
        ge=0.0, le=1.0, description="The model's probability that this hypothesis is the right answer."
    )
    evidence: list[str] = Field(
        default_factory=list, description="Record ids of the ledger passages it relied on (only passages it was shown)."
    )
    reason: str = ""


class Adjudication(BaseModel):
    """The model adjudicates, the evidence checks it: the model's judgements and choice, the evidence's choice, and the
    blend the answer follows (score = model_share x model probability + (1 - model_share) x evidence share)."""

    model: str = Field(description="The chat model that adjudicated ('provider:model').")
    judgements: list[HypothesisJudgement] = Field(default_factory=list)
    model_choice: str | None = Field(
        default=None, description="The hypothesis the model chose; None when it abstained."
    )
    evidence_choice: str | None = Field(
        default=None,
        description="The hypothesis the evidence alone favours (largest evidence share); None when no evidence "
        "took a side.",
    )
    model_probability: dict[str, float] = Field(
        default_factory=dict,
        description="The model's probabilities, normalised over the hypotheses (an uncited or missing judgement "
        "counts as uninformative).",
    )
    evidence_share: dict[str, float] = Field(
        default_factory=dict,
        description="Each hypothesis's share of the evidence (MCQ: semantic evidence share; else stance score share).",
    )
    blend: dict[str, float] = Field(
        default_factory=dict, description="The final score of each hypothesis; the answer follows it."
    )
    choice: str | None = Field(
        default=None,
        description="The hypothesis with the best blended score; None when the blend is below the abstention "
        "threshold.",
    )
    model_abstained: bool = Field(
        default=False,
        description="The model said the evidence does not decide: its probabilities are not counted and the run "
        "states no verdict (a lean at most, where the evidence alone clearly favours one answer).",
    )
    abstained: bool = False
    contested: bool = Field(
        default=False, description="The model and the evidence each strongly favour a different hypothesis."
    )
    notes: list[str] = Field(default_factory=list)


class Correction(BaseModel):
    """A word of the question read as another: a misspelling the corpus does not know ('asprin' -> 'aspirin') or a
    question word ('Dose' -> 'Does'); agent/english/spelling.py."""

    original: str
    corrected: str


PaperAnswer = Literal["supports", "contradicts", "mixed", "silent"]
StudyDesign = Literal[
    "meta-analysis",
    "systematic review",
    "RCT",
    "cohort",
    "case-control",
    "cross-sectional",
    "case report or series",
    "animal",
    "in vitro",
    "narrative review",
    "other",
]


class PaperFinding(BaseModel):
    """One record the court read, at a glance: its answer to the question from the ledger's readings of it, its study
    design and its stated sample size, each with the sentence it came from (agent/answer/papers.py)."""

    record_id: str
    title: str = ""
    year: int | None = None
    answer: PaperAnswer = Field(
        description="Towards the claim as written (a claim or yes / no question) or the answer given (a choice or an "
        "open question): supports, contradicts, mixed (sentences on both sides, neither outweighing the other twice "
        "over) or silent (related: the court read it, but no kept reading of it takes a side)."
    )
    answer_sentence: str | None = Field(default=None, description="The passage whose reading decided `answer`.")
    design: StudyDesign = Field(description="Read by rules from the title and abstract (agent/scoring/design.py).")
    design_sentence: str | None = None
    sample_size: int | None = Field(
        default=None, description="Participants (patients, people, animals) the abstract states first; None if none."
    )
    size_sentence: str | None = None


class Answer(BaseModel):
    """What a run returns: the CLI's --json output and the Python API's return value."""

    status: Status
    task: TaskType
    question: str
    answer: str
    verdict: Literal["SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO"] | None = Field(
        default=None, description="For claims and yes/no questions: the claim's verdict."
    )
    confidence: float = Field(
        ge=0.0,
        le=1.0,
        description=(
            "Probability that what the status line says is right (the verdict model's, else "
            "agent/scoring/calibration.py). With `abstained` false (ANSWERED or LEANING): that the answer, or the "
            "lean, is right. With `abstained` true: that 'insufficient evidence' is the right answer (the "
            "abstention's probability, not a confidence in any answer; `leading_confidence` is the leading "
            "answer's); 0 for a run stopped before it gathered evidence or by an error."
        ),
    )
    tier: Literal["confident", "leaning"] | None = Field(
        default=None,
        description="Which answer the run gives: 'confident' when the leading answer reaches the operating point "
        "(status ANSWERED), 'leaning' when it leads but is under it (status LEANING: the answer states the lean and "
        "its probability); None when the run gives no answer.",
    )
    leading_confidence: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Probability that the court's leading answer is right; the run abstains when it is below "
        "abstain_threshold.",
    )
    selected_option: int | None = None
    sentences: list[AnswerSentence] = Field(
        default_factory=list, description="Answer sentences with their citation ids."
    )
    abstained: bool = False
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    ledger: list[LedgerEntry] = Field(default_factory=list)
    readings: list[dict] = Field(
        default_factory=list,
        description="What the court read per sentence at its last weighing: the verdict model's inputs "
        "(agent/verdict/readings.py).",
    )
    claims: list[Claim] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    stop_reason: str = ""
    decisions: list[Decision] = Field(default_factory=list)
    run_id: str = ""
    usage: Usage = Field(default_factory=Usage)
    notes: list[str] = Field(default_factory=list)
    faithfulness: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Share of the answer's cited sentences that their cited passages support, by the stance "
        "judge; None when nothing was cited.",
    )
    relevance: dict | None = Field(
        default=None,
        description="The relevance gate's assessment: whether the evidence addresses the question, its "
        "probability, features and best match.",
    )
    adjudication: Adjudication | None = Field(
        default=None,
        description="With a chat model: its judgement per hypothesis, its choice, the evidence's choice and "
        "the blend the answer follows.",
    )
    corrections: list[Correction] = Field(
        default_factory=list,
        description="Words of the question read as others (misspellings the corpus does not know); "
        "`question` is the question as read.",
    )
    review: list[dict] | None = Field(
        default=None,
        description="What a reviewer changed in the court's ledger before this answer (strike / read / add, each with "
        "the passage and the readings before and after); [] when the ledger was approved as it was, None unreviewed.",
    )
    searched: str = Field(
        "", description="What the run searched, e.g. 'SciFact (5,183 abstracts) + your library (3 PDFs)'."
    )
    papers: list[PaperFinding] = Field(
        default_factory=list,
        description="Every record the court read, each with its answer to the question, study design and sample size "
        "(agent/answer/papers.py); empty when the court judged nothing.",
    )
    scores: Literal["probability", "blend", "evidence"] = Field(
        default="evidence",
        description="What each hypothesis's `score` is: 'probability', the fitted verdict model's probability that it "
        "is right (a claim, a yes / no question or a choice it decided); 'blend', the adjudicating chat model's "
        "blend of its probability and the evidence's share; 'evidence', the court's weighted support minus "
        "contradiction (or an option's share of the evidence), which is no probability and may be negative.",
    )
