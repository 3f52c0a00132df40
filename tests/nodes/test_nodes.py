"""One unit test per node, calling the node function directly on a hand-built state."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import pytest
from langgraph.runtime import Runtime

from agent.backend import register_backend
from agent.config import Context
from agent.errors import InputError
from agent.graph import STEPS
from agent.interfaces import CitedSentence, Draft, StanceResult
from agent.literature import Passage, Query
from agent.nodes.citation_hop import citation_hop
from agent.nodes.court import court
from agent.nodes.discriminate import discriminate
from agent.nodes.hypothesize import hypothesize
from agent.nodes.parts import RunPins
from agent.nodes.plan import plan
from agent.nodes.report import report
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.runnable import run_step
from agent.nodes.synthesize import check_citations, synthesize
from agent.nodes.target_claims import target_claims
from agent.nodes.verify_claims import one_side_per_record, verdict_for, verify_claims
from agent.records import Claim, ClaimVerdict, Hypothesis, LedgerEntry, Status, Usage
from agent.scoring.chunking import section_window_passages, sentence_passages
from agent.scoring.court import margin_of, passage_weight, relevance_weight, score_hypothesis
from agent.state import merge_records
from tests.fakes import ListSource, make_backend, record, unique_backend_name

RECORDS = [
    record(
        "a1",
        "Statins increase muscle pain",
        "Statins increases muscle pain in older adults (OR 1.8, 95% CI 1.2-2.6).",
        "Pain was reported by 12% of patients.",
    ),
    record(
        "a2", "Statin myopathy cohort", "Statin therapy increases muscle pain risk among 5,000 adults.", doi="10.1/abc"
    ),
    record(
        "a3", "Statins and myalgia trial", "Statins decreases muscle pain compared with placebo in a blinded trial."
    ),
    record("a4", "Unrelated astronomy", "Galaxies rotate faster than expected."),
]


def runtime(**settings):
    name = unique_backend_name()
    sources = settings.pop("sources_override", [ListSource(RECORDS)])
    register_backend(name, make_backend(sources, calibrator=settings.pop("calibrator_override", None)))
    return Runtime(context=Context(backend=name, **settings))


def run(node, state, rt):
    """The node's whole update, through the wrapper the graph runs it in (usage and its decider's Decision included)."""
    return asyncio.run(run_step(STEPS[node.__name__], state, rt.context, RunPins()))


def base_state(rt, question="Do statins increase muscle pain?", **extra):
    state = {"question": question, "options": [], "mode": "ask"}
    state.update(run(plan, state, rt))
    state.update(extra)
    return state


def test_plan_classifies_and_writes_queries():
    rt = runtime()
    update = run(plan, {"question": "  Do statins   increase muscle pain? ", "options": []}, rt)
    assert update["plan"].task == "polar" and update["plan"].claim == "Statins increase muscle pain"
    assert update["question"] == "Do statins increase muscle pain?"
    assert update["queries"] and update["run_id"] and update["round"] == 0
    mcq = run(plan, {"question": "Which drug lowers LDL?", "options": ["Statins", "Aspirin"]}, rt)
    assert mcq["plan"].task == "mcq" and len(mcq["queries"]) == 4


def test_options_written_into_the_question_make_it_a_multiple_choice_question():
    """Seen as a user: "... cessation: (A) varenicline or (B) nicotine patch?" was read as an open question and
    answered with an unrelated sentence about varenicline plus bupropion."""
    update = run(
        plan,
        {
            "question": "Which is more effective for smoking cessation: (A) varenicline or (B) nicotine patch?",
            "options": [],
        },
        runtime(),
    )
    assert update["plan"].task == "mcq"
    assert (update["question"], update["options"]) == (
        "Which is more effective for smoking cessation?",
        ["varenicline", "nicotine patch"],
    )


def test_an_alternative_question_is_a_choice_between_its_two_statements():
    """Seen as a user: "Is light a wave or a particle?" was answered "Yes: ... light is a wave or a particle"."""
    update = run(plan, {"question": "Is light a wave or a particle?", "options": []}, runtime())
    assert update["plan"].task == "mcq" and update["options"] == ["Light is a wave", "Light is a particle"]
    assert update["question"] == "Is light a wave or a particle?"
    verify = run(plan, {"question": "Is light a wave or a particle?", "options": [], "mode": "verify"}, runtime())
    assert verify["options"] == [] and verify["plan"].task == "claim"  # a claim to check is left whole


def test_plan_rejects_bad_input():
    rt = runtime()
    for bad in (
        {"question": "   "},
        {"question": "x" * 20_001},
        {"question": "Q?", "options": ["a"]},
        {"question": "Q?", "options": ["a", "A"]},
    ):
        with pytest.raises(InputError):
            run(plan, bad, rt)


def test_retrieve_dedupes_and_tags_provenance():
    rt = runtime()
    state = base_state(rt)
    update = run(retrieve, state, rt)
    assert set(update["pool"]) == {"a1", "a2", "a3"}
    a1 = update["pool"]["a1"]
    assert len(a1.provenance) == len(state["queries"]) and a1.provenance[0].round == 1
    assert update["round"] == 1 and update["queries"] == [] and update["usage"].source_calls == len(state["queries"])
    assert update["decisions"][-1].next == "rerank"


def test_a_record_found_again_joins_the_pool_once():
    """The pool update carries what was found; the state's reducer merges it with the pool once (it used to be
    merged in the node and again by the reducer, doubling the pool's provenance on every round)."""
    rt = runtime()
    state = base_state(rt)
    first = run(retrieve, state, rt)
    pool = merge_records(state.get("pool"), first["pool"])
    second = run(retrieve, {**state, "pool": pool}, rt)
    pool = merge_records(pool, second["pool"])
    assert len(pool["a1"].provenance) == 2 * len(state["queries"])


