"""The local-model eval's bookkeeping (evals/local_model.py, evals/local_model_report.py), with a scripted model in
place of the GGUF file: every request of a role call is recorded with its kind, attempt and fate, and the report
reads a call's fate and a reply's failure modes from those records."""

from __future__ import annotations

import asyncio

import pytest

from agent.llm.providers import ModelUnavailable
from agent.metering import metered
from agent.reasoners.chat import PlanOut
from evals.local_model import RecordingChat, call_kind
from evals.local_model_report import call_outcome, comparison, failure_modes
from tests.fakes import SchemaChat, role_model


async def test_each_attempt_of_a_role_call_is_recorded_with_its_kind_and_fate():
    calls: list[dict] = []
    chat = RecordingChat(
        SchemaChat(replies={"text": ['{"queries": ', '{"queries": ["statin myopathy"]}']}), "fast", calls
    )
    with metered():
        plan = await role_model(chat, structured_output="prompt").structured("plan", "Question: statins?", PlanOut)
    assert plan.queries == ["statin myopathy"]
    assert [(c["role"], c["kind"], c["call"], c["attempt"]) for c in calls] == [
        ("fast", "plan", 0, 0),
        ("fast", "plan", 0, 1),
    ]
    assert calls[0]["outcome"] != "parsed" and calls[1]["outcome"] == "parsed"
    assert call_outcome(calls, parse_retries=2) == "retry"


async def test_a_request_cut_at_the_deadline_is_recorded_as_a_timeout():
    class Silent(SchemaChat):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            await asyncio.sleep(30)

    calls: list[dict] = []
    role = role_model(RecordingChat(Silent(replies={}), "strong", calls), structured_output="prompt", deadline_s=1.2)
    with metered(), pytest.raises(ModelUnavailable, match="deadline"):
        await role.structured("plan", "Question: statins?", PlanOut)
    assert [c["outcome"] for c in calls] == ["timeout"] and failure_modes(calls[0], 1024) == ["timeout"]
    assert call_outcome(calls, parse_retries=2) == "deadline"


def test_a_calls_fate_and_a_replys_failure_modes():
    parsed, bad = {"outcome": "parsed"}, {"outcome": "queries: Field required"}
    assert call_outcome([parsed], 2) == "first"
    assert call_outcome([bad, bad, bad], 2) == "never"
    assert call_outcome([bad], 2) == "deadline", "no time was left for the retry"
    assert call_kind([("user", "x")]) == "other"
    assert failure_modes({"outcome": "reply: invalid", "reply": "  "}, 1024) == ["empty"]
    assert failure_modes({"outcome": "x", "reply": "抗生素", "reply_tokens": 1024}, 1024) == [
        "malformed",
        "overlong",
        "wrong_language",
    ]
    assert failure_modes({"outcome": "parsed", "reply": '{"queries": ["a b c"]}', "reply_tokens": 9}, 1024) == []


def test_the_answers_are_compared_with_the_offline_defaults():
    def row(kind, gold, local, offline):
        return {"kind": kind, "gold": gold, "local": {"seconds": 90.0, **local}, "offline": {"seconds": 3.0, **offline}}

    answered = {"status": "LEANING", "verdict": "SUPPORT"}
    rows = [
        row("claim", "SUPPORT", answered, answered),
        row("claim", "CONTRADICT", answered, {"status": "INSUFFICIENT_EVIDENCE", "verdict": None}),
        row("mcq", 0, {"selected_option": 0}, {"selected_option": 1}),
        row(
            "open",
            ["22696649"],
            {"status": "ANSWERED", "answer": "Neutrophils make NETs [22696649]."},
            {"status": "ANSWERED", "answer": "x [1]"},
        ),
    ]
    claim, mcq, open_ = comparison(rows)
    assert (claim["questions"], claim["agrees_with_offline"], claim["right_local"], claim["right_offline"]) == (
        2,
        0.5,
        0.5,
        0.5,
    )
    assert (mcq["agrees_with_offline"], mcq["right_local"], mcq["right_offline"]) == (0.0, 1.0, 0.0)
    assert (open_["right_local"], open_["right_offline"], open_["s_per_question_local"]) == (1.0, 0.0, 90.0)
