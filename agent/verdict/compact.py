"""The verdict model's compact inputs: a few strong numbers per claim instead of 72 weak ones.

Fitted on 136 corpus questions, the 72 inputs of agent/verdict/features.py needed heavy regularisation and the model
became nearly a prior: the readers heard about half of the no's and the verdict kept almost none (evals/HISTORY.md,
"Say no"). These inputs say what a scientist looks at: the sentence that decides and how each reader reads it, the
strongest reading on each side, the share of records that take each side, the claim read against each top record's
findings together, and rule readings that need no training and so cannot have seen any question: a null result
("no significant difference", "was not associated", p >= 0.05, an interval across the null) against a claim of an
effect, a direction of effect reversed, a negation on one side only. The rules are the cue readers the heuristic judge
already uses (agent/judges/cues.py, agent/scoring/significance.py), read on the claim's closest findings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from agent.judges.cues import cues, pair_cues
from agent.scoring.significance import (
    claims_an_effect,
    only_non_significant,
    states_null_result,
    states_significance,
)
from agent.verdict.features import C, S, deciding, form_features, reader_lean

CLOSEST_FINDINGS = 3  # the rule readers read the claim's closest result sentences: where a finding is stated
SIDE_FLOOR = 0.5  # a record takes a side when its most evidential finding reads that side at least this strongly


def _lean(p: Sequence[float]) -> float:
    return float(p[S] - p[C])


def _reader(row: dict[str, Any] | None, name: str) -> float:
    """A reader's lean on a chosen row (0 when there is no such row, or the reader did not read it)."""
    return reader_lean(row, name) if row else 0.0


def _record_sides(eligible: list[dict[str, Any]]) -> tuple[float, float]:
    """The share of records with an eligible finding whose most evidential one reads for, and against, the claim."""
    best: dict[str, dict[str, Any]] = {}
    for row in eligible:
        held = best.get(row["record"])
        if held is None or max(row["p"][S], row["p"][C]) > max(held["p"][S], held["p"][C]):
            best[row["record"]] = row
    if not best:
        return 0.0, 0.0
    rows = list(best.values())
    side_for = sum(r["p"][S] >= SIDE_FLOOR and r["p"][S] > r["p"][C] for r in rows)
    side_against = sum(r["p"][C] >= SIDE_FLOOR and r["p"][C] > r["p"][S] for r in rows)
    return side_for / len(rows), side_against / len(rows)


def rule_readings(statement: str, texts: Sequence[str]) -> dict[str, float]:
    """The rule readers on the claim's closest findings (each the mean over the texts; zeros without any): a null
    result where the claim states an effect (or the reverse), a direction of effect reversed or kept, a negation on
    one side only, and every statistic stated non-significant."""
    if not texts:
        return {name: 0.0 for name in RULE_FIELDS}
    claim = cues(statement)
    claim_null = not claims_an_effect(statement)
    read = [(pair_cues(claim, cues(t)), states_null_result(t), t) for t in texts]
    n = len(read)
    return {
        "rule_null_against": sum(null and not claim_null for _, null, _ in read) / n,
        "rule_null_for": sum(null and claim_null for _, null, _ in read) / n,
        "rule_effect_against_null_claim": sum(claim_null and not null for _, null, _ in read) / n,
        "rule_direction_conflict": sum(p.direction_conflict for p, _, _ in read) / n,
        "rule_direction_agree": sum(p.direction_agree for p, _, _ in read) / n,
        "rule_negation_mismatch": sum(p.negation_mismatch for p, _, _ in read) / n,
        "rule_non_significant": sum(only_non_significant(t) for _, _, t in read) / n,
    }


RULE_FIELDS = (
    "rule_null_against",
    "rule_null_for",
    "rule_effect_against_null_claim",
    "rule_direction_conflict",
    "rule_direction_agree",
    "rule_negation_mismatch",
    "rule_non_significant",
)


