"""The status ladder is a pure function of what the run found: each rung, tried in order, with the reason it gives."""

from __future__ import annotations

from dataclasses import replace

from agent.answer.status import Findings, Thresholds, rule, stop_reason_of
from agent.interfaces import CitedSentence, Draft, Plan
from agent.literature import Record
from agent.records import Adjudication, Decision, Hypothesis, HypothesisVerdict, LedgerEntry, Status
from agent.scoring.relevance import RelevanceAssessment

THRESHOLDS = Thresholds(abstain=0.5, verdict_min_evidence=0.5, margin=0.3)
CLAIM = "Aspirin reduces the risk of colorectal cancer"
RECORD = Record(
    id="r1",
    source="local",
    title="Aspirin and colorectal cancer",
    abstract="Aspirin reduced the risk of colorectal cancer by 20%.",
)
SUPPORTED = Hypothesis(id="h1", text=CLAIM, origin="claim", verdict=HypothesisVerdict.SUPPORTED, score=0.9)
FOR = LedgerEntry(
    hypothesis_id="h1",
    record_id="r1",
    text="Aspirin reduced the risk of colorectal cancer by 20%.",
    stance="SUPPORT",
    confidence=0.9,
)
DRAFT = Draft(
    answer="The evidence supports the claim.",
    sentences=[
        CitedSentence(
            text='Supports the claim: "Aspirin reduced the risk of colorectal cancer by 20%."',
            citations=["r1"],
            role="supports_claim",
            side="for",
        )
    ],
)


def answered(**changes: object) -> Findings:
    """A claim the one record supports firmly, with a confident calibrator: the ladder's last rung, ANSWERED."""
    found = Findings(
        question=f"{CLAIM}.",
        plan=Plan(task="claim", claim=CLAIM),
        pool={"r1": RECORD},
        ledger=[FOR],
        draft=DRAFT,
        best=SUPPORTED,
        leading=0.8,
        abstention=0.3,
        decisions=[Decision(at="court", next="synthesize", reason="resolved: margin 1.000")],
    )
    return replace(found, **changes)  # type: ignore[arg-type]


def test_a_supported_claim_is_answered_with_the_leading_confidence():
    ruling = rule(answered(), THRESHOLDS)
    assert (ruling.status, ruling.confidence, ruling.decided, ruling.abstained) == (Status.ANSWERED, 0.8, True, False)
    assert ruling.text.startswith("The evidence supports the claim") and "(confidence 0.80)" in ruling.text
    assert ruling.stop_reason == "court: resolved: margin 1.000"


def test_no_record_is_an_error_when_every_source_was_unreachable_and_insufficient_evidence_otherwise():
    error = rule(answered(pool={}, outage="no network: arXiv unreachable"), THRESHOLDS)
    assert (error.status, error.confidence, error.stop_reason) == (Status.ERROR, 0.0, "no network: arXiv unreachable")
    empty = rule(answered(pool={}), THRESHOLDS)
    assert (empty.status, empty.stop_reason) == (Status.INSUFFICIENT_EVIDENCE, "no evidence retrieved")


def test_off_topic_records_decline_with_the_gates_reason():
    gate = RelevanceAssessment(
        relevant=False, probability=0.1, features={"best_cosine": 0.2}, best_record="r1", best_text="Coral reefs."
    )
    ruling = rule(answered(relevance=gate), THRESHOLDS)
    assert ruling.status == Status.INSUFFICIENT_EVIDENCE and ruling.off_topic
    assert ruling.text == f"Insufficient evidence: {gate.reason()}."


def test_no_passage_taking_a_side_declines():
    ruling = rule(answered(ledger=[FOR.model_copy(update={"stance": "NEUTRAL"})]), THRESHOLDS)
    assert ruling.status == Status.INSUFFICIENT_EVIDENCE and ruling.abstained and not ruling.decided
    assert ruling.stop_reason.startswith(
        "insufficient evidence: no retrieved passage supports or contradicts any candidate answer"
    )
    assert "resolved" not in ruling.stop_reason  # an abstention never reads as resolved


def test_an_open_answer_whose_records_never_name_what_is_asked_declines():
    found = answered(
        question="What is the role of TNF-alpha in rheumatoid arthritis?",
        plan=Plan(task="open"),
        best=SUPPORTED.model_copy(update={"origin": "evidence", "claim": None}),
    )
    ruling = rule(found, THRESHOLDS)
    assert ruling.status == Status.INSUFFICIENT_EVIDENCE and ruling.unaddressed
    assert "do not mention" in ruling.text and "TNF-alpha" in ruling.text


