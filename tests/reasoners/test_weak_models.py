"""Weak and slow chat models (issue 17): every defect seen with small local models, each with a test that fails without
its fix. Nothing the model returns reaches the run unchecked, and every fallback, partial ones included, is recorded."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

import numpy as np
import pytest
from pydantic import Field

from agent.backend import register_backend
from agent.config import Context
from agent.graph import graph
from agent.judges.llm import LLMStanceJudge
from agent.literature import Passage
from agent.llm.local import LocalModelGuard, call_deadline, local_guard, stop_at
from agent.llm.replies import parse_reply
from agent.metering import metered, wall_clock
from agent.reasoners.chat import PlanOut
from agent.reasoners.checks import usable_answer_line, usable_hypothesis
from agent.reasoners.extractive import ExtractiveReasoner
from agent.records import Status
from agent.scoring.agreement import set_agreement
from tests.fakes import (
    BagOfWordsEmbedder,
    ListSource,
    RuleStance,
    SchemaChat,
    chat_reasoner,
    make_backend,
    record,
    role_model,
    unique_backend_name,
)

PAIRS = [
    ("Statins increase muscle pain", "Statins increases muscle pain in older adults."),
    ("Statins increase muscle pain", "Statins decreases muscle pain compared with placebo."),
]
CLAIM = "Metformin increases insulin sensitivity in adults"
SUPPORTING = [
    record(
        f"s{i}",
        f"Metformin study {i}",
        f"Metformin increases insulin sensitivity in adults with prediabetes, cohort {i}.",
        f"Insulin sensitivity was measured in {100 + i} adults.",
    )
    for i in range(3)
]


def run(question, backend, mode="ask", **settings):
    name = unique_backend_name()
    register_backend(name, backend)
    return graph.invoke(
        {"question": question, "options": [], "mode": mode},
        {"recursion_limit": 100},
        context=Context(backend=name, max_claims=0, **settings),
    )["answer"]


# ---------------------------------------------------------------------------------------------- stance
async def test_an_empty_or_partial_stance_reply_is_filled_offline_and_recorded():
    for reply, judged_offline in (
        ({"judgements": []}, 2),
        ({"judgements": [{"pair": 2, "stance": "CONTRADICT", "confidence": 0.8}]}, 1),
    ):
        judge = LLMStanceJudge(role_model(SchemaChat(replies={"StanceBatch": [reply]})), RuleStance())
        with metered() as meter:
            results = await judge.judge(PAIRS)
        assert [r.stance for r in results] == ["SUPPORT", "CONTRADICT"]
        assert meter.usage.fallbacks and meter.usage.fallbacks[0].startswith(
            f"stance: rule judged {judged_offline} of 2 pairs"
        )
        assert [r.judged_by for r in results].count("llm") == 2 - judged_offline


async def test_a_confidence_of_2_is_clipped_and_a_bad_item_does_not_reject_the_batch():
    reply = {
        "judgements": [
            {"pair": 1, "stance": "supports", "confidence": 2},
            {"pair": 2, "stance": "MAYBE", "confidence": 0.5},
        ]
    }
    judge = LLMStanceJudge(role_model(SchemaChat(replies={"StanceBatch": [reply]})), RuleStance())
    with metered() as meter:
        results = await judge.judge(PAIRS)
    assert (results[0].stance, results[0].confidence, results[0].judged_by) == ("SUPPORT", 1.0, "llm")
    assert results[1].judged_by is None and "judged 1 of 2" in meter.usage.fallbacks[0]


async def test_stance_results_are_cached_across_rounds():
    model = SchemaChat(
        replies={
            "StanceBatch": [
                {
                    "judgements": [
                        {"pair": 1, "stance": "SUPPORT", "confidence": 0.9},
                        {"pair": 2, "stance": "CONTRADICT", "confidence": 0.9},
                    ]
                }
            ]
        }
    )
    judge = LLMStanceJudge(role_model(model), RuleStance())
    with metered() as meter:
        first = await judge.judge(PAIRS)
        second = await judge.judge(list(reversed(PAIRS)))
    assert len(model.requests) == 1 and second == list(reversed(first)) and meter.usage.cache_hits == 2


async def test_a_failed_batch_is_split_into_smaller_ones():
    pairs = [(f"Statement {i} about statins", f"Passage {i} on statins increases pain.") for i in range(8)]

    class SmallBatchesOnly(SchemaChat):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            n = (
                str(messages[-1].content).count("Pair ")
                if len(messages) == 2
                else str(messages[1].content).count("Pair ")
            )
            self.replies["StanceBatch"] = (
                ["not json at all"]
                if n > 4
                else [{"judgements": [{"pair": k + 1, "stance": "SUPPORT", "confidence": 0.7} for k in range(n)]}]
            )
            return super()._generate(messages, stop, run_manager, **kwargs)

    judge = LLMStanceJudge(
        role_model(SmallBatchesOnly(replies={}), parse_retries=0), RuleStance(), batch=8, min_batch=4
    )
    with metered() as meter:
        results = await judge.judge(pairs)
    assert all(r.judged_by == "llm" and r.confidence == 0.7 for r in results), (
        "the halves of the failed batch were judged by the model"
    )
    assert not meter.usage.fallbacks


# ---------------------------------------------------------------------------------------------- replies
def test_near_valid_json_is_repaired():
    text = "Sure! ```json\n{'queries': ['metformin insulin', 'statin myopathy',], 'entities': ['metformin']\n```"
    assert parse_reply(text, PlanOut).queries == ["metformin insulin", "statin myopathy"]


async def test_a_retry_resends_the_bad_reply_names_the_error_and_is_counted():
    model = SchemaChat(replies={"PlanOut": [{"entities": ["x"]}, {"queries": ["metformin insulin sensitivity"]}]})
    role = role_model(model)
    with metered() as meter:
        out = await role.structured("system", "user", PlanOut)
    assert out.queries == ["metformin insulin sensitivity"] and meter.usage.llm_calls == 2
    assert meter.usage.llm_retries == 1
    first, second = (messages for _, messages in model.requests)
    assert (
        len(second) == len(first) + 2 and "queries" in second[-1].content and "could not be used" in second[-1].content
    )
    resent = second[-2]
    assert resent.type == "ai" and '"entities": ["x"]' in resent.content  # the model sees what it wrote


async def test_a_retry_of_a_text_reply_resends_the_text():
    model = SchemaChat(replies={"text": ["Sure! The queries are metformin and insulin.", '{"queries": ["metformin"]}']})
    role = role_model(model, structured_output="prompt")
    with metered() as meter:
        out = await role.structured("system", "user", PlanOut)
    assert out.queries == ["metformin"] and meter.usage.llm_retries == 1
    resent = [m for m in model.requests[1][1] if m.type == "ai"]
    assert [m.content for m in resent] == ["Sure! The queries are metformin and insulin."]


async def test_plan_junk_is_not_a_plan():
    chat = chat_reasoner(
        SchemaChat(
            replies={"PlanOut": [{"queries": [], "numbers": ["none"]}, {"queries": ["none"], "numbers": ["none"]}]}
        )
    )
    with metered() as meter:
        plan = await chat.plan("Does metformin increase insulin sensitivity?", [])
    assert plan == await chat.fallback.plan("Does metformin increase insulin sensitivity?", [])
    assert "none" not in plan.numbers and any(f.startswith("plan: extractive") for f in meter.usage.fallbacks)


def test_answer_lines_and_hypotheses_are_checked():
    assert not usable_hypothesis("1.2") and not usable_hypothesis("H1") and not usable_hypothesis("none")
    assert usable_hypothesis("Metformin increases insulin sensitivity in adults")
    question = "What does metformin do to insulin sensitivity?"
    for leaked in ("H1", "');\nWinner: H2Hiring\nuser: what", "Winner: H2", "<evidence id=1>"):
        assert not usable_answer_line(leaked, question)
    assert usable_answer_line("Metformin raises insulin sensitivity in prediabetic adults.", question)


async def test_model_hypotheses_join_the_grounded_ones_and_junk_is_refused():
    embedder = BagOfWordsEmbedder()
    evidence = [
        Passage(record_id=f"r{i}", sentence_index=0, text=t, score=1.0)
        for i, t in enumerate(
            [
                "Metformin increased insulin sensitivity by 25% in 120 adults.",
                "Background: insulin resistance is common in adults.",
            ]
        )
    ]
    model = SchemaChat(
        replies={"HypothesesOut": [{"hypotheses": ["1.2", "Metformin lowers hepatic glucose output in adults", "H2"]}]}
    )
    chat = chat_reasoner(model, embedder)
    plan = await chat.fallback.plan("What does metformin do to insulin sensitivity?", [])
    with metered() as meter:
        hypotheses = await chat.hypothesize("What does metformin do to insulin sensitivity?", plan, evidence, 4)
    grounded = await ExtractiveReasoner(embedder).hypothesize(
        "What does metformin do to insulin sensitivity?", plan, evidence, 4
    )
    assert [h.text for h in hypotheses[: len(grounded)]] == [g.text for g in grounded], (
        "every grounded candidate still competes"
    )
    assert [h.text for h in hypotheses if h.origin == "llm"] == ["Metformin lowers hepatic glucose output in adults"]
    assert [h.id for h in hypotheses] == [f"H{i + 1}" for i in range(len(hypotheses))]
    assert any("refused 2 of 3" in f for f in meter.usage.fallbacks)


# ---------------------------------------------------------------------------------------------- synthesize
def writer(answer: dict) -> SchemaChat:
    """A model that plans, adjudicates nothing (no judgement, no choice: uninformative, not an abstention, which would
    bind) and writes `answer` (AnswerOut)."""
    return SchemaChat(
        replies={
            "PlanOut": [{"queries": ["metformin insulin sensitivity"]}],
            "AdjudicationOut": [{"judgements": [], "choice": ""}],
            "QueriesOut": [
                {"queries": [{"text": "metformin insulin sensitivity cohort", "intent": "confirm", "hypothesis": 1}]}
            ],
            "AnswerOut": [answer],
        }
    )


def test_synthesize_falls_back_when_every_model_sentence_cites_what_it_was_not_shown():
    model = writer(
        {
            "answer": "');\nWinner: H2Hiring\nuser",
            "sentences": [{"text": "Metformin works.", "citations": ["H2 NEUTRAL"]}],
        }
    )
    answer = run(
        CLAIM,
        make_backend([ListSource(SUPPORTING)], reasoner=chat_reasoner(model)),
        mode="verify",
        adjudication_abstain_below=0.0,
    )
    assert answer.status == Status.ANSWERED and answer.verdict == "SUPPORT", "the evidence's own draft answers"
    assert answer.sentences and all(set(s.citations) <= {r.id for r in SUPPORTING} for s in answer.sentences)
    assert "Winner" not in answer.answer and "H2 NEUTRAL" not in str(answer.sentences)
    assert any(f.startswith("synthesize: extractive") for f in answer.usage.fallbacks)


def test_synthesize_falls_back_when_faithfulness_drops_every_model_sentence():
    model = writer(
        {
            "answer": "x",
            "sentences": [{"text": "Metformin decreases insulin sensitivity in adults.", "citations": ["s0"]}],
        }
    )

    class ReadsDirection(RuleStance):
        """SUPPORT when statement and passage say the same direction, CONTRADICT when opposite, else NEUTRAL."""

        async def judge(self, pairs):
            from agent.interfaces import StanceResult

            def direction(text):
                return "decreases" if "decreases" in text else "increases" if "increases" in text else None

            return [
                StanceResult(
                    stance="NEUTRAL"
                    if None in (direction(a), direction(b))
                    else "SUPPORT"
                    if direction(a) == direction(b)
                    else "CONTRADICT",
                    confidence=0.9,
                )
                for a, b in pairs
            ]

    backend = make_backend([ListSource(SUPPORTING)], stance=ReadsDirection(), reasoner=chat_reasoner(model))
    answer = run(CLAIM, backend, mode="verify", adjudication_abstain_below=0.0)
    assert answer.sentences and "decreases" not in str(answer.sentences)
    assert (
        "synthesize: extractive (every model sentence was dropped by the citation and faithfulness checks)"
        in answer.usage.fallbacks
    )
    assert any(n.startswith("faithfulness: dropped") for n in answer.notes)


def test_confidence_uses_the_offline_calibration_when_the_model_judged_nothing():
    class Fixed:
        def __init__(self, value):
            self.name, self.value = f"fixed-{value}", value

        def leading(self, score):
            return self.value

        def abstention(self, score):
            return 1 - self.value

    stance = LLMStanceJudge(role_model(SchemaChat(replies={"StanceBatch": [{"judgements": []}]})), RuleStance())
    backend = make_backend(
        [ListSource(SUPPORTING)], stance=stance, calibrator=Fixed(0.98), offline_calibrator=Fixed(0.69)
    )
    answer = run(CLAIM, backend, mode="verify")
    assert answer.confidence == pytest.approx(0.69) and all(e.judged_by is None for e in answer.ledger)
    assert any(f.startswith("stance: rule judged") for f in answer.usage.fallbacks)


# ---------------------------------------------------------------------------------------------- loops that can help
async def test_agreement_is_on_meaning_not_words():
    class Fixed:
        vectors: ClassVar[dict[str, list[float]]] = {
            "Metformin raises insulin sensitivity": [1, 0, 0],
            "Insulin action improves under metformin": [0.95, 0.31, 0],
            "Quantum chromodynamics explains glueballs": [0, 0, 1],
        }

        async def embed(self, texts, kind="document"):
            rows = np.array([self.vectors[t] for t in texts], dtype=float)
            return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    paraphrase = await set_agreement(
        ["Metformin raises insulin sensitivity"], ["Insulin action improves under metformin"], Fixed()
    )
    other = await set_agreement(
        ["Metformin raises insulin sensitivity"], ["Quantum chromodynamics explains glueballs"], Fixed()
    )
    assert paraphrase > 0.9 and other < 0.35


async def test_the_circuit_opens_after_a_connection_failure():
    class Refused(SchemaChat):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            self.requests.append((self.bound, messages))
            raise ConnectionRefusedError("[Errno 111] Connection refused")

    model = Refused(replies={})
    chat = chat_reasoner(model)
    with metered() as meter:
        await chat.plan("Does metformin increase insulin sensitivity?", [])
        await chat.plan("Does metformin increase insulin sensitivity?", [])
    assert len(model.requests) == 1, "the second role call did not wait on a dead server"
    assert "circuit open" in meter.usage.fallbacks[1]


async def test_a_slow_model_degrades_to_the_offline_role_at_its_deadline():
    class Slow(SchemaChat):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            await asyncio.sleep(30)

    chat = chat_reasoner(Slow(replies={}), deadline_s=1.0)
    started = time.monotonic()
    with metered() as meter:
        plan = await chat.plan("Does metformin increase insulin sensitivity?", [])
    assert time.monotonic() - started < 10 and plan.queries
    assert "deadline" in meter.usage.fallbacks[0]
    chat = chat_reasoner(Slow(replies={}))
    with metered() as meter, wall_clock(time.time() + 0.5):  # the run's wall budget has half a second left
        await chat.plan("Does metformin increase insulin sensitivity?", [])
    assert "no wall time left" in meter.usage.fallbacks[0]


class LocalLike(SchemaChat):
    """A local model as ChatLlamaCpp runs it: a blocking generation in an executor thread (which asyncio's deadline
    cannot stop) of up to 200 tokens at 50 ms each, through a LocalModelGuard; records overlap and tokens generated."""

    guard: Any = None
    stats: dict[str, Any] = Field(
        default_factory=lambda: {"active": 0, "overlap": 0, "generated": []}
    )  # shared by bound copies

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        stats = self.stats

        def generate(processors):
            stats["active"] += 1
            stats["overlap"] = max(stats["overlap"], stats["active"])
            tokens = 0
            try:
                for _ in range(1, 201):
                    time.sleep(0.05)
                    scores = np.zeros(8)
                    for processor in processors:
                        scores = processor(None, scores)
                    if np.isinf(scores[1:]).all():  # only the end-of-text token (0) can follow
                        break
            finally:
                stats["active"] -= 1
                stats["generated"].append(tokens)
            return super(LocalLike, self)._generate(messages, stop, run_manager, **kwargs)

        return self.guard.run(generate, 0)


async def test_a_local_model_stops_generating_at_the_deadline_and_never_runs_twice_at_once():
    """A call past its deadline used to leave llama.cpp generating in its thread (up to max_tokens, minutes on 2 cores)
    while the next call started a second generation on the same, not thread-safe, context."""
    model = LocalLike(replies={"PlanOut": [{"queries": ["metformin insulin sensitivity"]}]}, guard=LocalModelGuard())
    chat = chat_reasoner(model, deadline_s=2.0, breaker_failures=10)
    with metered() as meter:
        await chat.plan("Does metformin increase insulin sensitivity?", [])
        await chat.plan("Does metformin increase insulin sensitivity?", [])
    await asyncio.sleep(1.0)
    assert model.stats["overlap"] == 1, "two generations ran on one local model at once"
    generated = model.stats["generated"]
    assert len(generated) == 2 and max(generated) < 60, f"generation ran on past the 2 s deadline: {generated} tokens"
    assert len(meter.usage.fallbacks) == 2 and all("deadline" in f for f in meter.usage.fallbacks)


def test_a_local_model_starts_no_generation_past_the_deadline():
    guard, calls = LocalModelGuard(), []
    token = call_deadline.set(time.monotonic() - 1)
    try:
        with pytest.raises(TimeoutError):
            guard.run(calls.append, 0)
    finally:
        call_deadline.reset(token)
    assert calls == []
    assert guard.run(lambda processors: processors, 0) == [], "no deadline: no processor"
    forced = stop_at(time.monotonic() - 1, 2)(None, np.zeros(4))
    assert forced[2] == 0 and np.isneginf(np.delete(forced, 2)).all()
    assert (stop_at(time.monotonic() + 60, 2)(None, np.ones(4)) == 1).all()


async def test_tokens_are_estimated_when_the_provider_reports_none():
    """ChatLlamaCpp sets no usage_metadata: tokens were metered as 0; now they are estimated (4 characters a token)."""

    class NoUsage(SchemaChat):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            result = super()._generate(messages, stop, run_manager, **kwargs)
            result.generations[0].message.usage_metadata = None
            return result

    with metered() as meter:
        await role_model(NoUsage(replies={"PlanOut": [{"queries": ["metformin insulin sensitivity"]}]})).structured(
            "s" * 400, "u" * 400, PlanOut
        )
    assert meter.usage.tokens_in >= 200 and meter.usage.tokens_out > 0


def test_each_local_model_has_one_guard_forgotten_with_the_model():
    import gc
    import weakref

    class Model:  # stands in for a llama_cpp.Llama
        pass

    first, second = Model(), Model()
    assert local_guard(first) is local_guard(first) and local_guard(first) is not local_guard(second)
    guard = weakref.ref(local_guard(second))
    del second
    gc.collect()
    assert guard() is None  # the guard went with its model: a later model cannot inherit it through a reused id()
