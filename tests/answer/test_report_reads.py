"""What a reader sees of a run that gives no answer (issue 39): an abstention's confidence says what it is the
confidence in, its stop reason says it abstained (never "resolved"), and an off-topic decline lists no hypotheses."""

from __future__ import annotations

from agent.answer.text import render
from agent.records import Status
from tests.answer.test_trust import _answer, gated_runtime
from tests.fakes import record
from tests.nodes.test_nodes import FixedCalibrator, _reported


def test_an_abstention_says_it_abstained_and_what_its_confidence_is_in():
    abstained = _reported(FixedCalibrator(0.25, 0.7))
    assert abstained.status == Status.INSUFFICIENT_EVIDENCE and abstained.confidence == 0.7
    # the court went on to write the answer (its margin was 1.000), the answer then declined: the stop reason says so
    assert [d.reason for d in abstained.decisions if d.at == "court"][-1].startswith("resolved")
    assert abstained.stop_reason.startswith(
        "insufficient evidence: the leading answer's confidence is 0.25, below the 0.30"
    )
    assert "resolved" not in abstained.stop_reason
    status = render(abstained).splitlines()[0]
    assert "confidence that the evidence is insufficient 0.70" in status and "   confidence 0.70" not in status
    answered = _reported(FixedCalibrator(0.62, 0.4))
    assert answered.status == Status.ANSWERED and answered.stop_reason.startswith("court: resolved")
    assert "   confidence 0.62   " in render(answered).splitlines()[0]


def test_an_off_topic_decline_lists_no_hypotheses():
    aspirin = [
        record(
            "asp",
            "Aspirin and colorectal cancer",
            "Aspirin reduces colorectal cancer risk in trials.",
            "Regular aspirin use increases bleeding risk.",
        )
    ]
    state, answer = _answer(gated_runtime(aspirin), "What is the capital city of France in colorectal trials?")
    assert state["relevance"].relevant is False and state["hypotheses"], (
        "the open question had hypotheses from the records"
    )
    assert (
        answer.status == Status.INSUFFICIENT_EVIDENCE and answer.hypotheses == [] and answer.leading_confidence is None
    )
    assert "Hypotheses weighed" not in render(answer)
    assert "relevance gate" in answer.stop_reason
