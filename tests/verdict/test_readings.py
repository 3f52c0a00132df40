"""What the verdict model reads: each reader of a composed judge, the sentences eligible to decide, the decider."""

from __future__ import annotations

import asyncio

from agent.judges.breakdown import leaf_readers, reader_rows
from agent.judges.ensemble import DirectionFromJudge, MeanStanceJudge
from agent.judges.reading import StructureReadJudge
from agent.records import STANCE_LABELS
from agent.verdict.features import claim_features, decider_row
from tests.fakes import FixedStance


def _row(p, passage=0, **changes):
    row = {
        "kind": "sentence",
        "statement": 0,
        "passage": passage,
        "record": f"r{passage}",
        "rank": passage,
        "order": passage,
        "sim": 0.5,
        "p": p,
        "readers": {"cross": p},
        "structure": None,
        "structure_side": None,
        "finding": True,
        "tentative": False,
        "results": True,
        "section_weight": 1.0,
        "window": False,
        "quantitative": False,
        "non_significant": False,
        "restates": 0.1,
        "addressed": True,
    }
    return {**row, **changes}


def test_each_reader_of_a_composed_judge_is_read_once():
    a, b, c = (
        FixedStance("heuristic", [0.6, 0.1, 0.3]),
        FixedStance("cross", [0.2, 0.2, 0.6]),
        FixedStance("direction", [0.1, 0.8, 0.1]),
    )
    judge = StructureReadJudge(DirectionFromJudge(MeanStanceJudge([a, b]), MeanStanceJudge([a, b, c])))
    assert leaf_readers(judge) == [a, b, c]
    rows = asyncio.run(reader_rows(judge, [("s", "p1"), ("s", "p2")]))
    assert list(rows) == ["heuristic", "cross", "direction"]
    assert rows["direction"].shape == (2, 3) and [round(float(x), 4) for x in rows["direction"][1]] == [0.1, 0.8, 0.1]
    assert STANCE_LABELS == ("SUPPORT", "CONTRADICT", "NEUTRAL")  # the order every row is kept in


def test_a_background_sentence_does_not_decide_however_strongly_it_reads():
    background = _row([0.95, 0.0, 0.05], passage=0, results=False)
    finding = _row([0.6, 0.1, 0.3], passage=1)
    features = claim_features([background, finding], "X increases Y", False, 0.9)
    assert features["top_support"] == 0.6 and features["any_max_support"] == 0.95
    assert decider_row([background, finding], "SUPPORT")["passage"] == 1
    # a sentence that leans the other way is no decider of this side
    assert decider_row([background, finding], "CONTRADICT") is None


def test_the_negations_own_reading_and_each_reader_enter_the_features():
    row = _row(
        [0.5, 0.2, 0.3], readers={"heuristic": [0.1, 0.7, 0.2], "direction": [0.6, 0.3, 0.1]}, neg=[0.1, 0.8, 0.1]
    )
    features = claim_features([row], "X increases Y", True, None)
    assert (
        round(features["top_negation_lean"], 6) == 0.7
    )  # the negation read as contradicted: agrees with the claim's support
    assert round(features["top_heuristic_lean"], 6) == -0.6 and round(features["top_direction_lean"], 6) == 0.3
    assert features["polar_question"] == 1.0 and features["relevance"] == 1.0


def test_an_mcq_answer_says_when_its_quotes_never_compare_the_options():
    from agent.answer.naming import uncompared_sentence

    about_one = ["Statins are potent inhibitors of cholesterol biosynthesis."]
    question = "Which is more effective at lowering LDL cholesterol?"
    assert uncompared_sentence(question, ["statins", "ezetimibe"], 0, about_one) == (
        " The passages quoted for (A) never name ezetimibe: they do not compare the options."
    )
    assert (
        uncompared_sentence(question, ["statins", "ezetimibe"], 0, ["Statins lowered LDL more than ezetimibe did."])
        == ""
    )
    # a question that asks for no comparison is answered by evidence about the option alone
    assert uncompared_sentence("Which drug lowers LDL cholesterol?", ["statins", "ezetimibe"], 0, about_one) == ""
    # options that are whole statements compete on the same evidence: nothing to say
    assert uncompared_sentence(question, ["Statins lower LDL in adults with diabetes", "x"], 0, about_one) == ""
