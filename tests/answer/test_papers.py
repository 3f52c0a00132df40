"""Each paper's answer to the question from the court's ledger (agent/answer/papers.py), and the meter and table the
terminal (agent/answer/papers_text.py) and the trace page (agent/tracing/papers_html.py) draw from them."""

from __future__ import annotations

from agent.answer.papers import (
    METER_MIN_PAPERS,
    answer_of,
    meter_counts,
    meter_text,
    paper_findings,
    records_read,
)
from agent.answer.papers_text import meter_bar, paper_lines
from agent.records import Hypothesis, LedgerEntry, PaperFinding
from agent.tracing.papers_html import meter_svg, papers_section
from tests.fakes import record

CLAIM = Hypothesis(id="H1", text="Zinc shortens colds", origin="claim", claim="Zinc shortens colds", polarity=1)
NEGATION = Hypothesis(
    id="H2", text="Zinc does not shorten colds", origin="negation", claim="Zinc shortens colds", polarity=-1
)


def entry(hypothesis: str, rid: str, stance: str, confidence: float, text: str, sentence: int = 0) -> LedgerEntry:
    return LedgerEntry(
        hypothesis_id=hypothesis,
        record_id=rid,
        sentence_index=sentence,
        text=text,
        stance=stance,  # type: ignore[arg-type]
        confidence=confidence,
    )


RECORDS = [
    record("trial", "Zinc lozenges in adults", "In this randomised trial of 200 adults, zinc shortened colds."),
    record("cohort", "Zinc intake and colds", "We followed 3,000 adults; zinc intake was unrelated to cold length."),
    record(
        "mixed", "Zinc in children", "Zinc shortened colds in one school.", "Zinc did not shorten colds in another."
    ),
    record("silent", "A history of zinc", "Zinc has been used in medicine for centuries."),
]
LEDGER = [
    entry("H1", "trial", "SUPPORT", 0.9, "In this randomised trial of 200 adults, zinc shortened colds."),
    # the negation reads the same passage reversed: it counts once, on the claim's side
    entry("H2", "trial", "CONTRADICT", 0.9, "In this randomised trial of 200 adults, zinc shortened colds."),
    entry("H2", "cohort", "SUPPORT", 0.8, "We followed 3,000 adults; zinc intake was unrelated to cold length."),
    entry("H1", "mixed", "SUPPORT", 0.7, "Zinc shortened colds in one school.", 0),
    entry("H1", "mixed", "CONTRADICT", 0.6, "Zinc did not shorten colds in another.", 1),
    entry("H1", "silent", "NEUTRAL", 0.5, "Zinc has been used in medicine for centuries."),
]


def findings() -> list[PaperFinding]:
    return paper_findings(RECORDS, LEDGER, [CLAIM, NEGATION], NEGATION)


def test_each_record_answers_the_claim_as_written_from_the_ledger():
    by_id = {p.record_id: p for p in findings()}
    assert [p.record_id for p in findings()] == ["trial", "cohort", "mixed", "silent"]
    assert by_id["trial"].answer == "supports" and "zinc shortened colds" in (by_id["trial"].answer_sentence or "")
    assert by_id["cohort"].answer == "contradicts"  # the negation's support is against the claim, whichever won
    assert by_id["mixed"].answer == "mixed" and by_id["silent"].answer == "silent"
    assert by_id["trial"].design == "RCT" and by_id["trial"].sample_size == 200
    assert by_id["cohort"].design == "cohort" and by_id["cohort"].sample_size == 3000
    assert by_id["trial"].size_sentence and "200 adults" in by_id["trial"].size_sentence


def test_a_side_twice_as_strong_decides_a_record_read_both_ways():
    strong = [
        (entry("H1", "r", "SUPPORT", 0.9, "a", 0), "SUPPORT"),
        (entry("H1", "r", "SUPPORT", 0.8, "b", 1), "SUPPORT"),
        (entry("H1", "r", "CONTRADICT", 0.5, "c", 2), "CONTRADICT"),
    ]
    assert answer_of(strong) == ("supports", "a")
    assert answer_of(strong[1:]) == ("mixed", "b")
    assert answer_of([]) == ("silent", None)


def test_an_answer_to_a_choice_is_read_towards_the_leading_hypothesis():
    options = [
        Hypothesis(id="H1", text="Zinc", origin="option", option_index=0, score=0.8),
        Hypothesis(id="H2", text="Vitamin C", origin="option", option_index=1, score=0.1),
    ]
    ledger = [entry("H1", "trial", "SUPPORT", 0.9, "x"), entry("H2", "cohort", "SUPPORT", 0.9, "y")]
    papers = {p.record_id: p.answer for p in paper_findings(RECORDS[:2], ledger, options, options[0])}
    assert papers == {"trial": "supports", "cohort": "silent"}  # support for another option is not about this one


