"""A scientist reviews the court's ledger before the answer (issue 45, item 2): through the Python API (a reviewer
callback, or ReviewPending then `resume(run_id, edits=...)`), at the terminal (`sparkit ask --review`), and the
corrections kept for the judge's training. A struck passage changes the verdict; an approved ledger gives exactly the
unreviewed answer; edits that do not fit, and a review of a finished run, are refused with the reason."""

from __future__ import annotations

import io
import json

import pytest

from agent.api import ask, resume
from agent.cli import main
from agent.cli.review import terminal_reviewer
from agent.records import Status
from agent.review.corrections import corrections_path
from agent.review.ledger import ReviewError, ReviewPending
from tests.tracing.helpers import CLAIM, scripted_backend


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARKIT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _supports(payload):
    return [p["id"] for p in payload["passages"] if p["reading"] == "support"]


def test_an_approved_ledger_gives_the_unreviewed_answer(home):
    backend = scripted_backend()
    plain = ask(CLAIM, mode="verify", backend=backend, max_claims=0)
    shown = []
    approved = ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True, reviewer=shown.append)
    assert plain.status == Status.ANSWERED and plain.verdict == "SUPPORT"
    assert (approved.answer, approved.verdict, approved.confidence) == (plain.answer, plain.verdict, plain.confidence)
    assert approved.review == [] and plain.review is None
    payload = shown[0]  # what the reviewer saw: the court's ledger, numbered, read as the claim
    assert payload["kind"] == "court_review" and [p["id"] for p in payload["passages"]] == ["p1", "p2", "p3", "p4"]
    assert {p["record_id"]: p["reading"] for p in payload["passages"]} == {
        "r0": "support",
        "r1": "support",
        "r2": "support",
        "c1": "against",
    }
    assert not corrections_path().exists()  # nothing changed, nothing to learn from


def test_struck_passages_change_the_verdict_and_the_answer_says_so(home):
    backend = scripted_backend()
    with pytest.raises(ReviewPending) as waiting:
        ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True)
    struck = _supports(waiting.value.payload)
    answer = resume(waiting.value.run_id, edits={"strike": struck}, backend=backend)
    assert answer.verdict != "SUPPORT" and answer.status == Status.INSUFFICIENT_EVIDENCE
    assert "A reviewer edited the court's ledger before this answer: 3 passage(s) struck (r0, r1, r2)" in answer.answer
    assert [c["action"] for c in answer.review] == ["strike"] * 3
    assert not {e.record_id for e in answer.ledger} & {"r0", "r1", "r2"}
    kept = [json.loads(line) for line in corrections_path().read_text().splitlines()]
    assert {c["record_id"] for c in kept} == {"r0", "r1", "r2"} and {c["run_id"] for c in kept} == {answer.run_id}


def test_a_passage_read_again_turns_the_verdict(home):
    backend = scripted_backend()

    def reviewer(payload):
        return {"read": {pid: "against" for pid in _supports(payload)}}

    answer = ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True, reviewer=reviewer)
    assert answer.verdict == "CONTRADICT"
    assert all(e.reviewed for e in answer.ledger if e.record_id in {"r0", "r1", "r2"})
    assert "3 re-read (r0: support -> against" in answer.answer


def test_edits_that_do_not_fit_and_a_finished_run_are_refused_with_the_reason(home):
    backend = scripted_backend()
    with pytest.raises(ReviewPending) as waiting:
        ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True)
    run_id = waiting.value.run_id
    for edits, reason in [
        ({"strike": ["p9"]}, "no passage 'p9' in the ledger under review"),
        ({"read": {"p1": "maybe"}}, "unknown reading 'maybe' for p1"),
        ({"add": ["nope"]}, "record 'nope' is not among the"),
        ({"veto": ["p1"]}, "a review has no field 'veto'"),
    ]:
        with pytest.raises(ReviewError, match=reason):
            resume(run_id, edits=edits, backend=backend)
    answer = resume(run_id, edits={}, backend=backend)  # nothing was lost: the run still waited, and answers
    assert answer.status == Status.ANSWERED and answer.review == []
    with pytest.raises(ReviewError, match="is not waiting for a review"):
        resume(run_id, edits={"strike": ["p1"]}, backend=backend)


