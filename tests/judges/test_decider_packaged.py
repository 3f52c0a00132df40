"""The packaged decider (agent/models/decider_mpnet.npz) and the verdict model fitted with it
(agent/models/verdict_decider.json): the file names the adapter and the default readers as they ship, and over the
real all-mpnet-base-v2 base (its five registry parts, which CI installs) it reads which side a finding takes."""

from __future__ import annotations

import asyncio
import json
from importlib import metadata

import pytest

from agent.api import stance_judge
from agent.judges.breakdown import decider_readers
from agent.judges.decider import default_decider_weights_path
from agent.judges.mpnet_base import INSTALL, PARTS
from agent.judges.packaged import weights_digest
from agent.verdict.model import default_verdict_path, packaged_verdict_path, reader_versions, verdict_model_for

VERDICT_DECIDER = default_verdict_path().parent / "verdict_decider.json"


def _installed() -> bool:
    try:
        return all(metadata.distribution(name) for name in PARTS)
    except metadata.PackageNotFoundError:
        return False


def test_the_verdict_model_fitted_with_the_decider_names_the_shipped_readers():
    readers = json.loads(VERDICT_DECIDER.read_text(encoding="utf-8"))["readers"]
    assert readers.pop("decider") == weights_digest(default_decider_weights_path())
    assert readers == reader_versions(stance_judge())  # the default readers, as they ship
    assert packaged_verdict_path(reader_versions(stance_judge())) == default_verdict_path()


@pytest.mark.slow
@pytest.mark.skipif(not _installed(), reason=f"the MPNet base is not installed ({INSTALL})")
def test_the_packaged_decider_reads_the_side_and_its_verdict_model_is_chosen():
    judge = stance_judge(stance_decider_weights="packaged")
    (decider,) = decider_readers(judge)
    claim = "Aspirin reduces the risk of colorectal cancer."
    pairs = [
        (claim, "Daily aspirin reduced the incidence of colorectal cancer by 24% (HR 0.76, 95% CI 0.63-0.94)."),
        (claim, "Aspirin did not reduce the incidence of colorectal cancer (HR 1.02, 95% CI 0.84-1.25)."),
        (claim, "Aspirin use increased the incidence of colorectal cancer compared with placebo."),
    ]
    support, against, reversed_ = (r.probabilities for r in asyncio.run(decider.judge(pairs)))
    assert support["SUPPORT"] > 0.5 > against["SUPPORT"] and reversed_["CONTRADICT"] > 0.5
    versions = reader_versions(judge)
    assert packaged_verdict_path(versions) == VERDICT_DECIDER
    assert verdict_model_for(VERDICT_DECIDER, versions) is not None