def finding_readings(statement: str, rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Over every finding the court read for the statement: whether any states a null result where the statement
    claims an effect (in PubMedQA's training questions, 44 % of the 'no' questions' read findings do, 20 % of the
    'yes' ones), the share that do, whether any states a significant statistic, and the direction reader's and the
    cross-encoder's mean and most negative lean (the direction reader hears most of the no's the cross-encoder
    misses: evals/HISTORY.md, "Say no")."""
    texts = [str(r.get("text") or "") for r in rows]
    nulls = [states_null_result(t) for t in texts]
    effect = claims_an_effect(statement)
    cross = [reader_lean(r, "cross") for r in rows if r["readers"].get("cross")]
    # the direction reader reads every sentence as one side or the other: weigh its lean by how far the judge reads
    # the sentence as taking a side at all
    taking = [(1.0 - r["p"][2], reader_lean(r, "direction")) for r in rows if r["readers"].get("direction")]
    direction = [d for _, d in taking]
    weight = sum(w for w, _ in taking)
    return {
        "rule_null_any": float(effect and any(nulls)),
        "rule_null_share": sum(nulls) / len(nulls) if nulls and effect else 0.0,
        "rule_significant_any": float(any(states_significance(t) for t in texts)),
        "direction_mean_lean": sum(direction) / len(direction) if direction else 0.0,
        "direction_min_lean": min(direction, default=0.0),
        "cross_mean_lean": sum(cross) / len(cross) if cross else 0.0,
        "direction_weighted_lean": sum(w * d for w, d in taking) / weight if weight > 0 else 0.0,
    }


def closest_findings(rows: Sequence[dict[str, Any]], statement: int) -> list[dict[str, Any]]:
    """The statement's result sentences on its records, closest to it first (at most CLOSEST_FINDINGS)."""
    found = [
        r
        for r in rows
        if r["kind"] == "sentence" and r["statement"] == statement and r["finding"] and r["results"] and r["addressed"]
    ]
    return sorted(found, key=lambda r: -r["sim"])[:CLOSEST_FINDINGS]


def compact_features(rows: Sequence[dict[str, Any]], statement: int, text: str) -> dict[str, float]:
    """A statement's compact inputs (module docstring), all prefixed `c_` so they sit beside the full list."""
    found = deciding(rows, statement)
    top, best_for, best_against = found.top, found.best_for, found.best_against
    records = found.records
    share_for, share_against = _record_sides(found.eligible)
    record_leans = [_lean(r["p"]) for r in records]
    closest = closest_findings(rows, statement)
    findings = [r for r in found.sentences if r["finding"]]
    values = {
        "deciding_support": top["p"][S] if top else 0.0,
        "deciding_contradict": top["p"][C] if top else 0.0,
        "deciding_cross_lean": _reader(top, "cross"),
        "deciding_direction_lean": _reader(top, "direction"),
        "deciding_heuristic_lean": _reader(top, "heuristic"),
        "deciding_negation_lean": float(top["neg"][C] - top["neg"][S]) if top and top.get("neg") else 0.0,
        "strongest_support": best_for["p"][S] if best_for else 0.0,
        "strongest_contradict": best_against["p"][C] if best_against else 0.0,
        "against_direction_lean": _reader(best_against, "direction"),
        "against_cross_lean": _reader(best_against, "cross"),
        "records_share_for": share_for,
        "records_share_against": share_against,
        "record_first_lean": record_leans[0] if record_leans else 0.0,
        "record_min_lean": min(record_leans, default=0.0),
        "record_max_lean": max(record_leans, default=0.0),
        "max_sim": max((r["sim"] for r in found.sentences), default=0.0),
        "log_eligible": math.log1p(len(found.eligible)),
        **rule_readings(text, [str(r.get("text") or "") for r in closest]),
        **finding_readings(text, findings),
    }
    return {f"c_{name}": float(value) for name, value in values.items()}


def compact_claim_features(
    rows: Sequence[dict[str, Any]], statement: str, polar: bool, relevance: float | None
) -> dict[str, float]:
    """A claim's compact inputs with its form, the question type and the relevance gate's probability."""
    form = form_features(statement)
    return {
        **compact_features(rows, 0, statement),
        "c_form_negated": form["form_negated"],
        "c_form_comparative": form["form_comparative"],
        "c_polar_question": float(polar),
        "c_relevance": 1.0 if relevance is None else float(relevance),
    }
