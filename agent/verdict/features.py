"""The verdict model's inputs: a fixed list of numbers made from one court's readings (agent/verdict/readings.py).

Kept per sentence rather than summed: the strongest finding on each side with each reader's reading of it, where it
sits (results or background, which record, how close to the claim), whether the negation's own reading agrees, how
many records take each side, the claim read against its best records' findings together, the relevance gate's
probability, the form of the claim. `claim_features` describes a claim (or yes / no question) for a three-way verdict;
`option_features` describes one option of a multiple-choice question, compared with its rivals by a softmax.
A sentence is *eligible* to decide when it states a finding, under its own results (not a background / methods label),
is not tentative, and its record names the claim's subject and object (the court's aspect check).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.scoring.claimed_quantity import quantity_reading

READERS = ("heuristic", "cross", "direction", "decider")
CASCADE_SENTENCES = 6  # the decider (agent/judges/decider.py) reads at most this many findings of a claim ...
CASCADE_RECORDS = 2  # ... and its first records' findings read together: 8 pairs a claim at most
S, C, N = 0, 1, 2  # STANCE_LABELS order: SUPPORT, CONTRADICT, NEUTRAL

_COMPARATIVE = re.compile(
    r"\b(more|less|fewer|greater|higher|lower|better|worse|than|compared|versus|superior)\b", re.I
)
_NEGATED = re.compile(r"\b(not|no|never|without|cannot|neither|nor|fails?|lack)\b|n't\b", re.I)
_RATIO = re.compile(r"\b(ratio|odds|hazard|risk|fold|percent|%|\d)", re.I)
_REQUIREMENT = re.compile(r"\b(requires?|required|necessary|essential|needed|dispensable|sufficient)\b", re.I)


def _eligible(row: dict[str, Any]) -> bool:
    return bool(row["finding"] and row["results"] and not row["tentative"] and row["addressed"])


def _side(row: dict[str, Any]) -> float:
    return max(row["p"][S], row["p"][C])


def reader_lean(row: dict[str, Any], reader: str) -> float:
    """A reader's P(SUPPORT) - P(CONTRADICT) on one reading row, 0 where that reader did not read it."""
    p = row["readers"].get(reader)
    return float(p[S] - p[C]) if p else 0.0


def _sentence_block(prefix: str, row: dict[str, Any] | None) -> dict[str, float]:
    """The numbers of one chosen sentence (zeros when there is none)."""
    if row is None:
        return {f"{prefix}_{name}": 0.0 for name in SENTENCE_FIELDS}
    neg = row.get("neg")
    values = {
        "present": 1.0,
        "support": row["p"][S],
        "contradict": row["p"][C],
        "lean": row["p"][S] - row["p"][C],
        "inv_rank": 1.0 / (1 + row["rank"]),
        "sim": row["sim"],
        "quantitative": float(row["quantitative"]),
        "window": float(row["window"]),
        "structure": float(row["structure_side"] == "SUPPORT") - float(row["structure_side"] == "CONTRADICT"),
        "structure_neutral": float(row["structure_side"] == "NEUTRAL"),
        "non_significant": float(row["non_significant"]),
        "restates": row["restates"],
        "negation_lean": float(neg[C] - neg[S]) if neg else 0.0,
        **{f"{reader}_lean": reader_lean(row, reader) for reader in READERS},
    }
    return {f"{prefix}_{name}": float(value) for name, value in values.items()}


SENTENCE_FIELDS = (
    "present",
    "support",
    "contradict",
    "lean",
    "inv_rank",
    "sim",
    "quantitative",
    "window",
    "structure",
    "structure_neutral",
    "non_significant",
    "restates",
    "negation_lean",
    *(f"{reader}_lean" for reader in READERS),
)