def test_retrieve_reports_a_failing_source_and_continues():
    rt = runtime(sources_override=[ListSource(RECORDS), ListSource([], name="broken", fail=True)])
    update = run(retrieve, base_state(rt), rt)
    assert update["pool"] and update["usage"].source_failures["broken"] >= 1
    assert any("broken" in n for n in update["notes"])


def test_rerank_keeps_top_k_with_per_hypothesis_guarantee():
    rt = runtime(rerank_top_k=2)
    state = base_state(rt)
    state.update(run(retrieve, state, rt))
    update = run(rerank, state, rt)
    assert len(update["ranked"]) == 2 and update["decisions"][-1].next == "hypothesize"
    state.update(
        update,
        hypotheses=[Hypothesis(id="H1", text="Statins decreases muscle pain compared with placebo")],
        phase="discrimination",
    )
    update = run(rerank, state, rt)
    assert "a3" in [p.record_id for p in update["ranked"]]
    assert update["decisions"][-1].next == "court"


def test_hypothesize_claim_and_negation_and_open_evidence():
    rt = runtime()
    state = base_state(rt)
    state.update(run(retrieve, state, rt))
    state.update(run(rerank, state, rt))
    update = run(hypothesize, state, rt)
    assert [h.polarity for h in update["hypotheses"]] == [1, -1]
    open_state = base_state(rt, question="What side effects do statins cause?")
    open_state.update(run(retrieve, open_state, rt))
    open_state.update(run(rerank, open_state, rt))
    hyps = run(hypothesize, open_state, rt)["hypotheses"]
    assert 1 <= len(hyps) <= 4 and all(h.origin == "evidence" for h in hyps)
    assert len({h.text for h in hyps}) == len(hyps)


def test_discriminate_caps_and_skips_sent_queries():
    rt = runtime(queries_per_round=2)
    hyps = [
        Hypothesis(id="H1", text="Statins increase muscle pain", claim="Statins increase muscle pain"),
        Hypothesis(id="H2", text="Statins decrease muscle pain", claim="Statins decrease muscle pain"),
    ]
    update = run(
        discriminate,
        {"question": "q?", "hypotheses": hyps, "sent_queries": [Query(text="Statins increase muscle pain")]},
        rt,
    )
    assert len(update["queries"]) <= 2 and all(q.text != "Statins increase muscle pain" for q in update["queries"])
    assert update["discrimination_rounds"] == 1
    off = runtime(enable_discrimination=False)
    assert run(discriminate, {"question": "q?", "hypotheses": hyps}, off)["queries"] == []


def test_citation_hop_expands_and_filters():
    linked = [
        record("c1", "Follow-up statin study", "Statins increases muscle pain in a follow-up.", year=2015),
        record("c2", "Old obscure study", "Old statement.", year=2005, citation_count=3),
    ]
    rt = runtime(sources_override=[ListSource(RECORDS, neighbours={"a1": linked})])
    state = base_state(rt)
    state.update(run(retrieve, state, rt), ranked=[Passage(record_id="a1", text="t", score=1.0)])
    update = run(citation_hop, state, rt)
    assert "c1" in update["pool"] and "c2" not in update["pool"]
    assert [p.via for p in update["pool"]["c1"].provenance] == ["citation_hop"] and update[
        "hops_done"
    ] == 1  # tagged once
    none = runtime()
    skipped = run(citation_hop, {**state}, none)
    assert "no configured source has a citation graph" in skipped["notes"][0]


def _courted(rt):
    state = base_state(rt)
    state.update(run(retrieve, state, rt))
    state.update(run(rerank, state, rt))
    state.update(run(hypothesize, state, rt))
    state.update(run(court, state, rt))
    return state


def test_court_ledger_scores_and_margin():
    state = _courted(runtime())
    h1, h2 = state["hypotheses"]
    assert h1.support > h1.contradiction and h1.score > h2.score
    assert {e.stance for e in state["ledger"] if e.hypothesis_id == "H1"} >= {"SUPPORT"}
    assert sum(e.stance == "SUPPORT" for e in state["ledger"] if e.hypothesis_id == "H1") <= 4
    assert sum(e.stance == "CONTRADICT" for e in state["ledger"] if e.hypothesis_id == "H1") <= 2
    assert 0 <= state["margin"] <= 1
    quantitative = [e for e in state["ledger"] if "95% CI" in e.text]
    assert quantitative and quantitative[0].weight >= 1.5
    assert margin_of([1.0, 1.0]) == 0.0 and margin_of([3.0, 1.0]) == pytest.approx(0.5)


