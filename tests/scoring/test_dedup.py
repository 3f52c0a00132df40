"""Semantic dedup merges paraphrases at cosine >= 0.85 but never claims naming different chemicals."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from agent.scoring.dedup import ClaimGroup, chemical_identifiers, dedup_claims, dedup_texts, identifiers_conflict


def unit_pair(cosine: float) -> np.ndarray:
    """Two unit vectors whose dot product is exactly `cosine`."""
    return np.array([[1.0, 0.0], [cosine, np.sqrt(1 - cosine**2)]])


def test_near_duplicates_merge_at_threshold() -> None:
    texts = ["Metformin lowers HbA1c.", "Metformin reduces HbA1c levels."]
    assert dedup_claims(texts, unit_pair(0.86)) == [ClaimGroup(0, (0, 1))]


def test_distinct_claims_stay_apart_below_threshold() -> None:
    texts = ["Metformin lowers HbA1c.", "Aspirin prevents stroke."]
    assert dedup_claims(texts, unit_pair(0.80)) == [ClaimGroup(0, (0,)), ClaimGroup(1, (1,))]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Compound CAS 50-00-0 inhibits the enzyme.", "Compound CAS 64-17-5 inhibits the enzyme."),
        (
            "InChIKey WSFSSNUMVMOOMR-UHFFFAOYSA-N binds the receptor.",
            "InChIKey LFQSCWFLJHTTHZ-UHFFFAOYSA-N binds the receptor.",
        ),
        ("The ligand InChI=1S/CH2O/c1-2/h1H2 binds.", "The ligand InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3 binds."),
        ("Aspirin CC(=O)Oc1ccccc1C(=O)O is active.", "Salicylic acid OC(=O)c1ccccc1O is active."),
    ],
)
def test_different_identifiers_never_merge_even_at_high_cosine(a: str, b: str) -> None:
    groups = dedup_claims([a, b], unit_pair(0.87))
    assert [g.members for g in groups] == [(0,), (1,)]


def test_same_identifier_merges() -> None:
    texts = ["Formaldehyde (CAS 50-00-0) is genotoxic.", "CAS 50-00-0 is a genotoxic compound."]
    assert dedup_claims(texts, unit_pair(0.9))[0].members == (0, 1)


def test_guard_checks_every_member_of_a_group() -> None:
    # 0 has no identifier, 1 and 2 name different ones: 1 may join 0, 2 may not join that group.
    texts = ["The compound is toxic.", "CAS 50-00-0 is toxic.", "CAS 64-17-5 is toxic."]
    vectors = np.tile([1.0, 0.0], (3, 1))
    assert [g.members for g in dedup_claims(texts, vectors)] == [(0, 1), (2,)]


def test_chemical_identifiers_reject_lookalikes() -> None:
    assert chemical_identifiers("formaldehyde (CAS 50-00-0)") == frozenset({"cas:50-00-0"})
    assert chemical_identifiers("recorded on 2001-12-3") == frozenset()  # fails the CAS check digit
    assert chemical_identifiers("NOS2, SOCS3 and CCN1 expression; carbon monoxide (CO); (n=30)") == frozenset()
    assert chemical_identifiers("benzene, SMILES: c1ccccc1") == frozenset({"smiles:c1ccccc1"})


def test_identifiers_conflict_only_when_both_name_some() -> None:
    assert identifiers_conflict(frozenset({"cas:50-00-0"}), frozenset({"cas:64-17-5"}))
    assert not identifiers_conflict(frozenset({"cas:50-00-0"}), frozenset())
    assert not identifiers_conflict(frozenset({"cas:50-00-0"}), frozenset({"cas:50-00-0"}))


def test_mismatched_lengths_raise() -> None:
    with pytest.raises(ValueError):
        dedup_claims(["a", "b"], np.ones((1, 2)))


class _FakeEmbedder:
    name = "fake"

    async def embed(self, texts: list[str], *, kind: str) -> np.ndarray:
        return np.array([[1.0, 0.0] if "HbA1c" in t else [0.0, 1.0] for t in texts])


def test_dedup_texts_uses_embedder() -> None:
    texts = ["Metformin lowers HbA1c.", "Aspirin prevents stroke.", "HbA1c falls on metformin."]
    groups = asyncio.run(dedup_texts(texts, _FakeEmbedder()))
    assert [g.members for g in groups] == [(0, 2), (1,)]
