"""The small interfaces the nodes depend on. Offline and live backends are two implementations of each.

Nodes never branch on the backend: they call these methods on whatever `agent.backend.Backend` the
context selects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field

from agent.literature import Passage, Query, Record
from agent.records import Claim, Hypothesis, HypothesisJudgement, LedgerEntry, Stance, TaskType


class HopFilter(BaseModel):
    """The citation-hop gate (seed 000) a source applies while choosing neighbours: records older than `min_year`
    are dropped; records older than `old_year` need `old_min_citations` citations. A record of unknown year cannot
    be shown to pass: it is dropped unless `keep_unknown_year` is set or it comes from a local corpus (the user's
    own documents, which often carry no years)."""

    min_year: int = Field(default=2000, description="Records older than this are dropped.")
    old_year: int = Field(default=2010, description="Records older than this need old_min_citations.")
    old_min_citations: int = Field(default=50, description="Citations an old record needs to be kept.")
    keep_unknown_year: bool = Field(default=False, description="Keep records of unknown year from any source.")

    def keeps(self, record: Record) -> bool:
        if record.year is None:
            return self.keep_unknown_year or record.source_type == "local"
        if record.year < self.min_year:
            return False
        if record.year < self.old_year:
            return (record.citation_count or 0) >= self.old_min_citations
        return True


@runtime_checkable
class LiteratureSource(Protocol):
    """Searches one literature source and, where it can, walks its citation graph."""

    name: str
    supports_citations: bool

    async def search(self, query: str, *, limit: int) -> list[Record]:
        """Records matching `query`; raises agent.errors.SourceError on failure beyond retries."""
        ...

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """References and citing papers of `record` that pass `gate` (empty when the source has no citation graph)."""
        ...


class Embedder(Protocol):
    name: str

    async def embed(self, texts: list[str], *, kind: Literal["query", "document"]) -> np.ndarray:
        """L2-normalised embeddings, one row per text."""
        ...


class Reranker(Protocol):
    name: str

    async def rerank(self, query: str, documents: list[str]) -> list[float]:
        """Relevance of each document to `query`, aligned with `documents` (higher is better)."""
        ...


class StanceResult(BaseModel):
    stance: Stance
    confidence: float = Field(ge=0.0, le=1.0)
    probabilities: dict[str, float] = Field(default_factory=dict)
    judged_by: str | None = Field(
        default=None, description="'llm' when a chat model gave this judgement; None for an offline judge."
    )

    @classmethod
    def from_probabilities(cls, labels: tuple[str, ...], probabilities: Iterable[float]) -> StanceResult:
        """The argmax label with its probability as the confidence (a model's softmax row, `labels` order)."""
        probs = {label: float(x) for label, x in zip(labels, probabilities)}
        stance = max(probs, key=probs.__getitem__)
        return cls(stance=stance, confidence=min(1.0, max(0.0, probs[stance])), probabilities=probs)

    def side_taken(self, min_confidence: float, side_floor: float) -> tuple[Stance, float]:
        """The stance the court reads and its confidence: the judge's SUPPORT / CONTRADICT at `min_confidence`, or
        else the likelier of the two when its own probability reaches `side_floor` although NEUTRAL is the argmax
        (a small judge spreads a directional finding over NEUTRAL: on SciFact validation pairs it read 51 of 96
        supporting rationale sentences as NEUTRAL). A floor at or above 0.5 changes nothing; no probabilities
        (a chat model's label), nothing either."""
        if self.stance != "NEUTRAL" and self.confidence >= min_confidence:
            return self.stance, self.confidence
        support, contradict = self.probabilities.get("SUPPORT", 0.0), self.probabilities.get("CONTRADICT", 0.0)
        side: Stance
        side, probability = ("SUPPORT", support) if support >= contradict else ("CONTRADICT", contradict)
        if probability >= side_floor and probability > 0.0:
            return side, probability
        return "NEUTRAL", self.confidence


class StanceJudge(Protocol):
    name: str

    async def judge(self, pairs: list[tuple[str, str]]) -> list[StanceResult]:
        """Stance of each (statement, passage) pair: does the passage support or contradict the statement?"""
        ...


class Calibrator(Protocol):
    """Maps the court's evidence score to probabilities (agent/scoring/calibration.py: raw score or fitted maps)."""

    @property
    def name(self) -> str: ...

    def leading(self, score: float) -> float:
        """P(the court's leading answer is right)."""
        ...

    def abstention(self, score: float) -> float:
        """P("insufficient evidence" is the right answer)."""
        ...


class Plan(BaseModel):
    """The plan node's output: task type, normalised options, entities, numbers and round-1 queries."""

    task: TaskType
    options: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)
    queries: list[Query] = Field(default_factory=list)
    claim: str | None = Field(default=None, description="Declarative form of a claim or yes/no question.")