@dataclass(frozen=True)
class Deciding:
    """One statement's reading rows and the sentences a verdict on it would rest on: the eligible sentence read most
    strongly on either side (`top`), for it (`best_for`) and against it (`best_against`); its records by rank."""

    sentences: list[dict[str, Any]]
    eligible: list[dict[str, Any]]
    records: list[dict[str, Any]]
    top: dict[str, Any] | None
    best_for: dict[str, Any] | None
    best_against: dict[str, Any] | None


def deciding(rows: Sequence[dict[str, Any]], statement: int) -> Deciding:
    sentences = [r for r in rows if r["kind"] == "sentence" and r["statement"] == statement]
    records = sorted(
        (r for r in rows if r["kind"] == "record" and r["statement"] == statement), key=lambda r: r["rank"]
    )
    eligible = [r for r in sentences if _eligible(r)]
    return Deciding(
        sentences,
        eligible,
        records,
        max(eligible, key=_side, default=None),
        max(eligible, key=lambda r: r["p"][S], default=None),
        max(eligible, key=lambda r: r["p"][C], default=None),
    )


def cascade_rows(rows: Sequence[dict[str, Any]], statement: int) -> list[dict[str, Any]]:
    """The rows the decider reads (agent/judges/decider.py): the statement's eligible findings read most strongly on
    either side, then its first records' findings read together, each only when its text was kept."""
    found = deciding(rows, statement)
    sentences = sorted(found.eligible, key=_side, reverse=True)[:CASCADE_SENTENCES]
    return [r for r in [*sentences, *found.records[:CASCADE_RECORDS]] if r.get("text")]


def _decider_block(found: Deciding) -> dict[str, float]:
    """What the decider read, summed: its mean lean over the findings it read, weighted by record rank, and over
    the first records' findings (zeros where it did not read)."""
    read = [r for r in found.eligible if r["readers"].get("decider")]
    records = [r for r in found.records if r["readers"].get("decider")]
    decay = [1.0 / (1 + r["rank"]) for r in read]
    return {
        "decider_read": float(bool(read or records)),
        "decider_mean_lean": sum(reader_lean(r, "decider") for r in read) / len(read) if read else 0.0,
        "decider_weighted_lean": sum(d * reader_lean(r, "decider") for d, r in zip(decay, read)),
        "decider_record_lean": reader_lean(records[0], "decider") if records else 0.0,
        "decider_records_mean_lean": (
            sum(reader_lean(r, "decider") for r in records) / len(records) if records else 0.0
        ),
    }


def statement_features(rows: Sequence[dict[str, Any]], statement: int) -> dict[str, float]:
    """What the readings of one statement say, in numbers (the claim's, or one option's)."""
    found = deciding(rows, statement)
    sentences, eligible, records = found.sentences, found.eligible, found.records
    top, best_support, best_against = found.top, found.best_for, found.best_against
    decay = [1.0 / (1 + r["rank"]) for r in eligible]
    records_for = {r["record"] for r in eligible if r["p"][S] >= 0.5}
    records_against = {r["record"] for r in eligible if r["p"][C] >= 0.5}
    sims = sorted((r["sim"] for r in sentences), reverse=True)
    first_record = records[0] if records else None
    values = {
        "sentences": float(len(sentences)),
        "eligible_share": len(eligible) / len(sentences) if sentences else 0.0,
        "records_read": float(len({r["record"] for r in sentences})),
        "max_sim": sims[0] if sims else 0.0,
        "mean_sim_top3": sum(sims[:3]) / len(sims[:3]) if sims else 0.0,
        "weighted_support": sum(d * r["p"][S] for d, r in zip(decay, eligible)),
        "weighted_contradict": sum(d * r["p"][C] for d, r in zip(decay, eligible)),
        "weighted_lean": sum(d * (r["p"][S] - r["p"][C]) for d, r in zip(decay, eligible)),
        "records_for": float(len(records_for)),
        "records_against": float(len(records_against - records_for)),
        "any_max_support": max((r["p"][S] for r in sentences), default=0.0),
        "any_max_contradict": max((r["p"][C] for r in sentences), default=0.0),
        "direction_mean_lean": (
            sum(reader_lean(r, "direction") for r in eligible[:8]) / len(eligible[:8]) if eligible else 0.0
        ),
        "record_support": first_record["p"][S] if first_record else 0.0,
        "record_contradict": first_record["p"][C] if first_record else 0.0,
        "record_max_lean": max((r["p"][S] - r["p"][C] for r in records), default=0.0),
        "record_min_lean": min((r["p"][S] - r["p"][C] for r in records), default=0.0),
        **_evidence_block(records),
        **_decider_block(found),
    }
    return {
        **{k: float(v) for k, v in values.items()},
        **_sentence_block("top", top),
        **_sentence_block("best_for", best_support),
        **_sentence_block("best_against", best_against),
    }


