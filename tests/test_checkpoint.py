"""Every state channel comes back from a checkpoint as it went in: the same classes, the same values. A class the
serializer does not rebuild comes back as a plain dict, and a resumed run then fails on it (`adjudication` once did).
Each channel of ResearchState and OutputState has an example below; a new channel without one fails the first test."""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin, get_type_hints

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from pydantic import BaseModel, TypeAdapter

from agent.api.checkpoint import serializer, sqlite_checkpointer
from agent.interfaces import CitedSentence, Draft, Plan
from agent.literature import Citation, Passage, Provenance, Query, Record, SourceLocation
from agent.records import (
    Adjudication,
    Answer,
    AnswerSentence,
    Claim,
    ClaimVerdict,
    Correction,
    Decision,
    Hypothesis,
    HypothesisJudgement,
    HypothesisVerdict,
    LedgerEntry,
    PaperFinding,
    Status,
    Usage,
)
from agent.routing import AfterCourt, AfterRerank, AfterRetrieve, AfterVerify
from agent.scoring.relevance import RelevanceAssessment
from agent.state import OutputState, ResearchState

RECORD = Record(
    id="10.1/ab",
    source="local",
    source_type="local",
    title="Metformin and insulin sensitivity",
    year=2019,
    doi="10.1/AB",
    sentences=[
        "Metformin increases insulin sensitivity in adults with prediabetes.",
        "Aspirin was given to 20 controls.",
    ],
    provenance=[
        Provenance(query="metformin insulin", round=1, hypothesis_id="H1", source="local", scores={"bm25": 3.2})
    ],
    alt_ids={"pubmed": "123"},
    location=SourceLocation(document_id="doc-1", page=4, page_end=5, section="Results"),
)
HYPOTHESES = [
    Hypothesis(
        id="H1",
        text="metformin",
        origin="option",
        option_index=0,
        claim="Metformin increases insulin sensitivity",
        support=0.8,
        score=0.7,
        verdict=HypothesisVerdict.SUPPORTED,
    ),
    Hypothesis(id="H2", text="aspirin", origin="option", option_index=1, polarity=-1, contradiction=0.2),
]
LEDGER = [
    LedgerEntry(
        hypothesis_id="H1",
        record_id=RECORD.id,
        sentence_index=0,
        text=RECORD.sentences[0],
        stance="SUPPORT",
        confidence=0.9,
        weight=0.5,
        judged_by="llm",
    )
]
CLAIMS = [
    Claim(
        text="Metformin increases insulin sensitivity",
        key_terms=["metformin"],
        sources=[RECORD.id],
        verdict=ClaimVerdict.VERIFIED,
        supporting=["r2"],
        independent_sources=1,
        dossier=LEDGER,
    )
]
ADJUDICATION = Adjudication(
    model="fake:model",
    judgements=[HypothesisJudgement(hypothesis_id="H1", judgement="holds", probability=0.9, evidence=[RECORD.id])],
    model_choice="H1",
    evidence_choice="H1",
    model_probability={"H1": 0.9, "H2": 0.1},
    evidence_share={"H1": 1.0, "H2": 0.0},
    blend={"H1": 0.93, "H2": 0.07},
    choice="H1",
    contested=True,
    notes=["H3 not counted"],
)
RELEVANCE = RelevanceAssessment(
    relevant=False,
    probability=0.12,
    features={"best_cosine": 0.31, "coverage": 0.25},
    best_record=RECORD.id,
    best_text=RECORD.sentences[0],
)
DECISIONS = [
    AfterRetrieve(at="retrieve", next="rerank", reason="round-1 evidence"),
    AfterRerank(at="rerank", next="court", reason="weigh"),
    AfterCourt(at="court", next="synthesize", reason="resolved", margin=0.4, agreement=0.9, round=1),
    AfterVerify(at="verify_claims", next="report", reason="claims settled", contested=0),
]
USAGE = Usage(
    llm_calls=3,
    source_calls=2,
    source_failures={"arxiv": 1},
    calls_by_source={"local": 2},
    tokens_in=300,
    cost_usd=0.01,
    fallbacks=["plan: extractive"],
    by_node={"court": {"runs": 1}},
)
DRAFT = Draft(
    answer="Metformin.",
    answer_citations=[RECORD.id],
    selected_hypothesis="H1",
    faithfulness=1.0,
    sentences=[CitedSentence(text="Metformin raised insulin sensitivity.", citations=[RECORD.id], role="supports")],
)
ANSWER = Answer(
    status=Status.ANSWERED,
    task="mcq",
    question="Which drug?",
    answer="(A) metformin",
    confidence=0.8,
    leading_confidence=0.8,
    selected_option=0,
    sentences=[AnswerSentence(text="Metformin raised insulin sensitivity.", citations=[RECORD.id])],
    hypotheses=HYPOTHESES,
    ledger=LEDGER,
    claims=CLAIMS,
    citations=[Citation.of(RECORD)],
    stop_reason="resolved",
    # a model inside a model comes back as the class its field declares (the serializer stores the outer
    # model's fields and rebuilds it by name): here Decision, as the report reads them, not AfterCourt
    decisions=[Decision.model_validate(decision.model_dump()) for decision in DECISIONS],
    run_id="run-1",
    usage=USAGE,
    notes=["a note"],
    faithfulness=1.0,
    relevance=RELEVANCE.model_dump(),
    adjudication=ADJUDICATION,
    corrections=[Correction(original="asprin", corrected="aspirin")],
)

