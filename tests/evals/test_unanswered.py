"""evals.unanswered sorts each claim with evidence into where its verdict was lost."""

from __future__ import annotations

import json

from evals.unanswered import main, tally

SIDE = "no retrieved passage supports or contradicts any candidate answer"


def claim(i: int, label: str | None) -> dict:
    evidence = {str(100 + i): [{"label": label, "sentences": [0]}]} if label else {}
    return {"id": i, "claim": f"Claim {i}.", "evidence": evidence}


def answer(
    i: int, status: str, text: str = "", verdict: str | None = None, ledger=(), relevant: bool = True, scores=(0.0, 0.0)
) -> dict:
    hypotheses = [{"polarity": 1, "score": scores[0]}, {"polarity": -1, "score": scores[1]}]
    return {
        "question": f"Claim {i}.",
        "status": status,
        "answer": text,
        "verdict": verdict,
        "hypotheses": hypotheses,
        "ledger": [{"record_id": r} for r in ledger],
        "relevance": {"relevant": relevant},
    }


CLAIMS = [
    claim(i, label)
    for i, label in enumerate(["SUPPORT", "SUPPORT", "CONTRADICT", "SUPPORT", "CONTRADICT", "SUPPORT", None])
]
ANSWERS = [
    answer(0, "ANSWERED", "Yes.", "SUPPORT"),
    answer(1, "ANSWERED", "No.", "CONTRADICT"),
    # an abstention's verdict is NOT_ENOUGH_INFO; its lean is the side its hypothesis scores favour
    answer(2, "INSUFFICIENT_EVIDENCE", "Insufficient evidence to decide.", "NOT_ENOUGH_INFO", scores=(-0.1, 0.1)),
    answer(3, "INSUFFICIENT_EVIDENCE", f"Insufficient evidence: {SIDE}.", None, ledger=["103", "9"]),
    answer(4, "INSUFFICIENT_EVIDENCE", f"Insufficient evidence: {SIDE}.", None, ledger=["9"]),
    answer(5, "INSUFFICIENT_EVIDENCE", "Insufficient evidence: off topic.", None, relevant=False),
    answer(6, "INSUFFICIENT_EVIDENCE", f"Insufficient evidence: {SIDE}.", None),  # no gold evidence: not counted
    answer(7, "ANSWERED", "Yes.", "SUPPORT"),  # no such claim
]


def test_each_claim_with_evidence_lands_where_its_verdict_was_lost():
    result = tally(CLAIMS, ANSWERS)
    assert result["evidence_claims"] == 6 and result["unmatched_answers"] == 1
    assert {
        k: result[k]
        for k in (
            "answered",
            "answered_right",
            "abstained",
            "abstained_right",
            "judge_neutral",
            "gold_not_judged",
            "gate",
        )
    } == {
        "answered": 2,
        "answered_right": 1,
        "abstained": 1,
        "abstained_right": 1,
        "judge_neutral": 1,
        "gold_not_judged": 1,
        "gate": 1,
    }
    assert result["shares"]["answered"] == round(2 / 6, 4)


def test_the_cli_prints_a_table_and_one_json_line(tmp_path, capsys):
    claims, answers = tmp_path / "claims.jsonl", tmp_path / "answers.jsonl"
    claims.write_text("\n".join(json.dumps(c) for c in CLAIMS))
    answers.write_text("\n".join(json.dumps(a) for a in ANSWERS))
    assert main(["--claims", str(claims), "--answers", str(answers), "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("answered") and json.loads(out[-1])["gate"] == 1
