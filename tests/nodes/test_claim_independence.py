"""A claim check is VERIFIED only by a confident supporting reading from a record about the claim and independent of
the claim's own source (issue 36, item 5): the own source alone, a weak reading, another passage of the same PDF, or a
record sharing only the claim's statistics is "no independent source found"."""

from __future__ import annotations

import asyncio

from agent.backend import backend_for, register_backend
from agent.config import Context
from agent.literature import Record, SourceLocation
from agent.nodes.verify_claims import NO_INDEPENDENT_SOURCE, check_claim
from agent.records import Claim, ClaimVerdict
from tests.fakes import ListSource, RuleStance, make_backend, record, unique_backend_name


def _checked(claim: Claim, candidates: list[Record], stance=None) -> Claim:
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource([])], stance=stance or RuleStance(support_word="increas")))
    settings = Context(backend=name)
    return asyncio.run(check_claim(backend_for(settings), claim, candidates, settings))


OWN = record(
    "own",
    "Hypoglycemia and dementia in older adults",
    "Severe hypoglycemia increases the risk of dementia in older adults (HR 1.94).",
    doi="10.1/own",
)
CLAIM = Claim(text="Severe hypoglycemia increases the risk of dementia in older adults.", sources=["own"])


def test_another_confident_reading_of_a_record_about_the_claim_verifies_it():
    other = record(
        "cohort",
        "Dementia after hypoglycemic episodes",
        "Hypoglycemia increases the risk of dementia in a cohort of 16,000 adults.",
        doi="10.1/c",
    )
    checked = _checked(CLAIM, [OWN, other])
    assert (
        checked.verdict == ClaimVerdict.VERIFIED
        and checked.supporting == ["own", "cohort"]
        and checked.independent_sources == 2
    )
    assert checked.note == ""


def test_the_own_source_and_a_weak_reading_do_not_verify_a_claim():
    """The own source counted as a supporting source at confidence 1.0, and any other at stance_min_confidence (0.5):
    a reading at 0.55 verified the claim."""
    other = record(
        "cohort",
        "Dementia after hypoglycemic episodes",
        "Hypoglycemia increases the risk of dementia in a cohort of 16,000 adults.",
        doi="10.1/c",
    )
    checked = _checked(CLAIM, [OWN, other], stance=RuleStance(support_word="increas", confidence=0.55))
    assert checked.verdict == ClaimVerdict.UNVERIFIED and checked.note == NO_INDEPENDENT_SOURCE
    alone = _checked(CLAIM, [OWN])
    assert alone.verdict == ClaimVerdict.UNVERIFIED and alone.note == NO_INDEPENDENT_SOURCE


def test_passages_of_one_library_document_count_once():
    """Seen: a library claim VERIFIED by two passages of the same PDF."""

    def passage(page: int, text: str) -> Record:
        return Record(
            id=f"doc1#p{page}.1",
            source="local",
            source_type="local",
            title="Reading rooms and study habits",
            abstract=text,
            location=SourceLocation(document_id="doc1", page=page),
        )

    own, same_pdf = (
        passage(2, "Quiet reading rooms increase study time of students."),
        passage(7, "Quiet reading rooms increase study time among students again."),
    )
    claim = Claim(text="Quiet reading rooms increase study time of students.", sources=[own.id])
    checked = _checked(claim, [own, same_pdf])
    assert checked.verdict == ClaimVerdict.UNVERIFIED and checked.note == NO_INDEPENDENT_SOURCE


def test_a_record_sharing_only_the_claims_statistics_is_not_about_it():
    """Seen: a dementia claim VERIFIED by a paper on children with type 1 diabetes that never mentions dementia. The
    quote's object is its statistics ("2.39% per year (95% CI ...)"), which the aspect check asked a record to name:
    any results sentence naming hypoglycemic episodes and years passed."""
    quote = (
        "The attributable risk of dementia between individuals with and without a hypoglycemic episode was 2.39% "
        "per year "
        "(95% CI, 1.72%-3.01%)."
    )
    own = record("own", "Hypoglycemic episodes and risk of dementia", quote, doi="10.1/own")
    children = record(
        "t1d",
        "Hypoglycemia in children with type 1 diabetes",
        "Severe hypoglycemic episodes increased to 12 per 100 patient-years (95% CI, 9-15) in "
        "children with type 1 diabetes.",
        doi="10.1/t1d",
    )
    checked = _checked(Claim(text=quote, sources=["own"]), [own, children])
    assert (
        checked.verdict == ClaimVerdict.UNVERIFIED
        and checked.note == NO_INDEPENDENT_SOURCE
        and "t1d" not in checked.supporting
    )
