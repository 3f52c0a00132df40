"""The structure reader decides the side where word order or one word decides it (issue 36's cases), and nothing
else."""

import asyncio

import pytest

from agent.interfaces import StanceResult
from agent.judges.reading import StructureReadJudge, read_structure, with_structure
from agent.records import STANCE_LABELS as LABELS

VARENICLINE = "Varenicline was more effective than nicotine patch (OR 1.51; 95% CredI 1.22 to 1.87)."


@pytest.mark.parametrize(
    ("statement", "passage", "side", "structure"),
    [
        (
            "Varenicline is more effective than nicotine patch for smoking cessation.",
            VARENICLINE,
            "SUPPORT",
            "comparison",
        ),
        (
            "Nicotine patch is more effective than varenicline for smoking cessation.",
            VARENICLINE,
            "CONTRADICT",
            "comparison",
        ),
        (
            "Aspirin is superior to placebo for pain.",
            "Placebo was inferior to aspirin for pain relief.",
            "SUPPORT",
            "comparison",
        ),
        (
            "AMPK is required for the glucose-lowering effect of metformin.",
            "AMPK is dispensable for the glucose-lowering effect of metformin.",
            "CONTRADICT",
            "requirement",
        ),
        (
            "Smoking reduces the risk of lung cancer.",
            "Smoking reduction by 50% significantly reduces the risk of lung cancer.",
            "CONTRADICT",
            "subject_sign",
        ),
        (
            "Smoking increases the risk of lung cancer.",
            "Smoking cessation reduced the risk of lung cancer by half.",
            "SUPPORT",
            "subject_sign",
        ),
        (
            "Statin use reduces the risk of hip fractures.",
            "Statin use was associated with hip fractures (OR 0.50, 95% CI 0.36-0.69).",
            "SUPPORT",
            "ratio",
        ),
        (
            "Statin use reduces the risk of hip fractures.",
            "Statin use was associated with hip fractures (OR 1.50, 95% CI 1.36-1.69).",
            "CONTRADICT",
            "ratio",
        ),
        (
            "BRCA1 mutations increase the risk of ovarian cancer.",
            "BRCA2 carriers had a higher risk of ovarian cancer.",
            "NEUTRAL",
            "sibling",
        ),
        (
            "Metformin reduces cancer incidence in patients with diabetes.",
            "Metformin might influence tumourigenesis, but these effects require further investigation.",
            "NEUTRAL",
            "no_finding",
        ),
        (
            "Vitamin D reduces fractures.",
            "We aimed to determine whether vitamin D supplementation reduces fractures.",
            "NEUTRAL",
            "no_finding",
        ),
    ],
)
def test_a_structure_decides_the_side(statement, passage, side, structure):
    reading = read_structure(statement, passage)
    assert reading is not None and (reading.side, reading.structure) == (side, structure)


@pytest.mark.parametrize(
    ("statement", "passage"),
    [
        (
            "BRCA1 mutations increase the risk of ovarian cancer.",
            "BRCA1 and BRCA2 carriers had a higher risk of ovarian cancer.",
        ),
        (
            "Statins reduce LDL cholesterol.",
            "Statins lowered LDL cholesterol by 30%.",
        ),  # plain support: the judge reads it
        (
            "Statin use reduces the risk of hip fractures.",
            "HR 0.63 (95% CI 0.35-1.13, p=0.12)",
        ),  # spans 1: the null-result reading's
        ("Smoking reduces the risk of lung cancer.", "Continued smoking increased mortality."),
    ],
)
def test_no_structure_no_reading(statement, passage):
    assert read_structure(statement, passage) is None


def result(support: float, contradict: float) -> StanceResult:
    return StanceResult.from_probabilities(
        LABELS,
        [
            {"SUPPORT": support, "CONTRADICT": contradict, "NEUTRAL": 1 - support - contradict}[label]
            for label in LABELS
        ],
    )


def test_the_structure_takes_the_side_and_the_judge_keeps_whether_there_is_one():
    reversed_ = with_structure(
        result(0.82, 0.06), read_structure("Nicotine patch is more effective than varenicline.", VARENICLINE)
    )
    assert reversed_.stance == "CONTRADICT" and reversed_.probabilities["NEUTRAL"] == pytest.approx(0.12)
    hedged = with_structure(
        result(0.55, 0.18), read_structure("Metformin reduces cancer.", "These effects require further investigation.")
    )
    assert hedged.stance == "NEUTRAL"
    assert with_structure(result(0.7, 0.1), None).probabilities == result(0.7, 0.1).probabilities


