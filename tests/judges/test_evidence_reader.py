"""The packaged evidence reader (agent/models/evidence_reader.npz): wired beside the default judge, named for the
verdict model, and telling a record that settles a claim from one that is related but silent."""

from __future__ import annotations

import asyncio

import pytest

from agent.api import stance_judge
from agent.errors import ConfigurationError
from agent.judges.breakdown import reader_rows, record_readers
from agent.judges.evidence import default_evidence_weights_path
from agent.judges.packaged import weights_digest
from agent.verdict.model import default_verdict_path, reader_versions, verdict_model_for

SHIPS = default_evidence_weights_path().is_file()

CLAIM = "Aspirin reduces the risk of colorectal cancer."
SETTLES = (
    "RESULTS: Aspirin use was associated with a 24% lower incidence of colorectal cancer (HR 0.76, 95% CI 0.63-0.94). "
    "CONCLUSIONS: Daily aspirin reduced the long-term risk of colorectal cancer."
)
SILENT = (
    "This review describes the history of aspirin, its pharmacology and the design of ongoing cancer prevention "
    "trials. CONCLUSIONS: Further work is needed to define who should take aspirin."
)


@pytest.mark.skipif(not SHIPS, reason="no evidence reader ships yet (agent/judges/evidence.py)")
def test_the_default_judge_carries_the_evidence_reader_and_the_verdict_model_names_it():
    judge = stance_judge(stance_evidence_weights="packaged")
    readers = record_readers(judge)
    assert [r.name for r in readers] == ["evidence"]
    versions = reader_versions(judge)
    assert versions["evidence"] == weights_digest(default_evidence_weights_path())
    assert verdict_model_for(default_verdict_path(), versions) is not None  # fitted with it
    without = reader_versions(stance_judge(stance_evidence_weights="off"))
    assert "evidence" not in without and verdict_model_for(default_verdict_path(), without) is None


@pytest.mark.slow
@pytest.mark.skipif(not SHIPS, reason="no evidence reader ships yet (agent/judges/evidence.py)")
def test_a_record_that_settles_the_claim_reads_likelier_to_settle_it_than_a_silent_one():
    judge = stance_judge(stance_evidence_weights="packaged")
    rows = asyncio.run(reader_rows(judge, [(CLAIM, SETTLES), (CLAIM, SILENT)], records=True))["evidence"]
    settles, silent = 1 - rows[0][2], 1 - rows[1][2]
    assert settles > silent and rows[0][0] > rows[0][1]


def test_by_default_no_evidence_reader_reads_and_the_shipped_verdict_model_matches_the_readers():
    judge = stance_judge()
    assert record_readers(judge) == [] and "evidence" not in reader_versions(judge)
    assert verdict_model_for(default_verdict_path(), reader_versions(judge)) is not None


def test_another_evidence_file_that_is_not_there_is_refused_in_one_line(tmp_path):
    with pytest.raises(ConfigurationError, match="not found"):
        stance_judge(stance_evidence_weights=str(tmp_path / "missing.npz"))
