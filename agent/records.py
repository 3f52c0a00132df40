"""Record models shared by every layer: literature records, passages, hypotheses, ledger, claims, answer.

These import nothing from the rest of the package, so tools, nodes, the CLI and evals can all use them.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

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
    ANSWERED = "ANSWERED"
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


_DOI_PREFIX = re.compile(r"^(https?://(dx\.)?doi\.org/|doi:)", re.I)
_ARXIV_VERSION = re.compile(r"v\d+$")
_NON_WORD = re.compile(r"[^\w]+")


def normalize_doi(doi: str | None) -> str | None:
    """Lower-case DOI without resolver prefix; None when empty."""
    if not doi:
        return None
    doi = _DOI_PREFIX.sub("", doi.strip()).strip().lower()
    return doi or None


def split_arxiv_version(arxiv_id: str | None) -> tuple[str | None, str | None]:
    """'2104.12255v1' -> ('2104.12255', 'v1'); versionless ids return (id, None)."""
    if not arxiv_id:
        return None, None
    arxiv_id = re.sub(r"^(arxiv:|https?://arxiv\.org/abs/)", "", arxiv_id.strip(), flags=re.I)
    match = _ARXIV_VERSION.search(arxiv_id)
    if match:
        return arxiv_id[: match.start()], match.group(0)
    return arxiv_id, None


def normalize_title(title: str) -> str:
    """Accent-, case- and punctuation-insensitive title key for dedupe."""
    text = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode()
    return _NON_WORD.sub(" ", text.lower()).strip()


def work_keys(doi: str | None, arxiv_id: str | None, title: str, *source_ids: str) -> list[str]:
    """Keys under which two records of a work match: DOI, arXiv id, the sources' own ids, a normalised title of 12+
    characters."""
    keys = [f"doi:{doi}"] if doi else []
    if arxiv_id:
        keys.append(f"arxiv:{arxiv_id.lower()}")
    keys += [key for key in source_ids if key]
    normalised = normalize_title(title)
    if len(normalised) >= 12:
        keys.append(f"title:{normalised}")
    return keys


class Provenance(BaseModel):
    """How a record entered the pool: which query, round and hypothesis found it."""

    query: str = ""
    round: int = 0
    hypothesis_id: str | None = None
    via: Literal["search", "citation_hop", "claim_check", "entity_expansion"] = "search"
    source: str = ""
    scores: dict[str, float] = Field(
        default_factory=dict,
        description="Why the source returned the record for this query, where it says: the local index gives its "
        "rank, BM25 score, dense cosine and the fused (reciprocal-rank) score.",
    )


class SourceLocation(BaseModel):
    """Where a library record's text sits in its document: a full-text passage's page and section."""

    document_id: str = Field(description="The library document the record belongs to.")
    page: int | None = Field(
        default=None, description="1-based page the passage starts on (None for an abstract-only document)."
    )
    page_end: int | None = Field(default=None, description="Last page when the passage runs over a page break.")
    section: str | None = Field(default=None, description="Heading of the section it sits in ('Results').")

    def label(self) -> str:
        """'p. 4, Results' / 'pp. 4-5' / '' for an abstract-only document."""
        pages = (
            ""
            if self.page is None
            else (
                f"pp. {self.page}-{self.page_end}"
                if self.page_end and self.page_end != self.page
                else f"p. {self.page}"
            )
        )
        return ", ".join(part for part in (pages, self.section or "") if part)


class Record(BaseModel):
    """One literature record, normalised from any source (local corpus or live API)."""

    id: str = Field(
        description="The record's id in its source or corpus (corpus doc_id, DOI, arXiv id, S2 or OpenAlex id)."
    )
    source: str = Field(
        description="Where it came from: 'local', 'arxiv', 'semantic_scholar', 'openalex', 'crossref', 'brave'."
    )
    title: str = ""
    abstract: str = ""
    sentences: list[str] = Field(default_factory=list, description="Abstract split into sentences.")
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    institutions: list[str] = Field(default_factory=list)
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = Field(default=None, description="arXiv id without version (dedupe key).")
    arxiv_version: str | None = Field(default=None, description="Version suffix kept for citation, e.g. 'v2'.")
    s2_id: str | None = None
    openalex_id: str | None = None
    pmid: str | None = None
    citation_count: int | None = None
    oa_pdf_url: str | None = None
    url: str | None = None
    references: list[str] = Field(
        default_factory=list, description="Ids of referenced works, where the source has them."
    )
    source_type: str = Field(
        default="index", description="Kind of source, for triangulation: local, preprint, index, publisher, web."
    )
    provenance: list[Provenance] = Field(default_factory=list)
    alt_ids: dict[str, str] = Field(
        default_factory=dict, description="Ids of the same work in other sources, kept on merge."
    )
    location: SourceLocation | None = Field(
        default=None, description="For a library record: its document, and the page and section of a full-text passage."
    )

    def model_post_init(self, __context: object) -> None:
        self.doi = normalize_doi(self.doi)
        if self.arxiv_id:
            base, version = split_arxiv_version(self.arxiv_id)
            self.arxiv_id = base
            self.arxiv_version = self.arxiv_version or version
        if not self.sentences and self.abstract:
            from agent.text import split_sentences  # local import keeps records dependency-free at import time

            self.sentences = split_sentences(self.abstract)
        if not self.abstract and self.sentences:
            self.abstract = " ".join(self.sentences)

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}".strip(". ") if self.title else self.abstract

    def dedupe_keys(self) -> list[str]:
        """Keys under which two records count as the same work (a full-text passage is only ever itself:
        the passages of one paper share its DOI and title but are different evidence)."""
        if self.location is not None and self.location.page is not None:
            return [f"passage:{self.id}"]
        keys = work_keys(
            self.doi,
            self.arxiv_id,
            self.title,
            f"s2:{self.s2_id}" if self.s2_id else "",
            f"openalex:{self.openalex_id.upper()}" if self.openalex_id else "",
        )
        if not keys:
            keys.append(f"{self.source}:{self.id}")
        return keys

    def merge(self, other: Record) -> Record:
        """Keep every id and the richest field of each: longer text, known values over missing ones."""
        data = self.model_dump()
        theirs = other.model_dump()
        for key, value in theirs.items():
            mine: Any = data.get(key)
            if key in ("id", "source", "provenance", "alt_ids"):
                continue
            if (key in ("abstract", "title") and len(value or "") > len(mine or "")) or (
                key == "sentences" and len(value) > len(mine)
            ):
                data[key] = value
            elif key in ("authors", "institutions", "references"):
                data[key] = list(dict.fromkeys([*mine, *value]))
            elif key == "citation_count" and value is not None:
                data[key] = max(value, mine or 0)
            elif mine in (None, "", []) and value not in (None, "", []):
                data[key] = value
        alt = {**theirs["alt_ids"], **data["alt_ids"]}
        if other.source != self.source or other.id != self.id:
            alt.setdefault(other.source, other.id)
        data["alt_ids"] = alt
        data["provenance"] = [*data["provenance"], *theirs["provenance"]]
        return Record.model_validate(data)


class Passage(BaseModel):
    """A scored piece of a record: a sentence (sentence_index set), a window of sentences (sentence_end set too)
    or the whole abstract."""

    record_id: str
    sentence_index: int | None = None
    sentence_end: int | None = Field(
        default=None, description="For a window of sentences: the index after its last one (exclusive)."
    )
    text: str
    score: float = 0.0
    section: str | None = Field(
        default=None, description="Structured-abstract section the sentence sits in ('results'), when labelled."
    )


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


class Query(BaseModel):
    """A retrieval query with its purpose, so the trace can say why it was sent."""

    text: str
    intent: Literal["primary", "confirm", "falsify", "contrast", "claim_literal", "claim_negation"] = "primary"
    hypothesis_id: str | None = None


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


class Citation(BaseModel):
    id: str
    title: str
    year: int | None = None
    source: str = ""
    doi: str | None = None
    document_id: str | None = Field(default=None, description="For a library passage: the document it belongs to.")
    page: int | None = Field(default=None, description="For a full-text passage: the 1-based page it starts on.")
    page_end: int | None = Field(default=None, description="Last page when the passage runs over a page break.")
    section: str | None = Field(default=None, description="Section heading of a full-text passage.")

    def where(self) -> str:
        """'p. 4, Results' for a full-text passage; '' otherwise."""
        if self.page is None and not self.section:
            return ""
        return SourceLocation(
            document_id=self.document_id or "", page=self.page, page_end=self.page_end, section=self.section
        ).label()

    @classmethod
    def of(cls, record: Record) -> Citation:
        """The citation of a retrieved record, with the passage's page and section when it has them."""
        where = record.location
        return cls(
            id=record.id,
            title=record.title,
            year=record.year,
            source=record.source,
            doi=record.doi,
            document_id=where.document_id if where else None,
            page=where.page if where else None,
            page_end=where.page_end if where else None,
            section=where.section if where else None,
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
            "Probability that what the run reports is right (agent/scoring/calibration.py). With `abstained` "
            "false: that the answer is right. "
            "With `abstained` true: that 'insufficient evidence' is the right answer (the abstention's "
            "probability, not a confidence in "
            "any answer; `leading_confidence` is the leading answer's); 0 for a run stopped before it gathered "
            "evidence or by an error."
        ),
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
    searched: str = Field(
        "", description="What the run searched, e.g. 'SciFact (5,183 abstracts) + your library (3 PDFs)'."
    )
