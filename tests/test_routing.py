"""Each conditional edge, through the real compiled graph with scripted backends (no models, no network)."""

from __future__ import annotations

import asyncio

from agent.api import ask
from agent.backend import register_backend
from agent.config import Context
from agent.graph import graph
from agent.interfaces import CitedSentence, Draft
from agent.llm.providers import register_chat_model, unregister_chat_model
from agent.reasoners.extractive import ExtractiveReasoner
from agent.records import ClaimVerdict, Decision, Hypothesis, LedgerEntry, Query, Status
from agent.routing import decide_after_court, decide_after_verify
from tests.fakes import (
    BagOfWordsEmbedder,
    ListSource,
    RuleStance,
    chat_reasoner,
    make_backend,
    record,
    scripted_chat,
    tool_message,
    unique_backend_name,
)

CLAIM = "Metformin increases insulin sensitivity in adults"

SUPPORTING = [
    record(
        f"s{i}",
        f"Metformin and insulin sensitivity study {i}",
        f"Metformin increases insulin sensitivity in adults with prediabetes, cohort {i}.",
        f"Insulin sensitivity was measured in {100 + i} adults.",
    )
    for i in range(4)
]
OPPOSING = [
    record(
        f"o{i}",
        f"Metformin insulin sensitivity trial {i}",
        f"Metformin decreases insulin sensitivity in adults with obesity, trial {i}.",
    )
    for i in range(4)
]


def run(question: str, backend, options=None, mode="ask", **settings):
    name = unique_backend_name()
    register_backend(name, backend)
    context = Context(backend=name, **settings)
    out = graph.invoke(
        {"question": question, "options": options or [], "mode": mode}, {"recursion_limit": 100}, context=context
    )
    return out["answer"]


def nodes_visited(answer) -> list[str]:
    return [f"{d.at}->{d.next}" for d in answer.decisions]


def test_clear_support_ends_after_one_court():
    answer = run(CLAIM, make_backend([ListSource(SUPPORTING)]), mode="verify", max_claims=0)
    court = [d for d in answer.decisions if d.at == "court"]
    assert len(court) == 1 and court[0].next == "synthesize"
    assert court[0].margin >= 0.06
    assert answer.status == Status.ANSWERED and answer.verdict == "SUPPORT"
    assert {c.id for c in answer.citations} <= {r.id for r in SUPPORTING}


class FreshQueries(ExtractiveReasoner):
    """The extractive reasoner, each round's discriminating queries made new (a numbered facet), so every round has
    something to retrieve: what a loop bounded only by max_discrimination_rounds needs."""

    def __init__(self, embedder):
        super().__init__(embedder)
        self.rounds = 0

    async def discriminating_queries(self, question, hypotheses, cap):
        self.rounds += 1
        proposed = await super().discriminating_queries(question, hypotheses, cap)
        return [q.model_copy(update={"text": f"{q.text} facet {self.rounds}"}) for q in proposed]


def test_low_margin_loops_to_discrimination_and_is_bounded():
    source = ListSource(SUPPORTING[:2] + OPPOSING[:2])
    # relevance_decay=0: rank would break the tie between the balanced sides this test needs
    backend = make_backend([source], reasoner=FreshQueries(BagOfWordsEmbedder()))
    answer = run(CLAIM, backend, mode="verify", max_claims=0, max_discrimination_rounds=2, relevance_decay=0.0)
    court = [d for d in answer.decisions if d.at == "court"]
    assert [d.next for d in court] == ["discriminate", "discriminate", "synthesize"]
    assert all(d.margin < 0.06 for d in court)
    assert "max_discrimination_rounds (2) reached" in answer.stop_reason


