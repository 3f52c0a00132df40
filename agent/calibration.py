"""Confidence from features (seeds 000/001/004): hypothesis margin, the 2x consensus rule (capped at
+0.08), claim verification rate and ledger coverage. A linear blend kept deliberately simple so that
it can be refit on the evals (see evals/README.md for its ECE and Brier)."""

from __future__ import annotations

from agent.records import Claim, ClaimVerdict, Hypothesis, LedgerEntry

BASE = 0.3
MARGIN_WEIGHT = 0.4
CONSENSUS_BONUS = 0.08
VERIFICATION_WEIGHT = 0.2
COVERAGE_WEIGHT = 0.1


def consensus(hypotheses: list[Hypothesis]) -> bool:
    """Exactly one hypothesis has more than twice the runner-up's positive score."""
    scores = sorted((max(h.score, 0.0) for h in hypotheses), reverse=True)
    return len(scores) >= 2 and scores[0] > 0 and scores[0] > 2 * scores[1] or len(scores) == 1 and scores[0] > 0


def verification_rate(claims: list[Claim]) -> float:
    """Verified share of checked claims; 0.5 when no claim was checked (no information)."""
    if not claims:
        return 0.5
    return sum(c.verdict == ClaimVerdict.VERIFIED for c in claims) / len(claims)


def coverage(hypotheses: list[Hypothesis], ledger: list[LedgerEntry]) -> float:
    """Share of hypotheses with at least two supporting passages."""
    if not hypotheses:
        return 0.0
    covered = sum(1 for h in hypotheses if sum(e.hypothesis_id == h.id and e.stance == "SUPPORT" for e in ledger) >= 2)
    return covered / len(hypotheses)


def confidence(margin: float | None, hypotheses: list[Hypothesis], claims: list[Claim], ledger: list[LedgerEntry]) -> float:
    if not hypotheses or not any(e.stance != "NEUTRAL" for e in ledger):
        return 0.05
    value = BASE + MARGIN_WEIGHT * (margin or 0.0)
    value += CONSENSUS_BONUS if consensus(hypotheses) else 0.0
    value += VERIFICATION_WEIGHT * (verification_rate(claims) - 0.5)
    value += COVERAGE_WEIGHT * coverage(hypotheses, ledger)
    return round(min(1.0, max(0.0, value)), 4)
