"""The look-alike rules of the study-design and sample-size reader (issue 57, item 5), on abstracts written for these
tests: an epidemiological review that names cells in passing, patients and controls compared once, a diagnostic
"prospective study", a single-arm intervention, and groups counted by their group instead of their people."""

from __future__ import annotations

from agent.literature import Record
from agent.scoring.sample_size import size_of
from agent.scoring.study import read_study


def abstract(title: str, *sentences: str) -> Record:
    return Record(id="x", source="list", title=title, sentences=list(sentences))


def test_an_epidemiological_review_that_names_cells_in_passing_is_a_narrative_review_not_in_vitro():
    review = abstract(
        "Metabolic syndrome as a risk factor for diabetes",
        "The metabolic syndrome clusters high triglycerides, low HDL cholesterol and high blood pressure.",
        "Epidemiological studies demonstrate that every definition carries a similar risk of diabetes.",
        "The risk appears to reflect the failure of the beta cell to compensate for insulin resistance.",
        "Lifestyle changes reduced incident diabetes by almost 50% in people with impaired glucose tolerance.",
    )
    assert read_study(review).design == "narrative review"
    own_cells = abstract(
        "Beta cell failure under lipotoxic stress",
        "We exposed cultured beta cells to palmitate for 48 h.",
        "Insulin secretion fell by 50% and apoptosis rose threefold.",
    )
    assert read_study(own_cells).design == "in vitro"  # a cell study of its own stays one
    passive = abstract(
        "Growth factor expression and prognosis in lung cancer",
        "The incidence of lung cancer in adults continues to rise.",
        "Expression was evaluated immunohistochemically in resected specimens of 107 patients.",
        "High expression was associated with a high vascular grade (P = 0.01).",
    )
    assert read_study(passive).design != "narrative review"  # own data told in the passive is no review


def test_patients_and_matched_controls_measured_once_are_cross_sectional_unless_an_exposure_is_weighed():
    measured = abstract(
        "Liver energy stores in steatohepatitis: a pilot study",
        "PATIENTS Eight adults with biopsy-proven steatohepatitis and 7 healthy age- and sex-matched controls.",
        "RESULTS Liver ATP recovered more slowly in patients than in controls.",
    )
    reading = read_study(measured)
    assert (reading.design, reading.sample_size) == ("cross-sectional", 15)
    exposure = abstract(
        "Coffee and bladder cancer",
        "We compared 300 cases of bladder cancer and 600 matched controls.",
        "Drinking four cups a day carried an odds ratio of 1.4 for bladder cancer.",
    )
    assert read_study(exposure).design == "case-control"


def test_a_prospective_study_of_a_tests_diagnostic_accuracy_is_cross_sectional():
    diagnostic = abstract(
        "MRI in the diagnosis of multiple sclerosis: a prospective study",
        "We compared the diagnostic capabilities of MRI with evoked potentials in 200 patients suspected of MS.",
        "MRI was abnormal in 80% of those with clinically definite MS.",
    )
    assert read_study(diagnostic).design == "cross-sectional"
    followed = abstract(
        "Statin use and dementia: a prospective study",
        "We followed 3,000 adults aged over 65 for 10 years.",
        "Statin users had a lower incidence of dementia (hazard ratio 0.8).",
    )
    assert read_study(followed).design == "cohort"


def test_an_intervention_in_one_group_without_a_comparison_is_other():
    single_arm = abstract(
        "Exercise training in pulmonary hypertension",
        "This prospective study was designed to assess the impact of exercise and respiratory training on walking "
        "distance.",
        "Seven patients were included and trained for 3 weeks in hospital.",
        "Walking distance improved by 40 m.",
    )
    assert read_study(single_arm).design == "other"
    compared = abstract(
        "Exercise training in pulmonary hypertension",
        "This prospective study was designed to assess the impact of exercise training on walking distance.",
        "Thirty patients were trained and compared with 30 untrained controls.",
    )
    assert read_study(compared).design != "other"


def test_groups_counted_by_their_group_after_a_count_of_people_add_up():
    sentence = (
        "FINDINGS 22,420 women were randomly assigned to the intervention group and 22 518 to the control group; "
        "19 999 in the intervention group and 20,106 in the control group were eligible."
    )
    assert size_of([sentence]).size == 44938
    assert size_of(["We randomised 300 adults to the drug arm and 298 to the placebo arm."]).size == 598
    total_first = "A total of 120 patients were enrolled; 60 in the treatment group and 60 in the placebo group."
    assert size_of([total_first]).size == 120  # a total before its groups stays the total
    assert size_of(["Tumours grew in 5 to 8 of the 10 groups of cells."]) is None  # no people counted first
