"""What a chat model is shown (issue 58): the question, today's date and each passage's source in every evidence
prompt, reasoning before the verdict in the schemas, one malformed item dropped rather than the reply."""

from __future__ import annotations

import re

from agent.judges.llm import LLMStanceJudge, PairJudgement, stance_request
from agent.llm.roles import role_config
from agent.metering import metered
from agent.prompts import prompt
from agent.prompts.sources import reading_context, source_line, today
from agent.reasoners.chat import AdjudicationOut, JudgementOut, checked_verdict
from agent.records import Hypothesis, LedgerEntry
from agent.settings.models import ModelSettings
from tests.fakes import RuleStance, SchemaChat, chat_reasoner, record, role_model

TRIAL = record(
    "r1",
    "Vitamin D and fracture risk: a randomised controlled trial",
    "METHODS We randomly assigned 2,000 adults to vitamin D or placebo in a double-blind trial.",
    "Fracture risk did not differ between the groups (HR 0.97, 95% CI 0.85 to 1.10).",
    year=2019,
    venue="The Lancet",
)
PASSAGE = TRIAL.sentences[1]


def test_a_stance_request_carries_the_question_the_date_and_the_source_inside_the_fence():
    with reading_context("Does vitamin D prevent fractures?", [TRIAL]):
        text = stance_request([("Vitamin D reduces fractures", PASSAGE)])
    assert text.startswith("Question: Does vitamin D prevent fractures?") and f"Today: {today()}" in text
    passage_block = re.search(r'<evidence id="passage-1" kind="passage">\n(.*?)\n</evidence>', text, re.S)
    assert passage_block is not None
    assert passage_block.group(1) == f"{source_line(TRIAL)}\n{PASSAGE}"
    assert '"Vitamin D and fracture risk: a randomised controlled trial" (2019, The Lancet; RCT)' in text
    assert re.search(r'<evidence id="statement-1" kind="statement">\nVitamin D reduces fractures\n</evidence>', text)


def test_without_a_reading_context_the_pair_is_still_fenced_and_dated():
    text = stance_request([("Vitamin D reduces fractures", PASSAGE)])
    assert "Question:" not in text and "Source:" not in text and f"Today: {today()}" in text


def test_the_stance_prompt_names_each_reading_skill_with_an_example():
    text = prompt("stance")
    for rule in ("Direction of effect", "Null results", "mismatch", "Hedges", "Related but silent"):
        assert rule in text
    assert text.count("->") >= 5 and "rationale" in text


def test_reasoning_comes_before_the_verdict_in_every_schema():
    assert list(PairJudgement.model_json_schema()["properties"])[:3] == ["pair", "rationale", "stance"]
    judgement = list(JudgementOut.model_json_schema()["properties"])
    assert judgement.index("reason") < judgement.index("judgement") < judgement.index("probability")
    adjudication = list(AdjudicationOut.model_json_schema()["properties"])
    assert adjudication == ["reasoning", "judgements", "choice"], "the code's counter is not in the schema"


async def test_the_court_shows_the_adjudicating_model_each_record_year_and_venue():
    model = SchemaChat(replies={"AdjudicationOut": [{"judgements": [], "choice": ""}]})
    chat = chat_reasoner(model)
    hypotheses = [
        Hypothesis(id="H1", text="Vitamin D reduces fractures", origin="claim"),
        Hypothesis(id="H2", text="Vitamin D does not reduce fractures", origin="negation"),
    ]
    ledger = [LedgerEntry(hypothesis_id="H2", record_id="r1", text=PASSAGE, stance="SUPPORT", confidence=0.9)]
    with reading_context("Does vitamin D prevent fractures?", [TRIAL]):
        await chat.adjudicate("Does vitamin D prevent fractures?", None, hypotheses, ledger, 3)
    user = model.requests[0][1][1].content
    assert f"Today: {today()}" in user and "(2019, The Lancet; RCT)" in user
    assert '<evidence id="E1" record="r1" side="supports H2">' in user, "the ledger's label is on the tag"
    assert "[supports" not in user, "no pipeline label inside the untrusted text"