class HedgingStance:
    """A small judge's reading of a finding: the right side likelier than the other, NEUTRAL still the argmax."""

    name = "hedging"

    async def judge(self, pairs):
        def probabilities(passage):
            text = passage.lower()
            if "increases" in text:
                return (0.40, 0.05, 0.55)
            if "decreases" in text:
                return (0.05, 0.40, 0.55)
            return (0.05, 0.05, 0.90)

        return [
            StanceResult.from_probabilities(("SUPPORT", "CONTRADICT", "NEUTRAL"), probabilities(p)) for _, p in pairs
        ]


def test_a_side_below_the_argmax_counts_once_it_reaches_the_side_floor():
    hedged = StanceResult.from_probabilities(("SUPPORT", "CONTRADICT", "NEUTRAL"), (0.4, 0.05, 0.55))
    assert hedged.stance == "NEUTRAL"
    assert hedged.side_taken(0.5, 0.35) == ("SUPPORT", 0.4) and hedged.side_taken(0.5, 0.5) == ("NEUTRAL", 0.55)
    assert StanceResult(stance="SUPPORT", confidence=0.45).side_taken(0.5, 0.3) == (
        "NEUTRAL",
        0.45,
    )  # no probabilities: argmax rule only

    def courted(**settings):
        name = unique_backend_name()
        register_backend(name, make_backend([ListSource(RECORDS)], stance=HedgingStance()))
        return _courted(Runtime(context=Context(backend=name, enable_relevance_gate=False, **settings)))

    strict, floored = (
        courted(stance_side_floor=0.5, decisive_confidence=0.0),
        courted(stance_side_floor=0.35, decisive_confidence=0.0),
    )
    assert strict["hypotheses"][0].verdict.value == "INSUFFICIENT" and not any(
        e.stance == "SUPPORT" for e in strict["ledger"]
    )
    claim = floored["hypotheses"][0]
    assert claim.verdict.value == "SUPPORTED" and claim.support > 0
    assert {e.confidence for e in floored["ledger"] if e.stance == "SUPPORT"} == {0.4}
    # by default a verdict also needs one confident reading: these weak readings count in the score, and decide nothing
    weak = courted(stance_side_floor=0.35)["hypotheses"][0]
    assert weak.support == claim.support and weak.verdict.value == "INSUFFICIENT"


class ConfidentOnOneSentence:
    """Weak support from every passage but one, which it reads confidently: the sentence that decides."""

    name = "one-confident"

    def __init__(self, decisive_text: str):
        self.decisive_text = decisive_text

    async def judge(self, pairs):
        return [
            StanceResult.from_probabilities(
                ("SUPPORT", "CONTRADICT", "NEUTRAL"),
                (0.9, 0.02, 0.08) if self.decisive_text in passage else (0.55, 0.05, 0.4),
            )
            for _, passage in pairs
        ]


def test_a_verdict_rests_on_one_confident_finding_and_a_tentative_one_takes_no_side():
    tentative = record(
        "a6",
        "Statin pain hypothesis",
        "Statins increase muscle pain in adults, but these effects require further investigation.",
    )

    def courted(decisive_text, **settings):
        name = unique_backend_name()
        register_backend(
            name, make_backend([ListSource(RECORDS + [tentative])], stance=ConfidentOnOneSentence(decisive_text))
        )
        return _courted(Runtime(context=Context(backend=name, enable_relevance_gate=False, **settings)))

    assert courted("older adults (OR 1.8")["hypotheses"][0].verdict.value == "SUPPORTED"
    assert (
        courted("no such sentence")["hypotheses"][0].verdict.value == "INSUFFICIENT"
    )  # a pile of weak on-topic readings is not a finding
    assert courted("no such sentence", decisive_confidence=0.0)["hypotheses"][0].verdict.value == "SUPPORTED"
    hedged = courted("require further investigation")
    assert hedged["hypotheses"][0].verdict.value == "INSUFFICIENT"
    assert not any(e.record_id == "a6" and e.stance != "NEUTRAL" for e in hedged["ledger"])


class GullibleStance:
    """A judge that reads every passage as support: what a small judge does with a passage on another outcome."""

    name = "gullible"

    async def judge(self, pairs):
        return [StanceResult(stance="SUPPORT", confidence=0.9) for _ in pairs]


def test_a_record_on_another_outcome_takes_no_side():
    cholesterol = record("a5", "Statin therapy and LDL cholesterol", "Statins increases LDL clearance in 3,000 adults.")

    def courted(**settings):
        name = unique_backend_name()
        register_backend(name, make_backend([ListSource([*RECORDS, cholesterol])], stance=GullibleStance()))
        return _courted(Runtime(context=Context(backend=name, enable_relevance_gate=False, support_cap=20, **settings)))

    checked, unchecked = courted(), courted(enable_aspect_check=False)
    sides = lambda state: {e.record_id for e in state["ledger"] if e.hypothesis_id == "H1" and e.stance == "SUPPORT"}  # noqa: E731
    assert "a5" in sides(unchecked)  # without the check the gullible judge's reading stands
    assert sides(checked) == sides(unchecked) - {"a5"} and {"a1", "a2", "a3"} <= sides(checked)
    assert any(e.record_id == "a5" and e.stance == "NEUTRAL" for e in checked["ledger"] if e.hypothesis_id == "H1")
    assert any("aspect check" in note and "a5" in note for note in checked["notes"])