class Fixed:
    name = "fixed"

    async def judge(self, pairs):
        return [result(0.82, 0.06) for _ in pairs]


def test_the_wrapped_judge_reads_every_pair_and_names_itself():
    judge = StructureReadJudge(Fixed())
    out = asyncio.run(
        judge.judge(
            [
                ("Nicotine patch is more effective than varenicline.", VARENICLINE),
                ("Statins reduce LDL.", "Statins lowered LDL."),
            ]
        )
    )
    assert [r.stance for r in out] == ["CONTRADICT", "SUPPORT"] and judge.name == "fixed+structure"


@pytest.mark.parametrize(
    ("statement", "passage", "side"),
    [
        (
            "High sodium intake raises blood pressure.",
            "Reducing dietary sodium by 75 mmol per day lowered systolic blood pressure by 5.4 mmHg.",
            "SUPPORT",
        ),
        (
            "Physical inactivity lowers the risk of type 2 diabetes.",
            "Increasing physical activity reduced the incidence of type 2 diabetes by 46%.",
            "CONTRADICT",
        ),
        (
            "PCSK9 increases LDL receptor levels on hepatocytes.",
            "Antibodies blocking PCSK9 increased hepatic LDL receptor abundance.",
            "CONTRADICT",
        ),
        # a SciFact validation claim read as SUPPORT at 0.68: the passage's own verb decides, not the sum of its
        # direction words ("activates ..., resulting in an attenuated response")
        (
            "DUSP4 downregulation deactivates the Ras-ERK pathway",
            "Thus, DUSP4 downregulation activates the Ras-ERK pathway in BLBC, resulting in an attenuated response to "
            "anti-cancer chemotherapy.",
            "CONTRADICT",
        ),
        (
            "DUSP4 downregulation activates the Ras-ERK pathway",
            "Thus, DUSP4 downregulation activates the Ras-ERK pathway in BLBC, resulting in an attenuated response to "
            "anti-cancer chemotherapy.",
            "SUPPORT",
        ),
        # the subject of 'siRNA knockdown of A20' is A20, not the siRNA (the passage names siRNAs as its tool)
        (
            "siRNA knockdown of A20 accelerates tumor progression in an in vivo murine xenograft model.",
            "Inhibiting A20 expression by siRNAs in vitro reduced the growth rates of glioma cells and resulted in "
            "G1/S arrest and increased apoptosis.",
            "CONTRADICT",
        ),
        (
            "siRNA knockdown of A20 slows tumor progression in an in vivo murine xenograft model.",
            "Inhibiting A20 expression by siRNAs in vitro reduced the growth rates of glioma cells and resulted in "
            "G1/S arrest and increased apoptosis.",
            "SUPPORT",
        ),
    ],
)
def test_a_finding_about_more_or_less_of_the_subject_is_read_with_its_sign(statement, passage, side):
    reading = read_structure(statement, passage)
    assert reading is not None and (reading.side, reading.structure) == (side, "subject_sign")


@pytest.mark.parametrize(
    ("statement", "passage", "side"),
    [
        (
            "Antiviral cytotoxic T-cell responses to LCMV require CD28.",
            "CD28-deficient mice mounted normal cytotoxic T-cell responses against LCMV.",
            "CONTRADICT",
        ),
        (
            "Induction of hepcidin by inflammation depends on IL-6.",
            "In IL-6-knockout mice, inflammation failed to induce hepcidin.",
            "SUPPORT",
        ),
    ],
)
def test_an_ablation_reads_as_for_or_against_a_requirement(statement, passage, side):
    reading = read_structure(statement, passage)
    assert reading is not None and (reading.side, reading.structure) == (side, "requirement")


def test_a_time_span_is_not_a_mechanism_and_a_modal_sentence_is_left_to_the_judge():
    assert (
        read_structure(
            "Atorvastatin is superior to placebo in lesions through 12 months.",
            "Atorvastatin treatment significantly decreased "
            "new lesion activity, although it did not achieve the composite end point.",
        )
        is None
    )
    assert read_structure("Masks reduce transmission.", "Masks may reduce transmission in households.") is None
    assert (
        read_structure("Axions are dark matter.", "Axions have been proposed as a dark matter candidate.").side
        == "NEUTRAL"
    )
