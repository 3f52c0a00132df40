"""The categories the direction error analysis sorts a pair into (training/direction_categories.py)."""

from __future__ import annotations

import numpy as np

from training.dataset import StancePair
from training.direction_categories import categories, table


def test_pairs_fall_in_the_categories_that_decide_their_direction():
    assert categories("Statins do not reduce mortality.", "Mortality fell.") == ["claim_negated"]
    assert categories("Exercise improves outcomes.", "Exercise was associated with poorer outcomes.") == ["antonym"]
    assert categories("X is associated with better survival.", "X correlated with poor prognosis.") == ["antonym"]
    assert categories("The risk is 1 in 5 million.", "It occurred in 1/2000.") == ["quantity"]
    assert categories("Aspirin lowers risk.", "Aspirin lowers risk; no harm was seen.") == ["evidence_negated"]
    assert categories("A binds B.", "A bound B in vitro.") == ["other"]


def test_the_table_sets_each_reader_beside_always_support():
    pairs = [
        StancePair("A increases B.", "A decreased B.", "CONTRADICT", "k", "g", "val"),
        StancePair("A binds B.", "A bound B.", "SUPPORT", "k", "g", "val"),
    ]
    result = table(pairs, {"judge": np.asarray([False, True]), "cue": np.asarray([True, True])})
    assert result["all"] == {"pairs": 2, "always_support": 0.5, "judge": 1.0, "cue": 0.5}
    assert result["antonym"]["pairs"] == 1 and result["antonym"]["judge"] == 1.0