def test_at_passage_scope_a_sentence_on_another_outcome_takes_no_side_though_its_record_names_the_claims_elsewhere():
    # seen: "Statins increase the risk of type 2 diabetes" contradicted by "... statin use was associated with improved
    # survival and large reductions in the risk of major cardiovascular events", from an abstract listing diabetes
    trial = record(
        "a6",
        "Statin use in primary prevention",
        "Muscle pain was the commonest adverse effect.",
        "Statin use reduced cardiovascular events by 25%.",
    )

    def sides(**settings):
        name = unique_backend_name()
        register_backend(name, make_backend([ListSource([*RECORDS, trial])], stance=GullibleStance()))
        state = _courted(
            Runtime(context=Context(backend=name, enable_relevance_gate=False, support_cap=20, **settings))
        )
        return {e.text: e.stance for e in state["ledger"] if e.hypothesis_id == "H1" and e.record_id == "a6"}, state[
            "notes"
        ]

    by_passage, notes = sides(aspect_scope="passage")
    by_record, _ = sides()
    assert (
        by_record["Statin use reduced cardiovascular events by 25%."] == "SUPPORT"
    )  # the record names statins and muscle pain
    assert (
        by_passage["Statin use reduced cardiovascular events by 25%."] == "NEUTRAL"
    )  # the sentence names no muscle pain
    assert by_passage["Muscle pain was the commonest adverse effect."] == "SUPPORT"  # its title names the statin
    assert any("aspect check" in note and "a6" in note for note in notes)


def test_court_relevance_decay_discounts_lower_ranked_records():
    assert (
        relevance_weight(0, 2.0) == 1.0
        and relevance_weight(1, 2.0) == pytest.approx(0.25)
        and relevance_weight(4, 0.0) == 1.0
    )
    flat, decayed = _courted(runtime(relevance_decay=0.0)), _courted(runtime(relevance_decay=2.0))
    rank_of = {p.record_id: i for i, p in enumerate(decayed["ranked"])}
    flat_weight = {(e.record_id, e.sentence_index): e.weight for e in flat["ledger"] if e.hypothesis_id == "H1"}
    decayed_entries = [
        e for e in decayed["ledger"] if e.hypothesis_id == "H1" and (e.record_id, e.sentence_index) in flat_weight
    ]
    assert decayed_entries and any(rank_of[e.record_id] > 0 for e in decayed_entries)
    for e in decayed_entries:
        assert e.weight == pytest.approx(
            flat_weight[(e.record_id, e.sentence_index)] * (rank_of[e.record_id] + 1) ** -2.0
        )


def test_mcq_options_use_their_own_relevance_decay():
    settings = Context(
        relevance_decay=2.0, option_relevance_decay=0.0, enable_quantitative_weight=False, enable_triangulation=False
    )
    passage, rec = Passage(record_id="a4", text="Galaxies rotate faster than expected."), RECORDS[3]
    claim, option = (
        Hypothesis(id="H1", text="c", origin="claim"),
        Hypothesis(id="H1", text="o", origin="option", option_index=0),
    )
    assert passage_weight(passage, rec, claim, settings, [], rank=1) == pytest.approx(0.25)
    assert passage_weight(passage, rec, option, settings, [], rank=1) == pytest.approx(1.0)


def test_a_whole_section_takes_its_label_weight():
    settings = Context(relevance_decay=0.0, enable_quantitative_weight=False, enable_triangulation=False)
    sentences = [
        "BACKGROUND Galaxies are old.",
        "Their rotation is puzzling.",
        "RESULTS Galaxies rotate faster than expected.",
    ]
    rec = RECORDS[3].model_copy(update={"sentences": sentences})
    claim = Hypothesis(id="H1", text="c", origin="claim")
    weights = [passage_weight(p, rec, claim, settings, [], rank=0) for p in sentence_passages([rec])]
    assert weights == pytest.approx([0.5, 0.5, 1.0])


STRUCTURED = record(
    "s1",
    "Statin trial",
    "BACKGROUND: Statin side effects are debated.",
    "METHODS: We followed 300 adults.",
    "RESULTS: Muscle pain was reported in the statin group.",
    "It increases with dose (OR 1.8).",
    "Liver enzymes were normal.",
)


def test_section_windows_stay_inside_a_section_and_skip_unstructured_abstracts():
    windows = section_window_passages([STRUCTURED, RECORDS[0]])
    assert [(w.record_id, w.sentence_index, w.sentence_end, w.section) for w in windows] == [("s1", 2, 5, "results")]
    assert windows[0].text == " ".join(STRUCTURED.sentences[2:5])


def test_the_court_judges_section_windows_unless_turned_off():
    def ledger_texts(**settings):
        state = _courted(runtime(sources_override=[ListSource([STRUCTURED])], **settings))
        return {
            e.text: (e.sentence_index, e.sentence_end)
            for e in state["ledger"]
            if e.hypothesis_id == "H1" and e.stance == "SUPPORT"
        }

    window = " ".join(STRUCTURED.sentences[2:5])
    assert window not in ledger_texts(court_section_windows=False)
    assert ledger_texts()[window] == (2, 5)  # the entry spans the window's sentences


