"""The claim grammar: yes/no questions become statements with a finite verb, and a statement's negation says
that it does not hold (one negation on the main verb), checked on every PubMedQA question and SciFact claim."""

from __future__ import annotations

import json
import re

import pytest

from agent.english.grammar import finite_verb
from agent.english.negation import negate_claim
from agent.english.questions import is_polar, polar_to_claim
from agent.english.words import negation_count
from tests.conftest import DATA

QUESTIONS = [
    ("Does hypoglycemia increase the risk of dementia?", "Hypoglycemia increases the risk of dementia"),
    ("Does aspirin reduce colorectal cancer risk?", "Aspirin reduces colorectal cancer risk"),
    ("Do statins reduce mortality?", "Statins reduce mortality"),
    (
        "Can D-dimer become a new diagnostic parameter for acute appendicitis?",
        "D-dimer can become a new diagnostic parameter for acute appendicitis",
    ),
    (
        "Has the prevalence of obesity increased over the decade?",
        "The prevalence of obesity has increased over the decade",
    ),
    (
        "The English antibiotic awareness campaigns: did they change the public's knowledge?",
        "The English antibiotic awareness campaigns changed the public's knowledge",
    ),
    (
        "Does high blood pressure reduce the risk of chronic low back pain?",
        "High blood pressure reduces the risk of chronic low back pain",
    ),
    (
        "Do primary care physicians underprescribe antibiotics for peptic ulcer disease?",
        "Primary care physicians underprescribe antibiotics for peptic ulcer disease",
    ),
    (
        "Are women who are treated for hypothyroidism at risk for pregnancy complications?",
        "Women who are treated for hypothyroidism are at risk for pregnancy complications",
    ),
    ("Is aspiration of ethanol-mixed fluid advantageous?", "Aspiration of ethanol-mixed fluid is advantageous"),
    # beyond PubMedQA's shapes: a quantity, a comparative, 'the' after a one-word subject, adjectives the lexicon
    # lacks, a progressive, 'cost effective' (each was verbless, or had its copula misplaced, before stop 32)
    ("Is the boiling point of liquid nitrogen -196 C?", "The boiling point of liquid nitrogen is -196 C"),
    ("Is the half-life of carbon-14 about 5730 years?", "The half-life of carbon-14 is about 5730 years"),
    ("Is the melting point of gallium below 30 C?", "The melting point of gallium is below 30 C"),
    ("Is type 2 diabetes reversible?", "Type 2 diabetes is reversible"),
    (
        "Is the Earth's core hotter than the surface of the Sun?",
        "The Earth's core is hotter than the surface of the Sun",
    ),
    ("Are mitochondria the powerhouse of the cell?", "Mitochondria are the powerhouse of the cell"),
    ("Is DNA replication semiconservative?", "DNA replication is semiconservative"),
    ("Are neutrinos massless?", "Neutrinos are massless"),
    ("Are prions infectious proteins?", "Prions are infectious proteins"),
    ("Are prions proteins?", "Prions are proteins"),
    ("Is the incidence of melanoma rising?", "The incidence of melanoma is rising"),
    # a comparative bounding the subject by a number is part of it; the copula goes after it (issue 39: "Every even
    # integer is greater than 2 the sum of two primes")
    (
        "Is every even integer greater than 2 the sum of two primes?",
        "Every even integer greater than 2 is the sum of two primes",
    ),
    ("Are patients older than 65 at higher risk of falls?", "Patients older than 65 are at higher risk of falls"),
    ("Are adults older than 65 years more likely to fall?", "Adults older than 65 years are more likely to fall"),
    ("Are women older than forty less fertile?", "Women older than forty are less fertile"),
    ("Is a prime number greater than 2 always odd?", "A prime number greater than 2 is always odd"),
    (
        "Are patients with diabetes older than 65 at risk of stroke?",
        "Patients with diabetes older than 65 are at risk of stroke",
    ),
    (
        "Are people with diabetes more likely to develop dementia?",
        "People with diabetes are more likely to develop dementia",
    ),
    ("Is the Earth's core hotter than 5000 K?", "The Earth's core is hotter than 5000 K"),
    ("Is the number of patients greater than 100?", "The number of patients is greater than 100"),
    ("Is aspirin better than 2 tablets of paracetamol?", "Aspirin is better than 2 tablets of paracetamol"),
    ("Are statins cost effective?", "Statins are cost effective"),
    ("Is the square root of 2 irrational?", "The square root of 2 is irrational"),
    ("Does time pass more slowly near a massive object?", "Time passes more slowly near a massive object"),
    ("Does aspirin lower fever?", "Aspirin lowers fever"),  # not 'Aspirin lower fevers' (seen with --documents)
    ("Does caffeine slow heart rate?", "Caffeine slows heart rate"),
    ("Does metformin lower glucose levels in mice?", "Metformin lowers glucose levels in mice"),
    ("Does sea level rise when floating sea ice melts?", "Sea level rises when floating sea ice melts"),
    # PubMedQA questions read wrong until stop 33: the verb taken from a noun beside it ('count', 'culture', 'knee'),
    # a modal put after the verb, a copula after an adverb or before a preposition, a name capitalised
    (
        "Does the leukocyte count correlate with the severity of injury?",
        "The leukocyte count correlates with the severity of injury",
    ),
    (
        "Does music influence stress in mechanically ventilated patients?",
        "Music influences stress in mechanically ventilated patients",
    ),
    (
        "Does solid culture for tuberculosis influence clinical decision making in India?",
        "Solid culture for tuberculosis influences clinical decision making in India",
    ),
    (
        "Does hippocampal atrophy on MRI predict cognitive decline?",
        "Hippocampal atrophy on MRI predicts cognitive decline",
    ),
    (
        "Does patella position influence ligament balancing in total knee arthroplasty?",
        "Patella position influences ligament balancing in total knee arthroplasty",
    ),
    (
        "Does short-term treatment with proton pump inhibitors cause rebound aggravation of symptoms?",
        "Short-term treatment with proton pump inhibitors causes rebound aggravation of symptoms",
    ),
    (
        "Inpatient Pediatric Tonsillectomy: Does Hospital Type Affect Cost and Outcomes of Care?",
        "Inpatient Pediatric Tonsillectomy: Hospital Type Affects Cost and Outcomes of Care",
    ),
    ("Does smoking double lung cancer risk?", "Smoking doubles lung cancer risk"),
    (
        "Can tailored interventions increase mammography use among HMO women?",
        "Tailored interventions can increase mammography use among HMO women",
    ),
    (
        "Should ascitis volume and anthropometric measurements be estimated?",
        "Ascitis volume and anthropometric measurements should be estimated",
    ),
    (
        "Can the condition of mediastinal lymph nodes help predict the risk of metastases?",
        "The condition of mediastinal lymph nodes can help predict the risk of metastases",
    ),
    (
        "Can Ambu self-inflating bag and Neopuff infant resuscitator provide adequate inflations?",
        "Ambu self-inflating bag and Neopuff infant resuscitator can provide adequate inflations",
    ),
    (
        "Type II supracondylar humerus fractures: can some be treated nonoperatively?",
        "Type II supracondylar humerus fractures: Some can be treated nonoperatively",
    ),
    (
        "Are Austrian seniors adequately protected by vaccinations?",
        "Austrian seniors are adequately protected by vaccinations",
    ),
    ("Is partial prostatectomy oncologically adequate?", "Partial prostatectomy is oncologically adequate"),
    (
        "Is intensive monitoring during the first transfusion in pediatric patients necessary?",
        "Intensive monitoring during the first transfusion in pediatric patients is necessary",
    ),
    (
        "Are head and neck specific quality of life measures necessary?",
        "Head and neck specific quality of life measures are necessary",
    ),
    (
        "Are laboratories reporting serum quantitative hCG results correctly?",
        "Laboratories are reporting serum quantitative hCG results correctly",
    ),
    (
        "Creatine homeostasis is altered in the spiny mouse: is this a metabolic adaptation?",
        "Creatine homeostasis is altered in the spiny mouse: This is a metabolic adaptation",
    ),
    (
        "Can p53 alterations be used to predict tumour response?",
        "p53 alterations can be used to predict tumour response",
    ),
    ("Does β-catenin have a role in sebaceous cell carcinoma?", "β-catenin has a role in sebaceous cell carcinoma"),
    (
        "Is endothelin-1 an aggravating factor in acute pancreatitis?",
        "Endothelin-1 is an aggravating factor in acute pancreatitis",
    ),
    (
        "Is it true that statins cause diabetes?",
        "Statins cause diabetes",
    ),  # not 'It is true that statins cause diabetes'
]