PAPERS = [
    PaperFinding(
        record_id="r1",
        title="Metformin and insulin",
        year=2019,
        answer="supports",
        answer_sentence="Metformin increases insulin sensitivity.",
        design="RCT",
        design_sentence="We randomly assigned 120 adults to metformin or placebo.",
        sample_size=120,
        size_sentence="We randomly assigned 120 adults to metformin or placebo.",
    )
]

EXAMPLES: dict[str, Any] = {
    "question": "Which drug increases insulin sensitivity?",
    "options": ["metformin", "aspirin"],
    "mode": "verify",
    "documents": [
        {"id": "d1", "title": "Metformin", "abstract": "Metformin increases insulin sensitivity.", "year": 2019}
    ],
    "run_id": "run-1",
    "started_at": 1700000000.5,
    "corrections": [Correction(original="asprin", corrected="aspirin")],
    "outage": "no network: arXiv, Semantic Scholar unreachable (connection refused)",
    "plan": Plan(
        task="mcq",
        options=["metformin", "aspirin"],
        entities=["metformin"],
        numbers=["20"],
        queries=[Query(text="metformin insulin", intent="primary")],
        claim="Metformin increases insulin sensitivity",
    ),
    "queries": [Query(text="aspirin insulin", intent="falsify", hypothesis_id="H2")],
    "sent_queries": [
        Query(text="metformin insulin"),
        Query(text="aspirin insulin", intent="contrast", hypothesis_id="H2"),
    ],
    "round": 2,
    "phase": "discrimination",
    "pool": {RECORD.id: RECORD},
    "ranked": [
        Passage(
            record_id=RECORD.id,
            sentence_index=0,
            sentence_end=2,
            text=RECORD.sentences[0],
            score=0.9,
            section="results",
        )
    ],
    "hypotheses": HYPOTHESES,
    "agreement": 0.75,
    "ledger": LEDGER,
    "court_read": ["r1", "r2"],
    "papers": PAPERS,
    "readings": [
        {"kind": "sentence", "statement": 0, "passage": 3, "record": "r1", "rank": 0, "p": [0.7, 0.1, 0.2]},
        {"kind": "record", "statement": 0, "record": "r1", "rank": 0, "p": [0.6, 0.1, 0.3]},
    ],
    "verdict_model": {
        "family": "claim",
        "probabilities": {"SUPPORT": 0.7, "CONTRADICT": 0.1, "NOT_ENOUGH_INFO": 0.2},
        "probability": 0.7,
        "abstention": 0.2,
        "threshold": 0.65,
    },
    "semantic": [0.61, 0.42],
    "review": {
        "changes": [
            {"action": "strike", "statement": "s", "record_id": "r1", "text": "t", "before": "support", "after": None}
        ]
    },
    "margin": 0.4,
    "relevance": RELEVANCE,
    "adjudication": ADJUDICATION,
    "discrimination_rounds": 1,
    "hops_done": 1,
    "hopped_ids": [RECORD.id],
    "draft": DRAFT,  # its `alternative` is excluded from dumps by design: only synthesize reads it, before it returns
    "claims": CLAIMS,
    "escalations": 1,
    "decisions": DECISIONS,
    "usage": USAGE,
    "notes": ["court: 1 record(s) read as neutral"],
    "budget_stop": "wall_time: max_wall_time_s=60 reached during court",
    "answer": ANSWER,
}