def _evidence_block(records: list[dict[str, Any]]) -> dict[str, float]:
    """The evidence reader's word on the top records (agent/judges/evidence.py): how likely the likeliest to settle
    the claim does, how likely the first record does, and which way the settling one leans (zeros without it)."""
    read = [r["readers"]["evidence"] for r in records if r["readers"].get("evidence")]
    if not read:
        return {
            "evidence_present": 0.0,
            "evidence_settles_max": 0.0,
            "evidence_settles_first": 0.0,
            "evidence_lean": 0.0,
        }
    best = max(read, key=lambda p: 1.0 - p[N])
    return {
        "evidence_present": 1.0,
        "evidence_settles_max": 1.0 - best[N],
        "evidence_settles_first": 1.0 - read[0][N],
        "evidence_lean": best[S] - best[C],
    }


def quantity_features(rows: Sequence[dict[str, Any]], statement: int, text: str) -> dict[str, float]:
    """The quantity reader (agent/scoring/claimed_quantity.py) on the statement against its deciding sentences and
    its first record's findings: the texts a verdict rests on."""
    found = deciding(rows, statement)
    chosen = [found.top, found.best_for, found.best_against, found.records[0] if found.records else None]
    return quantity_reading(text, [str(r.get("text") or "") for r in chosen if r is not None])


def form_features(statement: str) -> dict[str, float]:
    """The form of the claim: comparative, negated, about a ratio or number, about what is required."""
    return {
        "form_comparative": float(bool(_COMPARATIVE.search(statement))),
        "form_negated": float(bool(_NEGATED.search(statement))),
        "form_ratio": float(bool(_RATIO.search(statement))),
        "form_requirement": float(bool(_REQUIREMENT.search(statement))),
    }


def claim_features(
    rows: Sequence[dict[str, Any]], statement: str, polar: bool, relevance: float | None
) -> dict[str, float]:
    """A claim's (or yes / no question's) inputs: its statement's readings, its form, the question type and the
    relevance gate's probability (1 when no gate ran)."""
    return {
        **statement_features(rows, 0),
        **quantity_features(rows, 0, statement),
        **form_features(statement),
        "polar_question": float(polar),
        "relevance": 1.0 if relevance is None else float(relevance),
        "bias": 1.0,
    }


def option_features(rows: Sequence[dict[str, Any]], statement: int, text: str) -> dict[str, float]:
    """One option's inputs (no bias: options are compared with each other by a softmax)."""
    return {**statement_features(rows, statement), **quantity_features(rows, statement, text), **form_features(text)}


def decider_row(rows: Sequence[dict[str, Any]], side: str, statement: int = 0) -> dict[str, Any] | None:
    """A statement's eligible sentence read most strongly on `side` ('SUPPORT' or 'CONTRADICT'), when it leans that
    way: the finding a verdict on that side rests on."""
    k, other = (S, C) if side == "SUPPORT" else (C, S)
    leaning = [
        r
        for r in rows
        if r["kind"] == "sentence" and r["statement"] == statement and _eligible(r) and r["p"][k] > r["p"][other]
    ]
    return max(leaning, key=lambda r: r["p"][k], default=None)
