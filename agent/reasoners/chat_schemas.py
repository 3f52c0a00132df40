"""The chat reasoner's reply schemas, and the adjudication checked against what the model was shown.

Two choices the schemas carry:
- Reasoning before the verdict: a field's place in the schema is the order a model writes it in, and a model that
  writes its verdict first and its reason after is rationalising, not reasoning. So adjudication's `reasoning`, and
  each judgement's `reason`, come before the judgement, the probability and the choice.
- One bad item is dropped, not the whole reply: a judgement with a probability that is not a number is skipped (and
  counted, so the adjudication's notes say so); the other judgements stand.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from agent.interfaces import ModelVerdict
from agent.records import HypothesisJudgement, LedgerEntry

ABSTAIN_WORDS = frozenset({"abstain", "abstained", "undecided", "none", "insufficient", "insufficient evidence"})


class PlanOut(BaseModel):
    queries: list[str] = Field(description="2-4 keyword search queries")
    entities: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)


class HypothesesOut(BaseModel):
    hypotheses: list[str] = Field(description="Distinct candidate answers, most likely first")


class QueryOut(BaseModel):
    text: str
    intent: str = Field(default="confirm", description="confirm, falsify or contrast")
    hypothesis: int = Field(default=0, description="1-based index of the hypothesis the query targets")


class QueriesOut(BaseModel):
    queries: list[QueryOut]


class SentenceOut(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list, description="record ids from the evidence")

    @field_validator("citations", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> list[str]:
        return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


class AnswerOut(BaseModel):
    answer: str = Field(description="one-line answer, or 'Insufficient evidence: <why>'")
    sentences: list[SentenceOut] = Field(default_factory=list)
    insufficient: bool = Field(default=False, description="true when the ledger cannot decide the question")


class ClaimsOut(BaseModel):
    claims: list[str]


class JudgementOut(BaseModel):
    hypothesis: str = Field(description="hypothesis id, e.g. H1")
    reason: str = Field(default="", description="one short sentence: what the passages report on it")
    judgement: str = Field(description="holds, fails or undecided")
    probability: float = Field(description="0 to 1: probability that this hypothesis is the correct answer")
    evidence: list[str] = Field(default_factory=list, description="evidence ids relied on, e.g. E1")

    @field_validator("judgement", mode="before")
    @classmethod
    def _judgement(cls, value: Any) -> str:
        word = str(value).strip().lower()
        return {
            "hold": "holds",
            "true": "holds",
            "supported": "holds",
            "fail": "fails",
            "false": "fails",
            "refuted": "fails",
        }.get(word, word if word in ("holds", "fails") else "undecided")

    @field_validator("probability", mode="before")
    @classmethod
    def _clip(cls, value: Any) -> float:
        return min(1.0, max(0.0, float(value)))

    @field_validator("evidence", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> list[str]:
        return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


class AdjudicationOut(BaseModel):
    reasoning: str = Field(default="", description="2-4 sentences weighing the strongest evidence for and against")
    judgements: list[JudgementOut]
    choice: str = Field(description="id of the chosen hypothesis, or abstain")
    skipped: SkipJsonSchema[int] = Field(default=0, description="judgements dropped as malformed (set in code)")

    @model_validator(mode="before")
    @classmethod
    def _keep_valid(cls, data: Any) -> Any:
        """Judgements that do not fit are dropped and counted; the rest of the reply stands."""
        if not isinstance(data, dict) or not isinstance(data.get("judgements"), list):
            return data
        kept, skipped = [], 0
        for item in data["judgements"]:
            try:
                kept.append(JudgementOut.model_validate(item))
            except (ValidationError, ValueError, TypeError):
                skipped += 1
        return {**data, "judgements": kept, "skipped": skipped}


def checked_verdict(
    out: AdjudicationOut, hypothesis_ids: set[str], shown: dict[str, LedgerEntry], spec: str
) -> ModelVerdict:
    """The model's adjudication with its citations checked against the passages it was shown: an unknown evidence id
    is dropped; a 'holds' or 'fails' judgement left citing nothing shown is not counted (noted). The model abstains
    when its choice says so ("abstain", "undecided") or when every judgement it made is "undecided"."""
    judgements, notes, seen = [], [], set()
    if out.skipped:
        notes.append(f"dropped {out.skipped} malformed judgement(s); the others stand")
    for j in out.judgements:
        hid = j.hypothesis.strip().upper()
        if hid not in hypothesis_ids or hid in seen:
            notes.append(f"ignored a judgement of unknown or repeated hypothesis {j.hypothesis[:20]!r}")
            continue
        seen.add(hid)
        labels = [label for label in (re.sub(r"[^A-Za-z0-9]", "", e).upper() for e in j.evidence) if label in shown]
        foreign = [e for e in j.evidence if re.sub(r"[^A-Za-z0-9]", "", e).upper() not in shown]
        if foreign:
            notes.append(f"{hid}: dropped evidence ids it was not shown {foreign[:3]!r}")
        if j.judgement != "undecided" and not labels:
            notes.append(f"{hid}: '{j.judgement}' cited no passage it was shown; not counted")
            continue
        judgements.append(
            HypothesisJudgement(
                hypothesis_id=hid,
                judgement=j.judgement,
                probability=j.probability,
                evidence=list(dict.fromkeys(shown[label].record_id for label in labels)),
                reason=j.reason[:300],
            )
        )
    choice = out.choice.strip().upper()
    counted = {j.hypothesis_id for j in judgements}
    said_abstain = out.choice.strip().lower().rstrip(".") in ABSTAIN_WORDS
    all_undecided = bool(out.judgements) and all(j.judgement == "undecided" for j in out.judgements)
    abstained = said_abstain or all_undecided
    if abstained:
        notes.append(
            "the model abstained"
            + (f" ({out.reasoning.strip()[:160]})" if out.reasoning.strip() else "")
            + ("" if said_abstain else ": it judged every hypothesis undecided")
        )
    return ModelVerdict(
        model=spec,
        judgements=judgements,
        choice=None if abstained or choice not in counted else choice,
        abstained=abstained,
        notes=notes,
    )
