"""Question analysis: yes/no questions become the statement a "yes" asserts, titled questions included."""

from __future__ import annotations

import pytest

from agent.english.options import option_statement
from agent.english.questions import contrary, is_polar, negate, polar_to_claim

CASES = [
    ("Does hypoglycemia increase the risk of dementia?", "Hypoglycemia increases the risk of dementia"),
    (
        "Is there still a need for living-related liver transplantation in children?",
        "There is still a need for living-related liver transplantation in children",
    ),
    ("Transgastric endoscopic splenectomy: is it possible?", "Transgastric endoscopic splenectomy is possible"),
    (
        "A short stay ward in a children's hospital: are they effective?",
        "A short stay ward in a children's hospital are effective",
    ),
    (
        "Assessment of carotid artery stenosis before bypass surgery. Is it always necessary?",
        "Assessment of carotid artery stenosis before bypass surgery is always necessary",
    ),
    (
        "Body perception: do parents perceive body image differently?",
        "Body perception: Parents perceive body image differently",
    ),
    (
        "Injury mortality among young men--are there any common factors?",
        "Injury mortality among young men: There are any common factors",
    ),
    # a copula is moved before the predicate, not dropped
    (
        "Is a mandatory general surgery rotation necessary in the surgical clerkship?",
        "A mandatory general surgery rotation is necessary in the surgical clerkship",
    ),
    ("Is the Hawkins sign able to predict necrosis?", "The Hawkins sign is able to predict necrosis"),
    (
        "Is motion perception deficit in schizophrenia a consequence of eye-tracking abnormality?",
        "Motion perception deficit in schizophrenia is a consequence of eye-tracking abnormality",
    ),
    ("Is the use of the drug safe?", "The use of the drug is safe"),
    (
        "Are bipolar disorders underdiagnosed in patients with depressive episodes?",
        "Bipolar disorders are underdiagnosed in patients with depressive episodes",
    ),
    ("Is HIV/STD control in Jamaica making a difference?", "HIV/STD control in Jamaica is making a difference"),
    (
        "Is extended aortic replacement in acute type A dissection justifiable?",
        "Extended aortic replacement in acute type A dissection is justifiable",
    ),
    ("Is it time to reconsider lobectomy?", "It is time to reconsider lobectomy"),
    (
        "Are women who are treated for hypothyroidism at risk for pregnancy complications?",
        "Women who are treated for hypothyroidism are at risk for pregnancy complications",
    ),
    # a participle before a comparison opens the predicate (issue 44: 'Open access articles cited are less often')
    (
        "Are open access articles cited less often than articles in traditional subscription journals?",
        "Open access articles are cited less often than articles in traditional subscription journals",
    ),
    ("Is aspirin used more widely than ibuprofen?", "Aspirin is used more widely than ibuprofen"),
    # no predicate found: the copula is dropped as before
    ("Is the rate of recurrence ten percent?", "The rate of recurrence ten percent"),
]


@pytest.mark.parametrize(("question", "claim"), CASES)
def test_polar_questions_become_claims(question, claim):
    assert is_polar(question)
    assert polar_to_claim(question) == claim


@pytest.mark.parametrize(
    "question",
    [
        "What causes dementia?",
        "Aripiprazole: a new risk factor for pathological gambling?",
        "Aspirin reduces colorectal cancer.",
    ],
)
def test_other_text_is_not_polar(question):
    assert not is_polar(question)


def test_an_option_under_a_meta_stem_is_judged_alone():
    assert (
        option_statement("Which statement does the published evidence support?", "Aspirin reduces colorectal cancer.")
        == "Aspirin reduces colorectal cancer."
    )
    assert option_statement("Which of the following is true?", " X binds Y ") == "X binds Y"


@pytest.mark.parametrize(
    ("stem", "option", "others", "statement"),
    [
        (
            "What is the boiling point of water at sea level?",
            "100 °C",
            (),
            "The boiling point of water at sea level is 100 °C",
        ),
        # two options and a comparative: the statement names what the evidence must separate
        (
            "Which is more effective for smoking cessation?",
            "varenicline",
            ("nicotine patch",),
            "Varenicline is more effective than nicotine patch for smoking cessation",
        ),
        ("Which is safer in pregnancy?", "labetalol", ("enalapril",), "Labetalol is safer than enalapril in pregnancy"),
        (
            "Which drug is first-line therapy for type 2 diabetes?",
            "metformin",
            ("insulin", "glipizide"),
            "Metformin is first-line therapy for type 2 diabetes",
        ),
        (
            "Which drug class lowers LDL cholesterol?",
            "statins",
            ("beta blockers",),
            "Statins lower LDL cholesterol",
        ),  # the verb agrees
        ("Which cell type produces insulin?", "beta cells", ("alpha cells",), "Beta cells produce insulin"),
        (
            "Which dose of aspirin prevents colorectal adenomas better?",
            "81 mg",
            ("325 mg",),
            "81 mg prevents colorectal adenomas better than 325 mg",
        ),
        (
            "Which of the following drugs causes hypoglycemia?",
            "glipizide",
            ("metformin", "acarbose"),
            "Glipizide causes hypoglycemia",
        ),
        # no subject for the option to take: the stem is kept, the option after it
        ("What does metformin inhibit?", "complex I", (), "What does metformin inhibit: complex I"),
        ("Which results show a rise?", "trial 2", (), "Which results show a rise: trial 2"),
    ],
)
def test_a_short_option_answers_its_stem(stem, option, others, statement):
    assert option_statement(stem, option, others) == statement


