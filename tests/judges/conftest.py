"""Shared fixtures for the stance judge tests: the SciFact location and a held-out sample."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agent.interfaces import StanceJudge, StanceResult
from benchmarks.splits import scifact_splits
from training.dataset import LABELS, load_scifact

# tests/judges/<this file> -> parents[3] is the folder holding the repository and shared/
DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(
    not (DATA / "scifact" / "corpus.jsonl").exists(), reason=f"SciFact not found under {DATA}"
)


@pytest.fixture(scope="module")
def held_out() -> list[tuple[str, str, str]]:
    """(claim, sentence, gold label) for held-out claims: every rationale sentence plus one non-rationale
    sentence of the same abstract (NEUTRAL), for the first 40 held-out claims with evidence, by id."""
    corpus, claims = load_scifact(DATA)
    splits = scifact_splits(claims)
    chosen = [c for c in sorted(claims, key=lambda c: c["id"]) if splits[c["id"]] == "heldout" and c["evidence"]][:40]
    examples = []
    for claim in chosen:
        for doc_id, rationales in claim["evidence"].items():
            sentences = corpus[int(doc_id)]["abstract"]
            used = {i for r in rationales for i in r["sentences"]}
            for rationale in rationales:
                examples += [(claim["claim"], sentences[i], rationale["label"]) for i in rationale["sentences"]]
            others = [i for i in range(len(sentences)) if i not in used]
            if others:
                examples.append((claim["claim"], sentences[others[0]], "NEUTRAL"))
    return examples


async def assert_held_out_floors(
    judge: StanceJudge, held_out: list[tuple[str, str, str]], min_recall: dict[str, float], min_balanced_accuracy: float
) -> None:
    """Recall per label of `judge` on the held-out sample, and its mean, are at least the regression floors."""
    gold = np.array([LABELS.index(label) for _, _, label in held_out])
    results = await judge.judge([(claim, sentence) for claim, sentence, _ in held_out])
    pred = np.array([LABELS.index(r.stance) for r in results])
    recalls = {label: float((pred[gold == k] == k).mean()) for k, label in enumerate(LABELS)}
    for label, floor in min_recall.items():
        assert recalls[label] >= floor, recalls
    assert np.mean(list(recalls.values())) >= min_balanced_accuracy, recalls


def assert_well_formed(results: list[StanceResult], n: int) -> None:
    """n results, each a label with probabilities over LABELS that sum to one and the argmax's as confidence."""
    assert len(results) == n
    for result in results:
        assert isinstance(result, StanceResult) and result.stance in LABELS
        assert list(result.probabilities) == list(LABELS)
        assert math.isclose(sum(result.probabilities.values()), 1.0, abs_tol=1e-5)
        assert result.confidence == pytest.approx(max(result.probabilities.values()))