def test_the_verdict_needs_the_configured_weight_of_evidence():
    claim = Hypothesis(id="H1", text="c", origin="claim")
    entries = [
        LedgerEntry(hypothesis_id="H1", record_id="a1", stance="SUPPORT", confidence=0.6, weight=0.5, text="t"),
        LedgerEntry(hypothesis_id="H1", record_id="a3", stance="CONTRADICT", confidence=0.6, weight=0.5, text="u"),
    ]
    default, lenient = Context(), Context(verdict_min_evidence=0.25, decisive_confidence=0.0)
    assert score_hypothesis(claim, entries[:1], default)[0].verdict == "INSUFFICIENT"  # 0.3 < 0.5
    assert score_hypothesis(claim, entries[:1], lenient)[0].verdict == "SUPPORTED"
    assert score_hypothesis(claim, entries[1:], lenient)[0].verdict == "CONTRADICTED"


def test_synthesize_checks_citations_in_code():
    draft = Draft(
        answer="x",
        sentences=[CitedSentence(text="ok", citations=["a1", "ghost"]), CitedSentence(text="bad", citations=["ghost"])],
    )
    checked, notes = check_citations(draft, {"a1"})
    assert [s.citations for s in checked.sentences] == [["a1"]] and len(notes) == 3
    state = _courted(runtime())
    update = run(synthesize, state, runtime())
    assert update["draft"].sentences and all(set(s.citations) <= set(state["pool"]) for s in update["draft"].sentences)


def test_verify_claims_labels_each_claim_from_its_dossier():
    """The scripted judge reads 'increases' as support and 'decreases' as refutation, whatever the claim says."""
    rt = runtime()
    state = _courted(rt)
    state.update(run(synthesize, state, rt))
    update = run(verify_claims, state, rt)
    by_quoted = {c.sources[0]: c for c in update["claims"]}
    # each claim's own source is its first evidence; the other records are judged against it: a2 agrees, a3
    # ("decreases") refutes
    assert {rid: (c.verdict, c.supporting, c.refuting, c.independent_sources) for rid, c in by_quoted.items()} == {
        "a1": (ClaimVerdict.CONTESTED, ["a1", "a2"], ["a3"], 2),
        "a2": (ClaimVerdict.CONTESTED, ["a2", "a1"], ["a3"], 2),
        # the answer's quote of a3 itself: the scripted judge reads its "decreases" as against itself, but a quote word
        # for word from its record is faithful by construction (agent/scoring/faithfulness.py), so it is kept and
        # checked
        "a3": (ClaimVerdict.VERIFIED, ["a3", "a1", "a2"], [], 3),
    }
    decision = update["decisions"][-1]
    assert (decision.at, decision.next, decision.contested) == ("verify_claims", "target_claims", 2)


def test_a_claim_is_verified_by_enough_independent_sources_and_no_strong_refutation():
    def entry(rid, stance, conf):
        return LedgerEntry(hypothesis_id="claim", record_id=rid, text=rid, stance=stance, confidence=conf)

    records = {r.id: r for r in RECORDS}  # a1 and a3 have no DOI, a2 has one: three independent sources
    support = [entry("a1", "SUPPORT", 0.9), entry("a2", "SUPPORT", 0.9)]
    settings = Context().verification
    assert verdict_for(support, records, settings)[0] == ClaimVerdict.VERIFIED
    assert verdict_for(support + [entry("a3", "CONTRADICT", 0.7)], records, settings)[0] == ClaimVerdict.VERIFIED
    assert verdict_for(support + [entry("a3", "CONTRADICT", 0.85)], records, settings)[0] == ClaimVerdict.CONTESTED
    assert verdict_for(support, records, Context(claim_min_independent=3).verification)[0] == ClaimVerdict.UNVERIFIED
    assert verdict_for([], records, settings)[0] == ClaimVerdict.UNVERIFIED


def test_target_claims_queries_contested_only():
    claims = [
        Claim(text="Statins increase muscle pain in adults", verdict=ClaimVerdict.CONTESTED),
        Claim(text="Pain was reported by 12% of patients", verdict=ClaimVerdict.VERIFIED),
    ]
    update = run(target_claims, {"claims": claims, "escalations": 0}, runtime())
    assert [q.intent for q in update["queries"]] == ["claim_literal", "claim_negation"] and update["escalations"] == 1


def test_report_insufficient_when_nothing_retrieved():
    rt = runtime(sources_override=[ListSource([])])
    state = base_state(rt, started_at=time.time(), usage=Usage())
    answer = run(report, state, rt)["answer"]
    assert answer.status == Status.INSUFFICIENT_EVIDENCE and "Insufficient evidence" in answer.answer
    assert answer.citations == []


@dataclass(frozen=True)
class FixedCalibrator:
    """Scripted probabilities, so the test pins what report does with them."""

    leading_p: float
    abstention_p: float
    name: str = "fixed"

    def leading(self, score: float) -> float:
        return self.leading_p

    def abstention(self, score: float) -> float:
        return self.abstention_p


