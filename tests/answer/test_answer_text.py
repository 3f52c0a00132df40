"""The terminal's answer reads without a key (agent/answer/text.py): a lean speaks as a lean, a probability has no
sign, a checked claim says in full why it is UNVERIFIED, every column has a header, and a reference shows no
"(n.d.) local"."""

from __future__ import annotations

from agent.answer.compose import sentence_case
from agent.answer.text import claim_reason, reference_line, render
from agent.literature import Citation
from agent.records import (
    Answer,
    AnswerSentence,
    Claim,
    ClaimVerdict,
    Hypothesis,
    HypothesisVerdict,
    PaperFinding,
    Status,
)

QUOTE = "Severe hypoglycemic episodes were associated with a greater risk of dementia."
HYPOTHESES = [
    Hypothesis(
        id="H1",
        text="Hypoglycemia increases the risk of dementia",
        origin="claim",
        polarity=1,
        score=0.62,
        support=4.29,
        verdict=HypothesisVerdict.SUPPORTED,
    ),
    Hypothesis(
        id="H2",
        text="Hypoglycemia does not increase the risk of dementia",
        origin="negation",
        polarity=-1,
        score=0.19,
        contradiction=2.2,
        verdict=HypothesisVerdict.CONTRADICTED,
    ),
]


def lean(**update) -> Answer:
    answer = Answer(
        status=Status.LEANING,
        task="polar",
        question="Does hypoglycemia increase the risk of dementia?",
        answer="The evidence leans towards yes (0.62): hypoglycemia increases the risk of dementia [r1].",
        verdict="SUPPORT",
        confidence=0.62,
        tier="leaning",
        hypotheses=HYPOTHESES,
        scores="probability",
        sentences=[
            AnswerSentence(
                text=f'Supports the claim: "{QUOTE}" (Hypoglycemic episodes)', citations=["r1"], role="supports_claim"
            )
        ],
        claims=[
            Claim(
                text=QUOTE, sources=["r1"], supporting=["r1"], independent_sources=1, note="no independent source found"
            )
        ],
        citations=[Citation(id="r1", title="Hypoglycemic episodes and risk of dementia.", source="local")],
        papers=[
            PaperFinding(
                record_id=f"r{i}",
                title=f"Paper {i}",
                answer="supports" if i == 1 else "silent",
                design="cohort",
                sample_size=100 * i,
            )
            for i in range(1, 5)
        ],
        faithfulness=1.0,
        run_id="abc",
    )
    return answer.model_copy(update=update)


def test_a_lean_speaks_as_a_lean_and_its_probabilities_carry_no_sign():
    text = render(lean())
    assert "Verdict: leans SUPPORT (a lean, not a confident verdict)" in text
    assert "Verdict: SUPPORT\n" not in text and " SUPPORTED " not in text and "CONTRADICTED" not in text
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith("  H")}
    assert rows["H1"].split()[1] == "0.62" and "leans supported" in rows["H1"]
    assert rows["H2"].split()[1] == "0.19" and "leans contradicted" in rows["H2"]
    assert "+0." not in text and "probability that it is right" in text
    header = next(line for line in text.splitlines() if line.strip().startswith("id "))
    assert header.split() == ["id", "score", "for", "/", "against", "reading", "hypothesis"]
    # a confident answer keeps the verdict's own words; the court's evidence score keeps its sign, and says so
    confident = render(lean(status=Status.ANSWERED, tier="confident", scores="evidence"))
    assert "Verdict: SUPPORT\n" in confident and "SUPPORTED" in confident and "+0.62" in confident
    assert "not a probability" in confident


def test_an_unverified_claim_says_why_in_full_and_a_reference_omits_what_is_unknown():
    text = render(lean())
    reason = claim_reason(lean().claims[0])
    assert reason in text and "…" not in reason
    assert "no other source bears it out" in reason and "[r1]" in reason
    verified = Claim(
        text=QUOTE, sources=["r1"], supporting=["r1", "r7"], independent_sources=2, verdict=ClaimVerdict.VERIFIED
    )
    assert claim_reason(verified).startswith("borne out by 2 independent sources: [r7]")
    contested = verified.model_copy(update={"verdict": ClaimVerdict.CONTESTED, "refuting": ["r9"]})
    assert "against it [r9]" in claim_reason(contested)
    assert "(n.d.)" not in text and " local" not in text
    assert reference_line(Citation(id="r1", title="T.", year=2011, source="arxiv")) == "  [r1] T. (2011, arxiv)"
    assert reference_line(Citation(id="r1", title="T.", source="local")) == "  [r1] T."
    assert "Faithfulness: 1.00 (the share of the answer's cited statements" in text


def test_a_statement_after_that_is_in_sentence_case():
    assert sentence_case("A higher intake of zinc shortens colds") == "a higher intake of zinc shortens colds"
    assert sentence_case("Hypoglycemia increases the risk") == "hypoglycemia increases the risk"
    assert sentence_case("IL-6 rises with age") == "IL-6 rises with age"
    assert sentence_case("TNF-alpha is raised") == "TNF-alpha is raised"


def test_the_trace_page_words_the_answer_as_the_terminal_does():
    from agent.tracing.answer_html import citation_items, claims_table, hypotheses_table, known_details, status_badges

    answer = lean().model_dump(mode="json")
    assert "leans SUPPORT" in status_badges(answer) and "probability that the lean is right 0.62" in status_badges(
        answer
    )
    table = hypotheses_table(answer)
    assert "leans supported" in table and "leans contradicted" in table and "+0.62" not in table and ">0.62<" in table
    assert "no other source bears it out" in claims_table(answer, str)
    items = citation_items(answer["citations"], str, lambda doi: "")
    assert "n.d." not in items and "local" not in items
    assert known_details({"year": None, "venue": "", "source": "local"}) == []  # a cited record's heading
    assert known_details({"year": 2011, "venue": "JAMA", "source": "openalex"}) == ["2011", "JAMA", "openalex"]


def test_the_readmes_example_has_the_shape_the_terminal_prints():
    """The README's example answer is the code's output, shortened: each labelled line and each column header it
    shows is one `render` prints (the lead refreshes its numbers; its shape must not drift from the code)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = readme.split("<!-- example answer:", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    printed = render(lean(stop_reason="leaning: ...", searched="SciFact (5,183 abstracts)")).splitlines()
    label = re.compile(r"^(\s*[A-Z][a-z]+(?: [a-z]+)*)(?=:| \()")
    for line in example.splitlines():
        found = label.match(line)
        if found and not line.lstrip().startswith(("Supports", "Against", "Related")):
            assert any(p.startswith(found.group(1)) for p in printed), (
                f"the README shows a line render does not: {line}"
            )
        if line.split()[:2] in (["answer", "design"], ["id", "score"]):
            assert any(p.split() == line.split() for p in printed), f"the README's header differs: {line}"
    verdict = next(line for line in example.splitlines() if line.startswith("Verdict:"))
    assert verdict in printed