def channels() -> dict[str, Any]:
    """Every channel of the state schemas -> its type (Annotated stripped: the reducer is no part of the value)."""
    hints = {**get_type_hints(ResearchState, include_extras=True), **get_type_hints(OutputState, include_extras=True)}
    return {key: get_args(hint)[0] if get_origin(hint) is Annotated else hint for key, hint in hints.items()}


def shape(value: Any) -> Any:
    """The classes a value is made of, all the way down (a str-valued enum equals its str, a model not its dict)."""
    if isinstance(value, BaseModel):
        return type(value), {name: shape(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, dict):
        return dict, {key: shape(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value), [shape(item) for item in value]
    return type(value)


def test_every_channel_has_a_non_trivial_example_of_its_type():
    assert set(EXAMPLES) == set(channels()), (
        f"channels without an example: {set(channels()) - set(EXAMPLES)}; examples of no channel: "
        f"{set(EXAMPLES) - set(channels())}"
    )
    for key, hint in channels().items():
        assert EXAMPLES[key] not in (None, "", 0, [], {}), key
        TypeAdapter(hint).validate_python(EXAMPLES[key], strict=True)


def test_the_allow_list_holds_the_classes_the_examples_are_made_of():
    """Sanity for the walk over the type hints: a subclass only the runtime stores (AfterCourt) is on it too."""
    allowed = set(serializer()._allowed_msgpack_modules)
    assert {
        ("agent.records", "Adjudication"),
        ("agent.scoring.relevance", "RelevanceAssessment"),
        ("agent.routing", "AfterCourt"),
        ("agent.records", "Status"),
        ("agent.interfaces", "Draft"),
    } <= allowed
    assert all(module.startswith("agent.") for module, _ in allowed), (
        "only the project's own classes are rebuilt by name"
    )


@pytest.mark.parametrize("channel", sorted(EXAMPLES))
def test_each_channel_round_trips_through_the_serializer(channel):
    serde = serializer()
    value = EXAMPLES[channel]
    back = serde.loads_typed(serde.dumps_typed(value))
    assert shape(back) == shape(value) and back == value


async def test_a_checkpoint_of_every_channel_round_trips_through_the_sqlite_saver(tmp_path):
    """The saver the CLI and the Python API resume from, with the serializer it is built with."""
    async with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver:
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = dict(EXAMPLES)
        checkpoint["channel_versions"] = {key: 1 for key in EXAMPLES}
        config = {"configurable": {"thread_id": "run-1", "checkpoint_ns": ""}}
        await saver.aput(config, checkpoint, {}, checkpoint["channel_versions"])
        found = await saver.aget_tuple({"configurable": {"thread_id": "run-1"}})
    back = found.checkpoint["channel_values"]
    wrong = sorted(
        key
        for key, value in EXAMPLES.items()
        if key not in back or shape(back[key]) != shape(value) or back[key] != value
    )
    assert not wrong, f"channels that came back changed: {wrong}"