def _reported(calibrator, **settings):
    rt = runtime(calibrator_override=calibrator, **settings)
    state = _courted(rt)
    state.update(run(synthesize, state, rt), started_at=time.time(), usage=Usage())
    return run(report, state, rt)["answer"]


def test_report_abstains_on_the_leading_confidence_and_reports_the_abstentions():
    answered = _reported(FixedCalibrator(0.62, 0.4))
    assert answered.status == Status.ANSWERED and not answered.abstained
    assert answered.confidence == answered.leading_confidence == 0.62
    abstained = _reported(FixedCalibrator(0.25, 0.7))
    assert abstained.status == Status.INSUFFICIENT_EVIDENCE and abstained.abstained
    assert abstained.confidence == 0.7 and abstained.leading_confidence == 0.25
    assert "leading answer's confidence is 0.25" in abstained.answer
    assert _reported(FixedCalibrator(0.25, 0.7), abstain_threshold=0.2).status == Status.ANSWERED


def test_rerank_demotes_near_duplicate_documents():
    twin = record(
        "a1b",
        "Statins increase muscle pain in adults",
        "Statins increases muscle pain in older adults (OR 1.8, 95% CI 1.2-2.6).",
        "Pain was reported by 12% of patients.",
    )
    rt = runtime(sources_override=[ListSource(RECORDS + [twin])])
    state = base_state(rt)
    state.update(run(retrieve, state, rt))
    demoted = {p.record_id: p.score for p in run(rerank, state, rt)["ranked"]}
    off = runtime(sources_override=[ListSource(RECORDS + [twin])], enable_novelty_demotion=False)
    plain = {p.record_id: p.score for p in run(rerank, state, off)["ranked"]}
    assert {"a1", "a1b"} <= set(demoted)
    assert min(demoted["a1"], demoted["a1b"]) < min(plain["a1"], plain["a1b"])  # the near-copy is demoted
    assert max(demoted["a1"], demoted["a1b"]) == max(plain["a1"], plain["a1b"])  # the original keeps its score


def test_a_record_counts_on_one_side_of_a_claim_only():
    def entry(rid, stance, conf):
        return LedgerEntry(hypothesis_id="claim", record_id=rid, text=f"{rid} {stance}", stance=stance, confidence=conf)

    entries = [
        entry("a", "SUPPORT", 0.9),
        entry("b", "CONTRADICT", 0.85),
        entry("a", "CONTRADICT", 0.7),
        entry("b", "SUPPORT", 0.6),
        entry("a", "NEUTRAL", 0.5),
        entry("c", "CONTRADICT", 0.55),
    ]
    kept = one_side_per_record(entries)
    assert [(e.record_id, e.stance) for e in kept] == [
        ("a", "SUPPORT"),
        ("b", "CONTRADICT"),
        ("a", "NEUTRAL"),
        ("c", "CONTRADICT"),
    ]


def test_verify_claims_checks_each_canonical_claim_once():
    rt = runtime()
    state = _courted(rt)
    duplicate = CitedSentence(text=state["ledger"][0].text + " ", citations=[state["ledger"][0].record_id])
    state["draft"] = Draft(
        answer="x",
        sentences=[CitedSentence(text=state["ledger"][0].text, citations=[state["ledger"][0].record_id]), duplicate],
    )
    claims = run(verify_claims, state, rt)["claims"]
    assert len(claims) == 1


def test_a_claim_is_checked_against_records_other_than_those_it_quotes():
    rt = runtime()
    state = _courted(rt)
    quoted = CitedSentence(
        text='Statins increase muscle pain reports: "Statins increases muscle pain in older adults (OR 1.8)."',
        citations=["a1"],
    )
    state["draft"] = Draft(answer="x", sentences=[quoted])
    [claim] = run(verify_claims, state, rt)["claims"]
    assert claim.sources == ["a1"]
    assert claim.dossier and "a1" not in {e.record_id for e in claim.dossier}
    assert claim.supporting[0] == "a1" and "a1" not in claim.refuting  # its own source is its first evidence


