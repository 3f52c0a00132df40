"""The aspect check: a record takes a side on a statement only when it names the statement's subject and object."""

from agent.english.options import option_statement
from agent.records import Hypothesis
from agent.scoring.aspect import aspects_of, aspects_of_hypothesis, passage_addresses, record_addresses
from tests.fakes import record

STROKE = record(
    "s",
    "Metformin attenuates blood-brain barrier disruption in mice",
    "Metformin, a widely used hypoglycemic drug, reduces stroke incidence and alleviates chronic "
    "inflammation in clinical trials.",
)
CANCER = record(
    "c",
    "Metformin use and cancer incidence in a diabetes cohort",
    "Metformin users had fewer incident cancers (HR 0.63).",
)
COLORECTAL = record(
    "v",
    "Vitamin D and prevention of colorectal cancer",
    "Intake of 1000IU/day of Vitamin D was associated with 50% lower risk.",
)
FRACTURES = record(
    "f",
    "Vitamin D deficiency in postmenopausal women",
    "Low vitamin D contributes to reduced bone mineral density and risk of fractures and falls.",
)


def test_subject_and_object_are_the_content_words_on_each_side_of_the_finite_verb():
    aspects = aspects_of("Metformin reduces cancer incidence")
    assert aspects.subject == {"metfo"} and aspects.object == {"cance"}  # "incidence" is a measure, not a thing
    # relation and measure words ("associated", "lower", "risk") name no thing: they are left out of the object
    assert aspects_of("Vitamin D supplementation is associated with lower fracture risk").object == {"fract"}


def test_a_record_about_another_outcome_does_not_address_the_claim():
    assert not record_addresses(aspects_of("Metformin reduces cancer incidence"), STROKE)
    assert record_addresses(
        aspects_of("Metformin reduces cancer incidence"), CANCER
    )  # "cancers" meets "cancer" by prefix
    assert not record_addresses(
        aspects_of("Vitamin D supplementation is associated with lower fracture risk"), COLORECTAL
    )
    assert record_addresses(aspects_of("Vitamin D supplementation is associated with lower fracture risk"), FRACTURES)


def test_a_passage_addresses_a_claim_with_its_records_title_not_with_the_rest_of_its_abstract():
    claim = aspects_of("Metformin reduces cancer incidence")
    stroke = record("s2", STROKE.title, *STROKE.sentences, "Cancer was an exclusion criterion.")
    assert record_addresses(claim, stroke)
    assert not passage_addresses(
        claim, stroke.sentences[0], stroke
    )  # stroke, not cancer: the other sentence is no help
    assert passage_addresses(claim, "Users had fewer incident cancers (HR 0.63).", CANCER)  # the title names metformin
    assert passage_addresses(aspects_of("Colorectal cancer"), "Galaxies rotate.", STROKE)  # nothing to check


def test_a_record_about_another_subject_does_not_address_the_claim():
    assert not record_addresses(aspects_of("Aspirin reduces cancer incidence"), CANCER)


def test_statements_whose_aspects_cannot_be_read_are_not_checked():
    assert not aspects_of("Colorectal cancer").checkable  # no finite verb
    assert record_addresses(aspects_of("Colorectal cancer"), STROKE)
    assert record_addresses(aspects_of("It increases the risk"), STROKE)  # nothing but relation words after the verb
    # a judgement is what the study decides, not a thing its abstract must name (PubMedQA: "... is safe", "... worth the
    # effort")
    assert not aspects_of("Therapeutic anticoagulation in the trauma patient is safe").checkable
    assert not aspects_of("Volumetric analysis of paragangliomas is worth the effort").checkable


def test_an_mcq_option_is_checked_by_its_own_words_and_its_stems_object():
    stem = "Which drug increases insulin sensitivity in adults with prediabetes?"
    metformin, aspirin = (
        Hypothesis(id=f"H{i}", text=o, origin="option", option_index=i, claim=option_statement(stem, o))
        for i, o in enumerate(["metformin", "aspirin"])
    )
    trial = record("m", "Metformin trial", "Metformin increases insulin sensitivity in adults with prediabetes.")
    assert aspects_of_hypothesis(metformin).subject == {"metfo"} and aspects_of_hypothesis(metformin).object == {
        "insul",
        "sensi",
        "predi",
    }
    assert record_addresses(aspects_of_hypothesis(metformin), trial) and not record_addresses(
        aspects_of_hypothesis(aspirin), trial
    )


def test_an_open_questions_hypotheses_and_whole_statement_options_are_not_checked():
    finding = Hypothesis(id="H1", text="Insulin sensitivity was measured in 102 adults.", origin="evidence")
    assert not aspects_of_hypothesis(finding).checkable
    statement = "Lack of FGF21 in mice increases life expectancy."  # an option under "Which statement is supported?"
    option = Hypothesis(
        id="H2",
        text=statement,
        origin="option",
        option_index=1,
        claim=option_statement("Which statement is supported?", statement),
    )
    assert option.statement == statement and not aspects_of_hypothesis(option).checkable
    assert record_addresses(aspects_of_hypothesis(finding), STROKE)


def test_an_mcq_option_is_named_whole():
    """Issue 39: "Proton pump inhibitors" was SUPPORTED by an LDL record that never names it ("inhibits" met
    "inhibitors")."""
    stem = "Which drug class lowers LDL cholesterol?"
    ppi, statins = (
        Hypothesis(id=f"H{i}", text=o, origin="option", option_index=i, claim=option_statement(stem, o))
        for i, o in enumerate(["Proton pump inhibitors", "Statins"])
    )
    ldl = record(
        "l",
        "LDL inhibits the mediation of cholesterol efflux from macrophage foam cells",
        "In contrast, when LDL was added, the cholesterol-reducing capacities of these lipoproteins "
        "were inhibited by LDL.",
    )
    assert not record_addresses(aspects_of_hypothesis(ppi), ldl)
    ppi_trial = record(
        "p", "Proton pump inhibitors and serum lipids", "Proton pump inhibitor use lowered LDL cholesterol slightly."
    )
    assert record_addresses(aspects_of_hypothesis(ppi), ppi_trial)  # "inhibitor" meets "inhibitors" by prefix
    assert record_addresses(
        aspects_of_hypothesis(statins), record("s", "Statin therapy", "Statins lower LDL cholesterol.")
    )