def test_the_records_read_are_the_courts_then_any_the_ledger_adds():
    pool = {r.id: r for r in RECORDS}
    added = entry("H1", "silent", "SUPPORT", 1.0, "added by a reviewer")
    assert [r.id for r in records_read(["cohort", "trial", "gone"], [added], pool)] == ["cohort", "trial", "silent"]


def test_the_meter_counts_each_answer_and_is_drawn_from_three_papers():
    papers = findings()
    assert meter_counts(papers) == {"supports": 1, "mixed": 1, "contradicts": 1, "silent": 1}
    assert meter_text(papers) == "supports 1 · mixed 1 · contradicts 1 · related but silent 1"
    lines = paper_lines(papers)
    assert lines[0] == "Papers the court read (4): supports 1 · mixed 1 · contradicts 1 · related but silent 1"
    assert lines[1].strip().startswith(meter_bar(papers)) and len(meter_bar(papers)) == 26
    # a legend beside the bar names every cell, and every column has a header word
    assert lines[1].strip()[26:].split() == [
        "█",
        "supports",
        "▒",
        "mixed",
        "░",
        "contradicts",
        "·",
        "related",
        "but",
        "silent",
    ]
    assert lines[2].split() == ["answer", "design", "sample", "size", "record", "title"]
    assert meter_bar(papers).count("█") == 6 and meter_bar(papers).count("·") == 6
    assert any("RCT" in line and "200" in line and "trial" in line for line in lines)
    assert any('"In this randomised trial of 200 adults' in line for line in lines)
    few = papers[: METER_MIN_PAPERS - 1]
    assert "[" not in "\n".join(paper_lines(few)) and "drawn from 3 papers" in paper_lines(few)[1]


def test_the_trace_page_draws_an_svg_meter_and_a_table_of_the_papers():
    papers = findings()
    svg = meter_svg(papers)
    assert svg.startswith('<svg class="meter"') and svg.count("<rect") == 4
    assert 'class="meter-supports"' in svg and "related but silent: 1" in svg
    html = papers_section({"papers": [p.model_dump() for p in papers]}, lambda rid: f"<a>{rid}</a>")
    assert html.count('<tr class="paper">') == 4 and "<svg" in html and "<a>trial</a>" in html
    # the deciding sentence on its own row across the table, for each paper that takes a side (not the silent one)
    assert html.count('<tr class="quote"><td colspan="5">') == 3
    assert "RCT" in html and "200" in html and "In this randomised trial of 200 adults" in html
    assert "<svg" not in papers_section({"papers": [p.model_dump() for p in papers[:2]]}, str)
    assert "read no paper" in papers_section({}, str)


def test_a_record_the_claims_check_counted_is_not_silent_in_the_table():
    """One reading of a record throughout the answer (#56 item 5): a record that "Claims checked" lists as supporting
    a quote that supports the claim is no "related but silent" paper above it, one that refutes that quote counts
    against the claim in the meter, and a record the court itself read keeps the court's reading."""
    from agent.interfaces import CitedSentence
    from agent.records import Claim, ClaimVerdict

    quote = "In this randomised trial of 200 adults, zinc shortened colds."
    quoted = [
        CitedSentence(
            text=f'Supports the claim: "{quote}" (Zinc lozenges in adults)',
            citations=["trial"],
            role="supports_claim",
            side="for",
        )
    ]
    extra = [
        record("gold", "Zinc acetate and cold duration", "Zinc acetate lozenges shortened colds by three days."),
        record("against", "Zinc and colds revisited", "Zinc did not change how long colds lasted."),
    ]
    checked = Claim(
        text=quote,
        sources=["trial"],
        verdict=ClaimVerdict.CONTESTED,
        supporting=["trial", "gold", "cohort"],
        refuting=["against"],
        dossier=[
            entry("claim", "gold", "SUPPORT", 0.85, "Zinc acetate lozenges shortened colds by three days."),
            entry(
                "claim", "cohort", "SUPPORT", 0.7, "We followed 3,000 adults; zinc intake was unrelated to cold length."
            ),
            entry("claim", "against", "CONTRADICT", 0.8, "Zinc did not change how long colds lasted."),
        ],
    )
    papers = paper_findings(RECORDS + extra, LEDGER, [CLAIM, NEGATION], NEGATION, [checked], quoted)
    by_id = {p.record_id: p for p in papers}
    assert by_id["gold"].answer == "supports" and "three days" in (by_id["gold"].answer_sentence or "")
    assert by_id["against"].answer == "contradicts"
    assert by_id["cohort"].answer == "contradicts"  # the court read it against the claim: that reading stays
    assert by_id["silent"].answer == "silent"  # neither the court nor the check took a side on it
    assert meter_counts(papers)["contradicts"] == 2
    # without the quote's side (a "Related evidence" quote) the check's readings take no side either
    related = [quoted[0].model_copy(update={"role": "related"})]
    unsided = {
        p.record_id: p.answer
        for p in paper_findings(RECORDS + extra, LEDGER, [CLAIM, NEGATION], NEGATION, [checked], related)
    }
    assert unsided["gold"] == "silent" and unsided["against"] == "silent"