NEGATIONS = [
    ("Hypoglycemia increases the risk of dementia", "Hypoglycemia does not increase the risk of dementia"),
    ("Statins increase muscle pain", "Statins do not increase muscle pain"),
    ("Aspirin is safe in children", "Aspirin is not safe in children"),
    ("D-dimer can become a marker", "D-dimer cannot become a marker"),
    ("Patients treated with aspirin improved.", "Patients treated with aspirin did not improve"),
    ("Klf4 is not required for myeloid differentiation.", "Klf4 is required for myeloid differentiation"),
    ("Taking vitamin E does not prevent prostate cancer.", "Taking vitamin E prevents prostate cancer"),
    ("There is no difference between the two arms.", "There is a difference between the two arms"),
    (
        "A diminished ovarian reserve solely indicates infertility.",
        "A diminished ovarian reserve does not solely indicate infertility",
    ),
    (
        "Women who are treated for hypothyroidism are at risk",
        "Women who are treated for hypothyroidism are not at risk",
    ),
    (
        "Statins are associated with lower mortality than placebo",
        "Statins are not associated with lower mortality than placebo",
    ),
    ("The minor G allele of FOXO3 up-regulates IL-10.", "The minor G allele of FOXO3 does not up-regulate IL-10"),
    ("The boiling point of liquid nitrogen is -196 C", "The boiling point of liquid nitrogen is not -196 C"),
    ("The incidence of melanoma is rising", "The incidence of melanoma is not rising"),
    (
        "Low nucleosome occupancy correlates with high methylation levels across species.",
        "Low nucleosome occupancy does not correlate with high methylation levels across species",
    ),
    (
        "Major antigen-induced signals from the T cell receptor and secondary signals from costimulatory "
        "receptors are required for T cell activation.",
        "Major antigen-induced signals from the T cell receptor and secondary signals from costimulatory "
        "receptors are not required for T cell activation",
    ),
    (
        "Even impaired fasting glucose levels are associated with mortality",
        "Even impaired fasting glucose levels are not associated with mortality",
    ),
    ("Eating eggs raises cholesterol", "Eating eggs does not raise cholesterol"),
    (
        "Immune complex triggered cell death leads to sequestration of oxidized mitochondrial DNA.",  # the sample's #26
        "Immune complex triggered cell death does not lead to sequestration of oxidized mitochondrial DNA",
    ),  # was 'Eating does not egg raises ...'
    (
        "Consumption of whole fruits increases the risk of type 2 diabetes.",
        "Consumption of whole fruits does not increase the risk of type 2 diabetes",
    ),
    (
        "Patients with vaso-occlusive crisis show increased morphine use.",
        "Patients with vaso-occlusive crisis do not show increased morphine use",
    ),
]


