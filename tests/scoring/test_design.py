"""The study-design and sample-size reader (agent/scoring/design.py, sample_size.py, study.py) on hand-written
abstracts of each design, written for these tests (not from the labelled set)."""

from __future__ import annotations

import pytest

from agent.literature import Record
from agent.scoring.design import DESIGNS, EVIDENCE_LEVEL
from agent.scoring.sample_size import number_value, size_of
from agent.scoring.study import read_study, study_numbers


def abstract(title: str, *sentences: str) -> Record:
    return Record(id="x", source="list", title=title, sentences=list(sentences))


CASES = {
    "meta-analysis": abstract(
        "Statins and stroke: a meta-analysis of randomised trials",
        "BACKGROUND Whether statins prevent stroke in the elderly is debated.",
        "METHODS We searched MEDLINE and Embase for randomised trials of statins in adults over 65.",
        "RESULTS Twelve trials with a total of 48,210 participants were included.",
        "The pooled relative risk of stroke was 0.82 (95% CI 0.74-0.91) in a random-effects model.",
    ),
    "systematic review": abstract(
        "Peer support for new mothers",
        "We systematically searched PubMed, CINAHL and PsycINFO for studies of peer support after birth.",
        "Nine studies met the inclusion criteria; their designs and outcomes were too varied to combine.",
        "Most reported better breastfeeding rates, but the quality of evidence was low.",
    ),
    "RCT": abstract(
        "Zinc for the common cold in children",
        "METHODS We randomly assigned 412 children aged 2-10 years to zinc syrup (n = 206) or placebo (n = 206).",
        "RESULTS Cold duration was 4.1 days with zinc and 4.3 days with placebo (P = .41).",
    ),
    "cohort": abstract(
        "Night shift work and type 2 diabetes",
        "We followed 9,318 nurses free of diabetes at baseline for a median of 12 years.",
        "During 104,000 person-years of follow-up, 611 incident cases of diabetes were documented.",
        "Rotating night shifts were associated with a higher risk (HR 1.34, 95% CI 1.10-1.62).",
    ),
    "case-control": abstract(
        "Mobile phone use and glioma",
        "DESIGN Population-based case-control study in five countries.",
        "PARTICIPANTS 366 glioma cases and 1,494 controls matched on age and sex.",
        "Regular use was not associated with glioma (OR 0.94).",
    ),
    "cross-sectional": abstract(
        "Sleep duration among university students",
        "In this cross-sectional survey, 1,207 undergraduate students completed an online questionnaire.",
        "Forty-one percent reported fewer than six hours of sleep on weeknights.",
    ),
    "case report or series": abstract(
        "Reversible blindness after methanol ingestion in a young man",
        "We report the case of a 24-year-old man who lost his sight two days after drinking adulterated spirits.",
        "Vision recovered fully after fomepizole and haemodialysis.",
    ),
    "animal": abstract(
        "Intermittent fasting protects mice from diet-induced obesity",
        "Mice fed a high-fat diet on alternate days gained less weight than mice fed every day.",
        "Fasted mice showed improved glucose tolerance and lower hepatic triglycerides.",
    ),
    "in vitro": abstract(
        "A kinase that phosphorylates tau at serine 262",
        "Here we purified the kinase from bovine brain extracts and characterised its activity in vitro.",
        "Recombinant enzyme phosphorylated tau in cultured cells and reduced its binding to microtubules.",
    ),
    "narrative review": abstract(
        "Gut microbiota and the brain",
        "The gut microbiota signals to the brain through immune, endocrine and neural routes.",
        "In this review we discuss the evidence for these pathways and the open questions they raise.",
    ),
    "other": abstract(
        "The cost-effectiveness of screening for atrial fibrillation",
        "We built a microsimulation model of a population of 65-year-olds followed over their lifetime.",
        "Screening cost 21,000 dollars per quality-adjusted life-year gained.",
    ),
}


@pytest.mark.parametrize("design", DESIGNS)
def test_each_design_is_read_from_a_hand_written_abstract(design):
    reading = read_study(CASES[design])
    assert reading.design == design
    assert reading.design_sentence is not None


@pytest.mark.parametrize(
    ("design", "size", "quoted"),
    [
        ("meta-analysis", 48210, "48,210 participants"),  # participants pooled, never the 12 trials
        ("RCT", 412, "412 children"),  # a total before its groups stays the total
        ("cohort", 9318, "9,318 nurses"),
        ("case-control", 1860, "366 glioma cases"),  # groups side by side are summed
        ("cross-sectional", 1207, "1,207 undergraduate"),
        ("case report or series", 1, "in a young man"),  # one patient, as the title says
    ],
)
def test_the_sample_size_is_the_participants_stated_first_with_its_sentence(design, size, quoted):
    reading = read_study(CASES[design])
    assert reading.sample_size == size
    assert reading.size_sentence is not None and quoted in reading.size_sentence


@pytest.mark.parametrize("design", ["animal", "in vitro", "narrative review", "systematic review"])
def test_no_size_where_the_abstract_states_no_count_of_participants(design):
    assert read_study(CASES[design]).sample_size is None


def test_numbers_in_words_and_with_separators():
    assert number_value("Seventy-four") == 74
    assert number_value("One hundred twenty-six") == 126
    assert number_value("22 518") == 22518 and number_value("4,632") == 4632
    assert number_value("many") is None


def test_counts_that_name_something_else_are_not_sample_sizes():
    assert size_of(["Patients with type 2 diabetes were seen in 14 hospitals over 3 years."]) is None
    assert size_of(["Expression of molecule 1 rose in 20 of the tissue samples."]) is None
    reading = size_of(["Of 908 prisoners who received the questionnaire, 650 agreed to take part."])
    assert reading is not None and reading.size == 650


def test_people_invited_then_taking_part_count_those_who_took_part():
    reading = size_of(["A questionnaire was sent to 908 prisoners.", "In all, 650 prisoners returned it completed."])
    assert reading is not None and reading.size == 650


def test_study_numbers_rank_the_evidence_and_carry_the_size():
    trial, report = study_numbers(CASES["RCT"]), study_numbers(CASES["case report or series"])
    assert trial["evidence_level"] == EVIDENCE_LEVEL["RCT"] > report["evidence_level"]
    assert trial["size_stated"] == 1.0 and trial["log10_size"] == pytest.approx(2.616, abs=1e-3)
    review = study_numbers(CASES["narrative review"])
    assert review == {"evidence_level": EVIDENCE_LEVEL["narrative review"], "log10_size": 0.0, "size_stated": 0.0}