class CitedSentence(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list, description="Record ids this sentence relies on.")
    role: str | None = Field(
        default=None,
        description="For an evidence statement, its role as the reader sees it (agent/answer/compose.py, ROLES): "
        "supports_claim / against_claim (towards the claim as written, whichever answer won), "
        "for_option / against_option (the selected option), for_answer / against_answer (an open "
        "answer's line) or related (no confident reading).",
    )
    side: Literal["for", "against"] | None = Field(
        default=None,
        description="The judge's reading of the quote towards the answer line itself, whatever its confidence "
        "(the claim's negation, when that won): what grades the answer's verb and marks a claim "
        "quoting evidence against the answer.",
    )


class Draft(BaseModel):
    """The synthesize node's output before citation checking."""

    answer: str = Field(description="One-line answer or verdict.")
    answer_citations: list[str] = Field(
        default_factory=list,
        description="Records the answer line itself quotes (an open question's best finding), cited without "
        "quoting it twice.",
    )
    sentences: list[CitedSentence] = Field(default_factory=list)
    selected_hypothesis: str | None = None
    faithfulness: float | None = Field(
        default=None,
        description="Share of cited sentences whose cited passages support them (agent/scoring/faithfulness.py).",
    )
    declined: str | None = Field(
        default=None,
        description="Why the answering model found the evidence insufficient (its own words), when it did: the run "
        "then states no verdict (agent/answer/status.py).",
    )
    alternative: Draft | None = Field(
        default=None,
        exclude=True,
        description="A draft to use instead when every sentence of this one is dropped by the citation and "
        "faithfulness checks (the chat reasoner's extractive draft).",
    )


class ModelVerdict(BaseModel):
    """What a chat model returned when it adjudicated, its citations already checked against the passages it was
    shown."""

    model: str
    judgements: list[HypothesisJudgement] = Field(default_factory=list)
    choice: str | None = Field(
        default=None, description="The hypothesis it chose; None when it abstained or named none shown."
    )
    abstained: bool = Field(
        default=False,
        description="It said the evidence does not decide (choice 'abstain', or every hypothesis 'undecided'): the "
        "run then states no verdict (agent/scoring/adjudication.py).",
    )
    notes: list[str] = Field(
        default_factory=list, description="What was refused in its reply (uncited judgements, unknown ids)."
    )


class Reasoner(Protocol):
    """Every 'LLM role' of the graph. Offline it is extractive; with a chat model it uses structured output."""

    name: str

    async def plan(self, question: str, options: list[str], mode: str = "ask") -> Plan: ...

    async def hypothesize(self, question: str, plan: Plan, evidence: list[Passage], n: int) -> list[Hypothesis]: ...

    async def discriminating_queries(self, question: str, hypotheses: list[Hypothesis], cap: int) -> list[Query]: ...

    async def synthesize(
        self,
        question: str,
        plan: Plan,
        hypotheses: list[Hypothesis],
        ledger: list[LedgerEntry],
        records: dict[str, Record],
    ) -> Draft: ...

    async def extract_claims(self, question: str, draft: Draft, max_claims: int) -> list[Claim]: ...

    async def adjudicate(
        self, question: str, plan: Plan, hypotheses: list[Hypothesis], ledger: list[LedgerEntry], passages_each: int
    ) -> ModelVerdict | None:
        """The model's judgement of each hypothesis from its ledger passages (None: no model adjudicates, the evidence
        decides)."""
        ...