def test_non_findings_are_recognised():
    from agent.common.text import is_finding, strip_section_label

    assert not is_finding("OBJECTIVE To determine if hypoglycemic episodes are associated with dementia.")
    assert not is_finding("Whether minor hypoglycemic episodes increase risk of dementia is unknown.")
    assert not is_finding("Does aspirin work?")
    assert is_finding("CONCLUSIONS Severe hypoglycemia was associated with a greater risk of dementia.")
    # what a review discusses and what no one has studied are about the literature, not findings (seen in the demo
    # answer as "Supports" and "Contradicts")
    assert not is_finding(
        "Here, we discuss the updated understanding of the antigluconeogenic action of metformin in the liver."
    )
    assert not is_finding("This review summarizes the human studies of the Rb-p16 pathway in lung carcinogenesis.")
    assert not is_finding(
        "In this review, we will summarize the mechanisms that link vitamin D and neural tube defects."
    )
    assert not is_finding(
        "Although acute hypoglycemia may be associated with cognitive impairment in children, no studies to date "
        "have "
        "evaluated whether hypoglycemia is a risk factor for dementia in older patients."
    )
    assert not is_finding("The impact of the SNS on the immune modulation of social defeat has not been examined.")
    assert not is_finding("However, little is known about the molecules that anchor these complexes to centrosomes.")
    # seen as the answer line to "How does metformin lower blood glucose?"
    assert not is_finding(
        "Metformin has been the mainstay of therapy for diabetes mellitus for many years; however, the "
        "mechanistic "
        "aspects of metformin action remained ill-defined."
    )
    assert not is_finding("The function of this domain is still poorly understood.")
    assert not is_finding(
        "Oxygen glucose deprivation was performed on bEND.3 cells to explore the mechanisms of metformin in "
        "inhibiting inflammatory signaling pathways."
    )  # the next answer line to the same question
    assert is_finding("Metformin was used to explore glucose uptake and increased it twofold.")
    assert not is_finding(
        "Metformin (200 mg/kg) was administrated for up to 14 days."
    )  # quoted as "Qualifies" under an MCQ
    assert not is_finding(
        "METHODS An extensive literature search was conducted from both Medline and Ovid (1965-98) using the "
        "following "
        "keywords: 'Type 2 diabetes mellitus', 'biguanides', 'metformin-associated lactic "
        "acidosis'."
    )  # likewise
    # the design of a trial, quoted as "Supports" under "(A) metformin" for the first-line drug of type 2 diabetes (stop
    # 33)
    assert not is_finding(
        "A 2-period crossover study design was used with 2 treatment sequences, either placebo in period 1 "
        "followed by GIMM in period 2 or vice versa. Study periods lasted for 2 weeks, "
        "with a 2-week washout period between."
    )
    assert is_finding("Metformin given for 14 days reduced infarct volume.")
    assert is_finding(
        "We propose that HuR controls translation of a subset of target mRNAs by influencing lincRNA-p21 levels."
    )
    assert strip_section_label("RESULTS At least 1 episode was seen.") == "At least 1 episode was seen."
    # what was done is not what was found (the MCQ demo quoted the first as "Supports" metformin as first-line therapy)
    assert not is_finding(
        "During the first week, type 2 diabetes patients (T2D) who experienced metformin GI intolerance took "
        "500 mg metformin along with their assigned NM504 (GIMM) or placebo treatment with "
        "breakfast and with dinner."
    )
    assert not is_finding(
        "METHODS Ninety-three patients were randomized into a comprehensive group, a ziwuliuzhu group and a "
        "prozac group."
    )
    assert not is_finding(
        "We performed comprehensive DNA methylation profiling of promoter regions in aging mouse intestine."
    )
    assert is_finding("Patients who received metformin had a lower incidence of cancer (HR 0.63).")
    assert is_finding("We found that patients were randomized unevenly.")
    # seen as open answers' lines in evals.open_questions: what is not yet described, how studies were grouped, what
    # was tested for
    assert not is_finding(
        "How systemic signals are sensed by myeloid progenitors to regulate cell-fate determination has not been "
        "well described."
    )
    assert not is_finding(
        "Studies were grouped according to a priori categories on migraine and cardiovascular disease."
    )
    assert not is_finding(
        "We impute SNPs, classical HLA alleles and amino-acid residues within HLA proteins, and tested these for "
        "association to AS status."
    )
    assert is_finding(
        "Similar point mutations have not been identified through glioma genomic sequencing."
    )  # a SciFact rationale
    assert is_finding("We tested 40 SNPs and found an association with AS status.")
    assert not is_finding("Recently, we screened Piezo1 as a candidate TFF1-binding protein.")  # quoted as "Supports"
    assert not is_finding("Here we used multiphoton microscopy to visualize the dynamics of iNKT cells in lymph nodes.")
    assert is_finding("Here we used multiphoton microscopy and found that iNKT cells arrest in lymph nodes.")
    # the answer line and two candidates for "What are the risk factors for postpartum depression?"
    assert not is_finding(
        "Our objective was to test the hypothesis that nulliparous women with a history of miscarriage have an "
        "increased risk of depression during late pregnancy."
    )
    assert not is_finding(
        "Information was extracted on study characteristics, antenatal depression measurement, and other covariates."
    )
    assert not is_finding(
        "We systematically searched for studies that assessed association between perinatal factors and depression."
    )
    assert is_finding("Our results show that miscarriage increased the risk of depression.")
    assert is_finding(
        "139,195 self-harm incidents were recorded in 26,510 individual prisoners between 2004 and 2009."
    )  # a rationale


def test_only_known_section_labels_are_stripped():
    from agent.common.text import strip_section_label

    assert strip_section_label("HIV Infection rates rose in 2010.") == "HIV Infection rates rose in 2010."
    assert strip_section_label("Methods: we sampled 40 sites.") == "we sampled 40 sites."
    assert strip_section_label("ANALYSIS of 500 patients showed a rise.") == "ANALYSIS of 500 patients showed a rise."
    assert strip_section_label("Methods and results were compared.") == "Methods and results were compared."