def test_a_leading_answer_below_the_operating_point_but_likelier_than_insufficient_is_given_as_a_lean():
    ruling = rule(answered(leading=0.4), THRESHOLDS)
    assert (ruling.status, ruling.confidence, ruling.decided, ruling.abstained, ruling.tier) == (
        Status.LEANING,
        0.4,
        True,
        False,
        "leaning",
    )
    assert (
        ruling.text.startswith("The evidence leans towards the claim (0.40): Aspirin reduces") and "[r1]" in ruling.text
    )
    assert ruling.stop_reason.startswith(
        "leaning: the leading answer's probability of being right is 0.40, under the 0.50 a confident answer needs"
    )


def test_a_lean_no_likelier_than_insufficient_evidence_declines_with_the_abstentions_confidence():
    ruling = rule(answered(leading=0.4, abstention=0.45), THRESHOLDS)
    assert (ruling.status, ruling.confidence, ruling.decided, ruling.abstained, ruling.tier) == (
        Status.INSUFFICIENT_EVIDENCE,
        0.45,
        True,
        True,
        None,
    )
    assert "below the 0.50 needed to answer" in ruling.text and "leans towards the claim [r1]" in ruling.text


def test_confident_only_declines_a_lean():
    ruling = rule(answered(leading=0.4), replace(THRESHOLDS, leaning=False))
    assert (ruling.status, ruling.confidence, ruling.abstained) == (Status.INSUFFICIENT_EVIDENCE, 0.3, True)


def test_a_confident_answer_is_the_confident_tier():
    assert rule(answered(), THRESHOLDS).tier == "confident"


def test_a_lean_quoted_only_against_is_not_given():
    against = DRAFT.model_copy(
        update={"sentences": [DRAFT.sentences[0].model_copy(update={"side": "against", "role": "against_claim"})]}
    )
    ruling = rule(answered(leading=0.4, draft=against), THRESHOLDS)
    assert ruling.status == Status.INSUFFICIENT_EVIDENCE and ruling.tier is None


def test_an_abstaining_adjudication_declines_and_its_blend_is_the_leading_confidence():
    adjudication = Adjudication(model="scripted:model", blend={"h1": 0.35}, abstained=True)
    ruling = rule(answered(adjudication=adjudication), THRESHOLDS)
    assert ruling.status == Status.INSUFFICIENT_EVIDENCE and ruling.leading == 0.35
    assert "the adjudicating model abstained" in ruling.text


def test_a_verdict_quoted_only_against_is_not_given():
    against = DRAFT.model_copy(
        update={"sentences": [DRAFT.sentences[0].model_copy(update={"side": "against", "role": "against_claim"})]}
    )
    ruling = rule(answered(draft=against), THRESHOLDS)
    assert (
        ruling.status == Status.INSUFFICIENT_EVIDENCE
        and "every passage quoted on the leading answer reads against it" in ruling.text
    )


def test_budgets_override_the_status():
    loop = [Decision(at="court", next="report", reason="budget_exhausted: max_rounds=1")]
    thin = rule(answered(decisions=loop, margin=0.1), THRESHOLDS)
    assert thin.status == Status.BUDGET_EXHAUSTED and thin.stop_reason == "court: budget_exhausted: max_rounds=1"
    assert rule(answered(decisions=loop, margin=0.9), THRESHOLDS).status == Status.ANSWERED
    cut = rule(answered(budget_stop="max_wall_time_s=60 reached during court"), THRESHOLDS)
    assert (
        cut.status == Status.BUDGET_EXHAUSTED
        and cut.stop_reason == "budget_exhausted: max_wall_time_s=60 reached during court"
    )
    assert cut.text.startswith("Budget exhausted before the run finished (max_wall_time_s=60 reached during court).")


def test_the_stop_reason_names_the_decline_first():
    decisions = [
        Decision(at="court", next="synthesize", reason="resolved: margin 1.000"),
        Decision(at="verify_claims", next="report", reason="verified 2 claims"),
    ]
    assert stop_reason_of(decisions) == "court: resolved: margin 1.000; verify_claims: verified 2 claims"
    assert stop_reason_of(decisions, "too thin") == "insufficient evidence: too thin; verify_claims: verified 2 claims"
