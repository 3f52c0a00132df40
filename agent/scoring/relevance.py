"""The relevance gate: does the retrieved evidence address the question at all?

Before the court weighs evidence, the gate compares the question (or the claim it asks about) with the titles
and sentences of the top-ranked records and declines when nothing there is about it: "What is the boiling point
of liquid nitrogen?" against a biomedical corpus, or any question but aspirin's against a one-record aspirin
corpus. The stance judge cannot do this: it reads how a passage bears on a statement it is given, and a
topical neighbour of an off-topic question still gets a confident stance.

Features mean the same thing on every corpus and in every backend, so the gate always uses the packaged MiniLM
encoder (never the live backend's embedder, whose cosine scale differs) and never the reranker (whose scores
are normalised per query):

- `best_cosine`: the highest cosine between the question and one title or sentence of the top records;
- `coverage`: the share of the question's content terms found in the best-matching record (prefix-matched, so
  'dementia' matches 'demented' loosely and 'nitrogen' does not match 'nitric').

A logistic model over them is fitted by `python -m training.fit_relevance` on BEIR-SciFact train claims and
PubMedQA questions (answerable) against the project's own off-topic questions (evals/data/off_topic.jsonl),
with held-back parts for reporting (evals/HISTORY.md); it lives in agent/models/relevance.json.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from agent.common.text import content_terms, split_sentences, strip_section_label, truncate
from agent.literature import Record

FEATURES = ("best_cosine", "coverage")
TOP_RECORDS = 3
PREFIX = 5


class Encoder(Protocol):
    async def embed(self, texts: list[str], *, kind: Literal["query", "document"] = "document") -> np.ndarray: ...


class RelevanceModel(BaseModel):
    """P(the evidence addresses the question) = sigmoid(w . features + b); the gate passes at >= threshold."""

    weights: dict[str, float] = Field(description="Weight of each feature (FEATURES).")
    intercept: float
    threshold: float = Field(
        0.5, description="Probability at or above which the evidence counts as addressing the question."
    )
    top_records: int = Field(TOP_RECORDS, description="How many top-ranked records the features look at.")
    encoder: str = Field("all-MiniLM-L6-v2", description="The encoder the cosines were computed with.")
    claim_floor: float = Field(
        0.0,
        description="Best title/sentence cosine a record needs to count for or against a claim in verification "
        "(fitted on SciFact gold evidence vs other retrieved abstracts).",
    )
    fitted_on: str = ""
    examples: int = 0
    commit: str = ""

    def probability(self, features: dict[str, float]) -> float:
        z = self.intercept + sum(self.weights[name] * features[name] for name in self.weights)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


class RelevanceAssessment(BaseModel):
    """What the gate decided and why (stored in the state and shown when the answer declines)."""

    relevant: bool
    probability: float
    features: dict[str, float]
    best_record: str | None = None
    best_text: str = ""

    def reason(self) -> str:
        """One line for the reader: the best evidence found and how relevant it is."""
        if self.best_record is None:
            return "no retrieved record to compare with the question"
        return (
            f"the retrieved evidence does not address the question (relevance {self.probability:.2f}; best match "
            f'[{self.best_record}] "{truncate(strip_section_label(self.best_text), 120)}", cosine '
            f"{self.features['best_cosine']:.2f})"
        )


def default_model_path() -> Path:
    return Path(__file__).resolve().parents[1] / "models" / "relevance.json"


def load_model(path: Path | None = None) -> RelevanceModel | None:
    path = path or default_model_path()
    return RelevanceModel.model_validate(json.loads(path.read_text())) if path.exists() else None


def _stems(text: str) -> set[str]:
    return {term[:PREFIX] for term in content_terms(text) if not term.isdigit()}


def units_of(record: Record) -> list[str]:
    """What the question is compared with: the title and every sentence of the abstract."""
    sentences = record.sentences or split_sentences(record.abstract)
    return [u for u in [record.title.strip(), *sentences] if u and u.strip()]


async def relevance_features(
    focus: str, records: list[Record], encoder: Encoder
) -> tuple[dict[str, float], str | None, str]:
    """(features, id of the best-matching record, its best unit) for `focus` against `records`."""
    units = [(record.id, unit) for record in records for unit in units_of(record)]
    if not units:
        return {"best_cosine": 0.0, "coverage": 0.0}, None, ""
    vectors = await encoder.embed([focus] + [u for _, u in units], kind="document")
    sims = vectors[1:] @ vectors[0]
    best = int(np.argmax(sims))
    best_record = units[best][0]
    wanted = _stems(focus)
    record_text = " ".join(u for rid, u in units if rid == best_record)
    coverage = len(wanted & _stems(record_text)) / len(wanted) if wanted else 0.0
    return {"best_cosine": float(sims[best]), "coverage": float(coverage)}, best_record, units[best][1]


class RelevanceGate:
    """Decides whether the top records address the question, with the packaged encoder and a fitted model."""

    def __init__(self, encoder: Encoder, model: RelevanceModel):
        self.encoder = encoder
        self.model = model

    async def about(self, claim: str, record: Record) -> bool:
        """Whether `record` is about `claim` closely enough to count in its verification (the fitted claim floor)."""
        features, _, _ = await relevance_features(claim, [record], self.encoder)
        return features["best_cosine"] >= self.model.claim_floor

    async def assess(self, focus: str, ranked_records: list[Record]) -> RelevanceAssessment:
        top = ranked_records[: self.model.top_records]
        features, best_record, best_text = await relevance_features(focus, top, self.encoder)
        probability = self.model.probability(features) if top else 0.0
        return RelevanceAssessment(
            relevant=bool(top) and probability >= self.model.threshold,
            probability=round(probability, 4),
            features={k: round(v, 4) for k, v in features.items()},
            best_record=best_record,
            best_text=best_text,
        )
