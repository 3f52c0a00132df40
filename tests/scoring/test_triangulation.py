"""Triangulation rewards support spread over independent, authoritative source types."""

from __future__ import annotations

import math

import pytest

from agent.literature import Record
from agent.scoring.triangulation import (
    authority_weight,
    herfindahl,
    record_triangulation,
    source_type,
    triangulation_score,
)


def test_three_source_claim_scores_above_one_source_claim() -> None:
    three = triangulation_score(["arxiv", "semantic_scholar", "crossref"])
    one = triangulation_score(["semantic_scholar"])
    assert one == 0.0
    assert three > one


def test_formula_matches_seed() -> None:
    # weighted n = 0.8 + 1.0 + 1.0 = 2.8; HHI over weighted shares.
    hhi = (0.8 / 2.8) ** 2 + 2 * (1.0 / 2.8) ** 2
    expected = math.log(1 + 2.8) * (1 - hhi)
    assert triangulation_score(["preprint", "index", "publisher"]) == pytest.approx(expected)


def test_authority_weights() -> None:
    assert authority_weight("arxiv") == 0.8
    assert authority_weight("preprint") == 0.8
    assert authority_weight("semantic_scholar") == 1.0
    assert authority_weight("crossref") == 1.0
    assert authority_weight("brave") == 0.6
    assert authority_weight("web") == 0.6
    assert authority_weight("local") == 1.0
    assert source_type("OpenAlex") == "index"


def test_web_support_counts_less_than_indexed_support() -> None:
    assert triangulation_score(["index", "web"]) < triangulation_score(["index", "publisher"])


def test_one_source_type_repeated_is_not_triangulated() -> None:
    assert triangulation_score(["arxiv", "arxiv", "arxiv"]) == 0.0
    assert triangulation_score([]) == 0.0


def test_herfindahl() -> None:
    assert herfindahl([5]) == 1.0
    assert herfindahl([1, 1, 1, 1]) == pytest.approx(0.25)
    assert herfindahl([]) == 1.0


def test_record_triangulation_counts_a_work_once() -> None:
    a = Record(id="1", source="arxiv", source_type="preprint", title="A study of triangulated evidence", doi="10.1/x")
    same = Record(id="2", source="crossref", source_type="publisher", title="Other title entirely here", doi="10.1/X")
    b = Record(id="3", source="semantic_scholar", source_type="index", title="Independent replication study")
    assert record_triangulation([a, same]) == 0.0
    assert record_triangulation([a, same, b]) == pytest.approx(triangulation_score(["preprint", "index"]))
