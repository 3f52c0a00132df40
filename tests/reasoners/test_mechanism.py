"""Open "how" questions answer with the sentence that states the mechanism asked for (issue 36, item 7)."""

from __future__ import annotations

import asyncio

from agent.literature import Passage
from agent.reasoners.extractive import ExtractiveReasoner
from tests.fakes import BagOfWordsEmbedder

EVIDENCE = [
    Passage(
        record_id="r1",
        text="Metformin lowers blood glucose, and metformin lowers blood glucose more than placebo in type 2 diabetes.",
        score=1.0,
    ),
    Passage(record_id="r2", text="Metformin acts by inhibiting hepatic gluconeogenesis.", score=0.2),
    Passage(record_id="r3", text="Exercise lowers blood glucose through increased muscle glucose uptake.", score=0.5),
]


def _candidates(question: str, n: int = 1) -> list[str]:
    return [
        h.text
        for h in asyncio.run(ExtractiveReasoner(BagOfWordsEmbedder())._evidence_hypotheses(question, EVIDENCE, n))
    ]


def test_a_how_question_is_answered_by_the_sentence_stating_the_mechanism():
    """Seen: "How does metformin lower blood glucose?" answered by the topic's best-scored sentence, not "by inhibiting
    hepatic gluconeogenesis". A mechanism sentence about something else (exercise) is no answer."""
    assert _candidates("How does metformin lower blood glucose?") == [
        "Metformin acts by inhibiting hepatic gluconeogenesis."
    ]
    assert "Exercise" not in " ".join(_candidates("How does metformin lower blood glucose?", 3))


def test_questions_asking_for_an_effect_or_an_amount_keep_the_best_scored_sentence():
    from agent.english.asks import asks_mechanism, mechanism_statement

    assert _candidates("What does metformin do to blood glucose?")[0].startswith("Metformin lowers blood glucose, and")
    assert _candidates("How does metformin affect blood glucose?")[0].startswith("Metformin lowers blood glucose, and")
    assert asks_mechanism("How is sex determined in the somatic cells of Galliformes?")
    assert asks_mechanism("How can TDP-43-induced neuronal loss be prevented?")
    for question in (
        "How does physical activity affect cognitive function?",
        "How many surgical trials are discontinued early?",
        "How accurate is ambulatory blood pressure monitoring?",
        "How is placental weight related to breast cancer risk?",
        "What is the role of IL-17 in psoriasis?",
    ):
        assert not asks_mechanism(question), question
    assert mechanism_statement("How does metformin lower blood glucose?") == "Metformin lowers blood glucose"