@pytest.mark.parametrize(
    "sentence, label, body",
    [
        # seen quoted as "AND RELEVANCE Among cigarette smokers ..." and "AUTHORS' CONCLUSIONS NRT, bupropion ..."
        (
            "CONCLUSIONS AND RELEVANCE Among smokers, abstinence rose.",
            "conclusions and relevance",
            "Among smokers, abstinence rose.",
        ),
        ("AUTHORS' CONCLUSIONS NRT and varenicline help.", "authors' conclusions", "NRT and varenicline help."),
        (
            "DESIGN, SETTING, AND PARTICIPANTS Randomized trial.",
            "design, setting, and participants",
            "Randomized trial.",
        ),
        ("METHODOLOGY/PRINCIPAL FINDINGS We found a rise.", "methodology/principal findings", "We found a rise."),
        ("MAIN OUTCOMES AND MEASURES Death at one year.", "main outcomes and measures", "Death at one year."),
        ("Design, setting, and participants: a cohort.", "design, setting, and participants", "a cohort."),
        (
            "Conclusions and Relevance Antiviral treatment helped.",
            "conclusions and relevance",
            "Antiviral treatment helped.",
        ),
        # a long label needs no colon either (seen as an open answer:
        # "Eligibility criteria for selecting studies Eligible ...")
        (
            "Eligibility criteria for selecting studies Eligible studies examined adults.",
            "eligibility criteria for selecting studies",
            "Eligible studies examined adults.",
        ),
        (
            "Main outcome measures Incident cardiovascular disease.",
            "main outcome measures",
            "Incident cardiovascular disease.",
        ),
    ],
)
def test_the_labels_of_structured_abstracts_are_read_whole(sentence, label, body):
    from agent.common.text import strip_section_label
    from agent.scoring.chunking import structured_label

    assert (structured_label(sentence), strip_section_label(sentence)) == (label, body)


def test_a_joined_section_label_weighs_as_its_most_result_like_part():
    from agent.scoring.court import section_weight

    weights = Context().court.section_weights
    assert section_weight("patients and methods", weights) == 0.7
    assert section_weight("background and aims", weights) == 0.5
    assert section_weight("methods and results", weights) == 1.0
    assert section_weight("design, setting, and participants", weights) == 0.7
    assert section_weight("trial registration", weights) == 0.0
    assert section_weight(None, weights) == 1.0


@pytest.mark.parametrize(
    "question, options, mode, task",
    [
        ("Do statins increase muscle pain?", ["yes", "no"], "ask", "mcq"),
        ("Statins increase muscle pain", [], "ask", "claim"),
        (
            "Do statins increase muscle pain?",
            [],
            "ask",
            "polar",
        ),  # 'open' until stop 33: "task open" above a "Yes: ..."
        ("What do statins do to muscles?", [], "ask", "open"),
    ],
)
def test_a_run_stopped_before_its_plan_reports_the_task_it_was_asked(question, options, mode, task):
    state = {
        "question": question,
        "options": options,
        "mode": mode,
        "budget_stop": "wall_time: max_wall_time_s=1 reached",
    }
    answer = run(report, state, runtime())["answer"]
    assert (answer.status, answer.task, answer.question) == (Status.BUDGET_EXHAUSTED, task, question)


def test_a_passage_that_says_the_claim_itself_decides_however_the_judge_scores_it():
    claim = Hypothesis(
        id="H1", text="Plzf belongs to the POZ zinc-finger family of transcription factors.", origin="claim"
    )
    said = LedgerEntry(
        hypothesis_id="H1",
        record_id="a1",
        stance="SUPPORT",
        confidence=0.66,
        weight=1.0,
        text="The Plzf protein belongs to the POZ zinc-finger family of transcription factors.",
    )
    other = said.model_copy(update={"text": "Plzf inactivation results in patterning defects of the limb skeleton."})
    assert score_hypothesis(claim, [said], Context())[0].verdict == "SUPPORTED"
    assert score_hypothesis(claim, [other], Context())[0].verdict == "INSUFFICIENT"  # 0.66 < the decisive floor


def test_a_sentence_labelled_as_methods_or_aims_decides_nothing():
    """A SciFact validation claim ('Radioiodine treatment ... increases thyroid volume') was SUPPORTED at 0.74 by a
    'DESIGN Consecutive patients ... selected for radioactive iodine treatment' sentence: what was done is no result.
    The same reading under a results label, or under none, decides."""
    claim = Hypothesis(
        id="H1", text="Radioiodine treatment of non-toxic multinodular goitre increases thyroid volume.", origin="claim"
    )
    design = LedgerEntry(
        hypothesis_id="H1",
        record_id="a1",
        stance="SUPPORT",
        confidence=0.74,
        weight=1.0,
        text="DESIGN Consecutive patients with multinodular non-toxic goitre selected for radioactive iodine "
        "treatment and followed for a minimum of 12 months.",
    )
    result = design.model_copy(update={"text": "RESULTS Thyroid volume increased by 12% after radioiodine."})
    unlabelled = design.model_copy(update={"text": "Thyroid volume increased by 12% after radioiodine."})
    assert score_hypothesis(claim, [design], Context())[0].verdict == "INSUFFICIENT"
    assert score_hypothesis(claim, [result], Context())[0].verdict == "SUPPORTED"
    assert score_hypothesis(claim, [unlabelled], Context())[0].verdict == "SUPPORTED"