def test_edits_that_stop_fitting_inside_the_run_are_asked_again_with_the_reason(home):
    backend = scripted_backend()
    asked = []

    def reviewer(payload):
        asked.append(payload)
        return {"strike": ["p42"]} if len(asked) == 1 else {"strike": ["p1"]}

    answer = ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True, reviewer=reviewer)
    assert "no passage 'p42'" in asked[1]["error"] and [c["record_id"] for c in answer.review] == ["r0"]


def test_the_terminal_reviewer_refuses_bad_lines_and_keeps_the_rest():
    payload = {
        "question": "q",
        "hypotheses": [],
        "passages": [
            {
                "id": "p1",
                "statement": "s",
                "record_id": "r1",
                "text": "t",
                "reading": "support",
                "confidence": 0.9,
                "decided": True,
            }
        ],
        "addable": [{"record_id": "r9", "title": "x"}],
    }
    out = io.StringIO()
    edits = terminal_reviewer(io.StringIO("strike p7\nread p1 maybe\nread p1 against\nadd r9\n\nstrike p1\n"), out)(
        payload
    )
    assert edits == {"read": {"p1": "against"}, "add": ["r9"]}  # the empty line ended the review
    shown = out.getvalue()
    assert "p1  [r1] read support (0.9) (decided the verdict): t" in shown
    assert "refused: no passage 'p7'" in shown and "refused: cannot read 'read p1 maybe'" in shown


def test_sparkit_ask_review_at_the_terminal_and_corrections_export(home, monkeypatch, capsys, tmp_path):
    backend = scripted_backend()
    monkeypatch.setattr("sys.stdin", io.StringIO("read p4 support\ndone\n"))
    code = main(["verify", CLAIM, "--review", "--set", f"backend={backend}", "--set", "max_claims=0", "--no-trace"])
    out, err = capsys.readouterr()
    assert code == 0 and "Review of the court's ledger" in err and "1 re-read (c1: against -> support)" in out
    out_file = tmp_path / "pairs.jsonl"
    assert main(["corrections", "export", "--out", str(out_file)]) == 0
    pairs = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert pairs == [
        {
            "statement": CLAIM,
            "passage": "Aerobic exercise decreases hippocampal volume in a small cohort of older adults.",
            "label": "SUPPORT",
            "category": "review_read",
            "court_reading": "against",
            "record_id": "c1",
            "run_id": pairs[0]["run_id"],
        }
    ]
    assert "1 training pair(s)" in capsys.readouterr().err


def test_an_added_record_is_read_by_the_court_and_counts(home):
    backend = scripted_backend()
    seen = []

    def reviewer(payload):
        seen.append(payload)
        return {"add": ["c1"]}  # retrieved, but past the two records the court read

    answer = ask(CLAIM, mode="verify", backend=backend, max_claims=0, court_records=2, review=True, reviewer=reviewer)
    assert "c1" in {a["record_id"] for a in seen[0]["addable"]}
    assert "c1" not in {p["record_id"] for p in seen[0]["passages"]}
    added = [e for e in answer.ledger if e.record_id == "c1"]
    assert (
        added
        and {e.via for e in added} == {"review"}
        and "CONTRADICT" in {e.stance for e in added if e.hypothesis_id == "H1"}
    )
    assert "1 record(s) added (c1)" in answer.answer and answer.review[0]["action"] == "add"


def test_a_run_waiting_for_review_resumed_at_the_terminal_without_review_says_how(home, monkeypatch, capsys):
    backend = scripted_backend()
    with pytest.raises(ReviewPending) as waiting:
        ask(CLAIM, mode="verify", backend=backend, max_claims=0, review=True)
    run_id = waiting.value.run_id
    assert main(["resume", run_id, "--set", f"backend={backend}", "--no-trace"]) == 3
    assert f"`sparkit resume {run_id} --review`" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))  # an empty line: approved as it is
    assert main(["resume", run_id, "--review", "--set", f"backend={backend}", "--no-trace"]) == 0
    assert "A reviewer edited" not in capsys.readouterr().out