def test_a_round_with_no_new_query_goes_to_the_answer_without_weighing_the_same_pool_again():
    """Issue 46: rounds 3 and 4 of a low-margin question ran with `queries=0, records=0` and retrieve, rerank and court
    ran again on the same pool. The extractive reasoner proposes the same queries each round, all sent in round 2, and
    a list source has no citation graph: after the first court nothing new can come, so the court runs once."""
    source = ListSource(SUPPORTING[:2] + OPPOSING[:2])
    stance = RuleStance()
    answer = run(
        CLAIM,
        make_backend([source], stance=stance),
        mode="verify",
        max_claims=0,
        max_discrimination_rounds=3,
        relevance_decay=0.0,
    )
    court = [d for d in answer.decisions if d.at == "court"]
    assert len(court) == 1 and court[0].next == "discriminate" and court[0].margin < 0.06
    last = [d for d in answer.decisions if d.at == "discriminate"][-1]
    assert last.next == "synthesize" and "no new query" in last.reason
    assert "discriminate: no new query" in answer.stop_reason and "max_discrimination_rounds" not in answer.stop_reason
    assert [d.round for d in answer.decisions if d.at == "retrieve"] == [1, 2]  # no empty third round
    assert answer.status in (Status.ANSWERED, Status.INSUFFICIENT_EVIDENCE) and answer.answer


def test_a_round_with_no_new_query_still_retrieves_while_a_citation_hop_is_left():
    from agent.routing import decide_after_discriminate  # issue 46's decider (here, so the file imports on c6b850c)

    weighed = [Decision(at="court", next="discriminate", reason="low margin")]
    state = {"queries": [], "decisions": weighed, "hops_done": 0, "round": 2}
    assert decide_after_discriminate(state, Context()).next == "retrieve"  # the hop may still bring records
    assert decide_after_discriminate({**state, "hops_done": 1}, Context()).next == "synthesize"
    assert decide_after_discriminate({**state, "hops_done": 1, "decisions": []}, Context()).next == "retrieve"
    pending = {**state, "hops_done": 1, "queries": [Query(text="aspirin adenoma recurrence")]}
    assert decide_after_discriminate(pending, Context()).reason == "1 new query"


def test_progress_never_states_an_answer_the_report_withdraws():
    """Issue 46: "[synthesize] answer=Yes: the evidence indicates ..." was printed, then the report abstained. The
    draft is not the answer: the one progress line that states an answer is the report's, and it is the answer."""
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(SUPPORTING)]))
    context = Context(backend=name, max_claims=0, abstain_threshold=0.99)  # the draft is declined
    events = [
        event
        for event in graph.stream(
            {"question": CLAIM, "mode": "verify"}, {"recursion_limit": 100}, context=context, stream_mode="custom"
        )
        if isinstance(event, dict) and event.get("event") is None
    ]
    answer = graph.invoke({"question": CLAIM, "mode": "verify"}, {"recursion_limit": 100}, context=context)["answer"]
    assert answer.status == Status.INSUFFICIENT_EVIDENCE and answer.abstained
    assert any(e["node"] == "synthesize" for e in events)
    stated = [(e["node"], e["answer"]) for e in events if "answer" in e]
    assert stated == [("report", answer.answer)]


def test_low_margin_without_rounds_left_goes_to_synthesis():
    source = ListSource(SUPPORTING[:2] + OPPOSING[:2])
    answer = run(CLAIM, make_backend([source]), mode="verify", max_claims=0, max_discrimination_rounds=0)
    assert [d.next for d in answer.decisions if d.at == "court"] == ["synthesize"]


def test_provider_disagreement_triggers_discrimination():
    """A chat model whose hypotheses share nothing with the extractive ones: agreement < 0.35."""
    embedder = BagOfWordsEmbedder()
    messages = (
        [
            tool_message("PlanOut", {"queries": ["metformin insulin"], "entities": [], "numbers": []}),
            tool_message("HypothesesOut", {"hypotheses": ["Quantum chromodynamics explains glueballs"]}),
        ]
        + [
            tool_message(
                "QueriesOut", {"queries": [{"text": "metformin sensitivity", "intent": "confirm", "hypothesis": 1}]}
            )
        ]
        * 6
        + [
            tool_message(
                "AnswerOut",
                {
                    "answer": "Metformin increases insulin sensitivity.",
                    "sentences": [{"text": "Metformin increases insulin sensitivity.", "citations": ["s0"]}],
                },
            )
        ]
        * 4
    )
    register_chat_model("fake:disagree", scripted_chat(messages))
    try:
        extractive = ExtractiveReasoner(embedder)
        chat = chat_reasoner(scripted_chat(messages), embedder, "fake:disagree")
        backend = make_backend([ListSource(SUPPORTING)], reasoner=chat, second_opinion=extractive)
        answer = run(
            "What does metformin do to insulin sensitivity?", backend, max_claims=0, max_discrimination_rounds=1
        )
    finally:
        unregister_chat_model("fake:disagree")
    court = [d for d in answer.decisions if d.at == "court"]
    assert court[0].agreement is not None and court[0].agreement < 0.35
    assert court[0].next == "discriminate" and "disagreement" in court[0].reason
    assert answer.usage.llm_calls >= 2