@pytest.mark.parametrize(
    ("statement", "query"),
    [
        ("Metformin improves insulin sensitivity", "Metformin worsens insulin sensitivity"),
        # a term's adjective is not the statement's direction: the negation, not "the rare cold"
        ("Vitamin C prevents the common cold", "Vitamin C does not prevent the common cold"),
        ("High blood pressure increases the risk of stroke", "High blood pressure decreases the risk of stroke"),
        ("Side effects of statins are common", "Side effects of statins are rare"),
        # the comparative carries the direction, and "lower" is compared, not the verb "to lower"
        ("Exercise is associated with lower mortality", "Exercise is associated with higher mortality"),
        # the article agrees with the word swapped in (seen: "Obesity is associated with an decreased risk ...")
        (
            "Obesity is associated with an increased risk of colorectal cancer",
            "Obesity is associated with a decreased risk of colorectal cancer",
        ),
        ("Smoking causes a decrease in lung function", "Smoking causes an increase in lung function"),
    ],
)
def test_a_falsifying_query_swaps_the_statements_direction(statement, query):
    assert contrary(statement) == query


@pytest.mark.parametrize(
    ("question", "stem", "options"),
    [
        (
            "Which is more effective for smoking cessation: (A) varenicline or (B) nicotine patch?",
            "Which is more effective for smoking cessation?",
            ["varenicline", "nicotine patch"],
        ),
        (
            "Which drug is first-line for type 2 diabetes? A) metformin B) insulin C) a sulfonylurea",
            "Which drug is first-line for type 2 diabetes?",
            ["metformin", "insulin", "a sulfonylurea"],
        ),
        (
            "What raises blood pressure? a. salt and pepper, b. sugar, or c. both.",
            "What raises blood pressure?",
            ["salt and pepper", "sugar", "both"],
        ),
        ("Which gene is mutated: [A] BRCA1; [B] TP53; [C] KRAS?", "Which gene is mutated?", ["BRCA1", "TP53", "KRAS"]),
        ("Which is larger (A) the proton or (B) the electron?", "Which is larger?", ["the proton", "the electron"]),
    ],
)
def test_options_written_into_a_question_are_taken_out_of_it(question, stem, options):
    from agent.inputs import validate_question

    assert validate_question(question) == (stem, options)
    assert validate_question(question, ["x", "y"]) == (question, ["x", "y"])  # options given separately win
    assert validate_question(question, mode="verify") == (question, [])  # a claim to check is checked whole


@pytest.mark.parametrize(
    "text",
    [
        "Vitamin A deficiency causes night blindness.",
        "Is hepatitis A. B. C. common?",
        "The IL-6 (A) and (B) subunits bind the receptor.",  # letters inside a sentence, after no stem
        "(A) aspirin (B) placebo",  # no stem
        "Which arm did better: (A) aspirin or (C) placebo?",  # not lettered in order
    ],
)
def test_text_that_is_not_a_list_of_options_stays_one_question(text):
    from agent.inputs import validate_question

    assert validate_question(text) == (text, [])


ALTERNATIVES = [
    ("Is light a wave or a particle?", ["Light is a wave", "Light is a particle"]),
    ("Is HIV a retrovirus or a DNA virus?", ["HIV is a retrovirus", "HIV is a DNA virus"]),
    ("Is the reaction exothermic or endothermic?", ["The reaction is exothermic", "The reaction is endothermic"]),
    (
        "Is vitamin D deficiency common or rare in Finland?",
        ["Vitamin D deficiency is common in Finland", "Vitamin D deficiency is rare in Finland"],
    ),
    ("Does exercise increase or decrease appetite?", ["Exercise increases appetite", "Exercise decreases appetite"]),
    ("Are prions proteins or nucleic acids?", ["Prions are proteins", "Prions are nucleic acids"]),
    # "or" that a yes or no answers: in the subject, "or not", a list after a longer predicate, two objects
    ("Does smoking or obesity increase the risk of diabetes?", None),
    ("Is aspirin better than placebo or not?", None),
    ("Is aspirin more effective than ibuprofen or paracetamol?", None),
    ("Does aspirin reduce pain or fever?", None),
    ("Does hypoglycemia increase the risk of dementia?", None),
]


@pytest.mark.parametrize(("question", "statements"), ALTERNATIVES)
def test_an_alternative_question_is_the_two_statements_it_asks_between(question, statements):
    from agent.english.questions import alternative_statements

    assert alternative_statements(question) == statements
    if statements:  # the options' statements are read whole, not as "<question>: <option>"
        assert [option_statement(question, s) for s in statements] == statements


def test_or_not_asks_nothing_more():
    assert polar_to_claim("Is aspirin better than placebo or not?") == "Aspirin is better than placebo"


def test_a_comparative_questions_negation_reads_as_english():
    claim = polar_to_claim(
        "Are open access articles cited less often than articles in traditional subscription journals?"
    )
    assert (
        negate(claim)
        == "Open access articles are not cited less often than articles in traditional subscription journals"
    )