@pytest.mark.parametrize(("question", "claim"), QUESTIONS)
def test_questions_become_statements_with_agreeing_verbs(question, claim):
    assert polar_to_claim(question) == claim


@pytest.mark.parametrize(("claim", "negation"), NEGATIONS)
def test_the_negation_says_the_claim_does_not_hold(claim, negation):
    assert negate_claim(claim) == negation
    assert negate_claim(negation) == " ".join(claim.split()).rstrip(".")


_DOUBLED = re.compile(
    r"\b(does|do|did|is|are|was|were|can|could|will|would|should|may|might|must)\s+(not\s+)?"
    r"(does|do|did|is|are|was|were|can|could|will|would|should|may|might|must)\b",
    re.I,
)


def _statements() -> list[tuple[str, str]]:
    pubmedqa, scifact = DATA / "pubmedqa" / "pqal_dev.json", DATA / "scifact" / "claims_train.jsonl"
    if not pubmedqa.exists() or not scifact.exists():
        pytest.skip("../shared/data is not beside the project")
    questions = [item["QUESTION"] for item in json.loads(pubmedqa.read_text()).values()]
    claims = [json.loads(line)["claim"] for line in scifact.read_text().splitlines() if line.strip()]
    return [(q, polar_to_claim(q)) for q in questions if is_polar(q)] + [(c, c) for c in claims]


def test_every_pubmedqa_question_and_scifact_claim_rewrites_cleanly():
    """Statement has a finite verb, no doubled auxiliary; the negation adds or removes exactly one negation;
    negating twice gives the statement back (or its 'does not have a' form for 'has no')."""
    statements = _statements()
    assert len(statements) > 1200
    no_verb = [s for _, s in statements if finite_verb(s) is None]
    assert len(no_verb) <= 3, no_verb  # 2 of 1,264 (SciFact claims whose verb follows a bare number: 'PGE 2 causes')
    for source, statement in statements:
        negation = negate_claim(statement)
        assert not _DOUBLED.search(statement) and not _DOUBLED.search(negation), (source, negation)
        assert abs(negation_count(negation) - negation_count(statement)) == 1, (statement, negation)
        back = negate_claim(negation)
        expected = " ".join(statement.split()).rstrip(".").strip().replace("n't", " not").replace("do  not", "do not")
        assert back == expected or (" no " in f" {expected} " and negation_count(back) == 1), (
            statement,
            negation,
            back,
        )
