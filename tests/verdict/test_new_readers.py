"""The readers added to the verdict model's inputs: the evidence reader on whole records, the quantity reader, and the
offline re-reading of collected answers; which collected questions the model may learn from."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from agent.judges.breakdown import leaf_readers, reader_rows, record_readers
from agent.judges.evidence import EvidenceReadJudge
from agent.judges.reading import StructureReadJudge
from agent.scoring.claimed_quantity import quantities, quantity_reading
from agent.verdict.features import claim_features
from benchmarks.splits import scifact_splits
from benchmarks.verdict_parts import kept, reader_unseen
from tests.fakes import FixedStance
from tests.verdict.test_readings import _row
from training.reread import record_pairs, reread


def _record_row(rank: int, evidence: list[float] | None = None, text: str = "Findings.") -> dict:
    readers = {"cross": [0.3, 0.1, 0.6], **({"evidence": evidence} if evidence else {})}
    return {"kind": "record", "statement": 0, "record": f"r{rank}", "text": text, "rank": rank, "p": [0.3, 0.1, 0.6],
            "readers": readers}  # fmt: skip


def test_the_evidence_reader_reads_whole_records_only_and_is_named_for_the_verdict_model():
    cross, evidence = FixedStance("cross", [0.2, 0.2, 0.6]), FixedStance("evidence", [0.7, 0.1, 0.2])
    judge = EvidenceReadJudge(StructureReadJudge(cross), evidence)  # type: ignore[arg-type]
    assert leaf_readers(judge) == [cross] and record_readers(judge) == [evidence]
    sentences = asyncio.run(reader_rows(judge, [("claim", "a sentence")]))
    records = asyncio.run(reader_rows(judge, [("claim", "a record's findings")], records=True))
    assert list(sentences) == ["cross"] and list(records) == ["cross", "evidence"]
    assert evidence.calls == [[("claim", "a record's findings")]]
    assert asyncio.run(judge.judge([("claim", "p")]))[0].probabilities == pytest.approx(
        dict(zip(("SUPPORT", "CONTRADICT", "NEUTRAL"), (0.2, 0.2, 0.6)))
    )


def test_the_evidence_block_says_how_likely_the_top_records_settle_the_claim():
    rows = [_row([0.6, 0.1, 0.3]), _record_row(0, [0.1, 0.1, 0.8]), _record_row(1, [0.7, 0.2, 0.1])]
    features = claim_features(rows, "X increases Y.", False, None)
    assert features["evidence_present"] == 1.0
    assert features["evidence_settles_max"] == pytest.approx(0.9)
    assert features["evidence_settles_first"] == pytest.approx(0.2)
    assert features["evidence_lean"] == pytest.approx(0.5)
    unread = claim_features([_row([0.6, 0.1, 0.3]), _record_row(0)], "X increases Y.", False, None)
    assert unread["evidence_present"] == unread["evidence_settles_max"] == 0.0


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("The risk is 1 in 5 million doses.", [2e-7]),
        ("It occurred in 1/2000 recipients.", [5e-4]),
        ("Mortality fell by 30% (IL-6 and CD4 unchanged) in 2010.", [0.3]),
        ("A 2.5-fold rise in 1,200 patients.", [2.5, 1200.0]),
    ],
)
def test_quantities_are_normalised_and_names_and_years_are_not_values(text, values):
    assert quantities(text) == pytest.approx(values)


def test_the_quantity_reader_tells_the_claims_number_from_another():
    assert quantity_reading("The risk is 1 in 5 million.", ["It occurred in 1/2000 recipients."]) == {
        "quantity_claimed": 1.0,
        "quantity_stated": 0.0,
        "quantity_other": 1.0,
    }
    assert quantity_reading("Aspirin cuts risk by 30%.", ["Risk fell by 30 percent."])["quantity_stated"] == 1.0
    assert quantity_reading("Aspirin cuts risk.", ["Risk fell by 30 percent."])["quantity_claimed"] == 0.0
    rows = [_row([0.8, 0.1, 0.1], text="Events occurred in 1/2000 recipients.")]
    assert claim_features(rows, "The risk is 1 in 5 million.", False, None)["quantity_other"] == 1.0


class _Reader:
    def probabilities(self, pairs):
        return np.asarray([[0.6, 0.1, 0.3] if "settles" in text else [0.05, 0.05, 0.9] for _, text in pairs])


def test_collected_answers_are_reread_on_the_statement_and_text_the_court_read():
    answer = {
        "hypotheses": [
            {"claim": "X increases Y", "text": "X increases Y"},
            {"claim": None, "text": "X does not increase Y"},
        ],
        "readings": [_row([0.6, 0.1, 0.3]), _record_row(0, text="This settles it."), _record_row(1, text="Related.")],
    }
    pairs = record_pairs(answer)
    assert [pair for _, pair in pairs] == [("X increases Y", "This settles it."), ("X increases Y", "Related.")]
    assert reread([{"answer": answer}], _Reader()) == 2  # type: ignore[arg-type]
    assert [r["readers"].get("evidence") for r in answer["readings"]] == [None, [0.6, 0.1, 0.3], [0.05, 0.05, 0.9]]


def test_the_verdict_model_learns_only_from_questions_no_reader_trained_on():
    claims = [{"id": i, "cited_doc_ids": [100 + i], "evidence": {}} for i in range(1, 12)]
    splits = scifact_splits(claims)
    val = next(i for i in splits if splits[i] == "val")
    train = next(i for i in splits if splits[i] == "train")
    assert reader_unseen("claims", {"id": str(val)}, splits) and not reader_unseen("claims", {"id": str(train)}, splits)
    assert reader_unseen("pubmedqa", {"id": "123"}, splits)
    assert reader_unseen("healthver", {"id": "16_400"}, splits) and not reader_unseen(
        "healthver", {"id": "17_4"}, splits
    )
    assert not reader_unseen("check_covid", {"id": "doc_0"}, splits)
    assert kept("all", "check_covid", {"id": "doc_0"}, splits)
    with pytest.raises(ValueError, match="part 'some'"):
        kept("some", "claims", {"id": "1"}, splits)