def test_contested_claims_trigger_one_targeted_round():
    # Every passage mentions both words: claims get support and refutation -> CONTESTED.
    topics = [
        "hepatic glucose output",
        "skeletal muscle uptake",
        "adipose tissue signalling",
        "gut microbiome shifts",
        "mitochondrial respiration",
    ]
    mixed = [
        record(
            f"m{i}",
            f"Mixed metformin study of {topic}",
            f"Metformin increases insulin sensitivity through {topic} in adults.",
            f"Insulin sensitivity increases were seen in {i + 2} of 10 sites measuring {topic}.",
        )
        for i, topic in enumerate(topics)
    ]
    stance = RuleStance()

    async def alternating(pairs):
        results = await RuleStance.judge(stance, pairs)
        for k, r in enumerate(results):
            results[k] = r.model_copy(update={"stance": "SUPPORT" if k % 2 == 0 else "CONTRADICT"})
        return results

    stance.judge = alternating
    answer = run(CLAIM, make_backend([ListSource(mixed)], stance=stance), mode="verify", max_escalations=1)
    verify = [d for d in answer.decisions if d.at == "verify_claims"]
    assert verify[0].next == "target_claims" and verify[0].contested > 1
    assert verify[-1].next == "report" and "max_escalations (1) reached" in verify[-1].reason
    assert len(verify) == 2
    assert any(c.verdict == ClaimVerdict.CONTESTED for c in answer.claims)


def test_source_budget_stops_the_loop_and_is_recorded():
    source = ListSource(SUPPORTING[:2] + OPPOSING[:2])
    answer = run(
        CLAIM,
        make_backend([source]),
        mode="verify",
        max_claims=0,
        max_discrimination_rounds=5,
        max_source_calls=3,
        relevance_decay=0.0,
    )
    assert "budget_exhausted: source_calls" in answer.stop_reason
    assert answer.usage.source_calls <= 3 + 2  # the cap is checked per query batch


def test_unit_decisions_cover_each_branch():
    settings = Context()
    assert decide_after_court({"margin": 0.5, "ledger": [1], "pool": {"a": 1}}, settings).next == "synthesize"
    assert (
        decide_after_court({"margin": 0.01, "ledger": [1], "pool": {"a": 1}, "discrimination_rounds": 1}, settings).next
        == "discriminate"
    )
    assert (
        decide_after_court(
            {"margin": 0.5, "agreement": 0.1, "ledger": [1], "pool": {"a": 1}, "discrimination_rounds": 1}, settings
        ).next
        == "discriminate"
    )
    assert (
        decide_after_court({"margin": 0.01, "ledger": [1], "pool": {"a": 1}, "discrimination_rounds": 3}, settings).next
        == "synthesize"
    )
    off = Context(enable_discrimination=False)
    assert decide_after_court({"margin": 0.01, "ledger": [1], "pool": {"a": 1}}, off).next == "synthesize"
    assert decide_after_verify({"claims": []}, settings).next == "report"