def test_one_malformed_judgement_is_dropped_not_the_reply():
    out = AdjudicationOut.model_validate(
        {
            "judgements": [
                {"hypothesis": "H1", "judgement": "holds", "probability": "high", "evidence": ["E1"]},
                {"hypothesis": "H2", "judgement": "fails", "probability": 0.1, "evidence": ["E1"]},
            ],
            "choice": "H2",
        }
    )
    assert [j.hypothesis for j in out.judgements] == ["H2"] and out.skipped == 1
    shown = {"E1": LedgerEntry(hypothesis_id="H1", record_id="m0", text="t", stance="SUPPORT", confidence=0.9)}
    verdict = checked_verdict(out, {"H1", "H2"}, shown, "fake:model")
    assert [j.hypothesis_id for j in verdict.judgements] == ["H2"] and verdict.choice == "H2"
    assert any("dropped 1 malformed" in n for n in verdict.notes)


async def test_one_bad_stance_item_does_not_drop_the_batch():
    reply = {
        "judgements": [
            {"pair": 1, "rationale": "did not differ", "stance": "CONTRADICT", "confidence": "very"},
            {"pair": 2, "rationale": "increased", "stance": "SUPPORT", "confidence": 0.8},
        ]
    }
    judge = LLMStanceJudge(role_model(SchemaChat(replies={"StanceBatch": [reply]})), RuleStance())
    with metered():
        results = await judge.judge([("a b", "c d"), ("e f", "g h")])
    assert results[1].judged_by == "llm" and results[1].stance == "SUPPORT" and results[0].judged_by is None


def test_temperature_is_a_setting_per_role():
    settings = ModelSettings(llm="fake:model", llm_roles={"strong": {"temperature": 0.4}})
    assert role_config(settings, "strong").temperature == 0.4 and role_config(settings, "fast").temperature == 0.0


def test_a_court_run_reads_with_the_question_and_each_passages_source():
    """The court sets the reading context: a chat-model stance judge in a whole run sees the question and the
    record's title and year inside each passage's fence."""
    from agent.backend import register_backend
    from agent.config import Context
    from agent.graph import graph
    from tests.fakes import ListSource, make_backend, unique_backend_name

    claim = "Vitamin D supplementation reduces fracture risk in adults"
    records = [TRIAL.model_copy(update={"sentences": [*TRIAL.sentences, "Vitamin D reduces fracture risk in adults."]})]
    model = SchemaChat(replies={"StanceBatch": [{"judgements": []}], "*": [{}]})
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(records)], stance=LLMStanceJudge(role_model(model), RuleStance())))
    graph.invoke(
        {"question": claim, "options": [], "mode": "verify"},
        {"recursion_limit": 100},
        context=Context(backend=name, max_claims=0, max_discrimination_rounds=0),
    )
    asked = [messages[1].content for schema, messages in model.requests if schema == "StanceBatch"]
    assert asked and asked[0].startswith(f"Question: {claim}")
    assert "(2019, The Lancet; RCT)" in asked[0]


async def test_the_answering_model_is_shown_the_evidence_against_the_leading_hypothesis():
    from agent.reasoners.chat import answer_ledger

    ledger = [
        LedgerEntry(hypothesis_id="H1", record_id=f"s{i}", text=f"for {i}", stance="SUPPORT", confidence=0.9)
        for i in range(30)
    ] + [
        LedgerEntry(hypothesis_id="H1", record_id="c1", text="against", stance="CONTRADICT", confidence=0.6),
        LedgerEntry(hypothesis_id="H2", record_id="c2", text="rival", stance="SUPPORT", confidence=0.5),
    ]
    shown = answer_ledger(ledger, "H1", cap=24)
    assert len(shown) == 24 and {"c1", "c2"} <= {e.record_id for e in shown}
    assert [e.record_id for e in shown[:12]] == [f"s{i}" for i in range(12)], "the strongest for it first"
    model = SchemaChat(replies={"AnswerOut": [{"answer": "x", "sentences": []}]})
    chat = chat_reasoner(model)
    plan = await chat.fallback.plan("Is H1 right about this?", [])
    hypotheses = [
        Hypothesis(id="H1", text="First finding holds here", origin="claim", score=0.8),
        Hypothesis(id="H2", text="Second finding holds here", origin="claim", score=0.1),
    ]
    with metered():
        await chat.synthesize("Is H1 right about this?", plan, hypotheses, ledger, {})
    user = model.requests[0][1][1].content
    assert 'id="c1" side="contradict H1"' in user and 'id="c2" side="support H2"' in user