def test_a_margin_of_closeness_alone_does_not_resolve_the_question():
    # An MCQ's margin blends in each option's closeness to the passages; when no passage took a side, that margin
    # separated nothing: the court looks for evidence again instead of calling the question resolved.
    options = [Hypothesis(id=f"H{i}", text=t, claim=t, origin="option") for i, t in enumerate(("IL-17", "IL-4"), 1)]
    neutral = [
        LedgerEntry(hypothesis_id="H1", record_id="a", stance="NEUTRAL", confidence=0.8, text="Psoriasis plaques.")
    ]
    state = {"margin": 0.23, "hypotheses": options, "ledger": neutral, "pool": {"a": 1}, "discrimination_rounds": 1}
    looped = decide_after_court(state, Context())
    assert looped.next == "discriminate" and "no passage took a side" in looped.reason
    final = decide_after_court({**state, "discrimination_rounds": 3}, Context())
    assert final.next == "synthesize" and final.reason.startswith("no passage took a side, max_discrimination_rounds")
    sided = [neutral[0].model_copy(update={"stance": "SUPPORT"})]
    assert decide_after_court({**state, "ledger": sided}, Context()).reason.startswith("resolved")


def test_a_margin_is_printed_so_that_its_comparison_reads_true():
    """Issue 39: a stop reason read "low margin (0.060 < 0.06)"."""
    sided = {
        "ledger": [LedgerEntry(hypothesis_id="H1", record_id="a", stance="SUPPORT", confidence=0.8, text="x")],
        "pool": {"a": 1},
    }
    low = decide_after_court({**sided, "margin": 0.0598, "discrimination_rounds": 3}, Context())
    assert low.reason.startswith("low margin (0.0598 < 0.06)")
    assert decide_after_court({**sided, "margin": 0.05996, "discrimination_rounds": 3}, Context()).reason.startswith(
        "low margin (0.05996 < 0.06)"
    )
    assert decide_after_court({**sided, "margin": 0.25}, Context()).reason == "resolved: margin 0.250 >= 0.06"
    split = decide_after_court({**sided, "margin": 0.5, "agreement": 0.3496, "discrimination_rounds": 3}, Context())
    assert "provider disagreement (0.3496 < 0.35)" in split.reason


def test_the_recursion_limit_setting_is_what_langgraph_enforces():
    """LangGraph's own default is 10007 steps; a run gets budget.recursion_limit (80), and a smaller one stops it."""
    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(SUPPORTING[:2] + OPPOSING[:2])]))
    looping = dict(backend=name, mode="verify", max_claims=0, max_discrimination_rounds=2, relevance_decay=0.0)
    assert ask(CLAIM, **looping).status == Status.ANSWERED  # about 20 steps, inside the default limit of 80
    stopped = ask(CLAIM, recursion_limit=10, **looping)
    assert stopped.status == Status.ERROR and "Recursion limit of 10 reached" in stopped.answer


def test_model_extracted_claims_carry_the_citations_of_the_sentence_they_came_from():
    draft = Draft(
        answer="x",
        sentences=[
            CitedSentence(text="Metformin increases insulin sensitivity in adults with prediabetes.", citations=["s0"]),
            CitedSentence(
                text="Against this, a trial reports metformin decreases insulin sensitivity in obesity.",
                citations=["o1"],
            ),
        ],
    )
    messages = [
        tool_message(
            "ClaimsOut",
            {
                "claims": [
                    "Metformin decreases insulin sensitivity in obesity trials",
                    "Metformin increases insulin sensitivity among prediabetic adults",
                ]
            },
        )
    ]
    chat = chat_reasoner(scripted_chat(messages), spec="fake:claims")
    claims = asyncio.run(chat.extract_claims("What does metformin do?", draft, 6))
    assert [(c.text.split()[1], c.sources) for c in claims] == [("decreases", ["o1"]), ("increases", ["s0"])]


def test_an_off_topic_court_goes_straight_to_synthesis_on_the_court_edge():
    """The relevance gate's decision is the court edge's own type (allow-listed for checkpoints, routed by its
    Literal)."""
    from agent.routing import AfterCourt
    from agent.scoring.relevance import RelevanceAssessment

    gate = RelevanceAssessment(relevant=False, probability=0.12, features={"best_cosine": 0.1, "coverage": 0.0})
    off_topic = {"margin": 0.0, "ledger": [], "pool": {"a": 1}, "relevance": gate}
    decision = decide_after_court(off_topic, Context())
    assert type(decision) is AfterCourt and decision.next == "synthesize" and "relevance gate" in decision.reason
