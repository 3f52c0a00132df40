"""Answers a reader can trust (issue 16): the relevance gate declines off-topic evidence, the answer is one
sentence with its confidence plus distinct evidence statements whose roles match the judge."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from agent.answer.compose import ROLES
from agent.backend import Backend, register_backend
from agent.config import Context
from agent.interfaces import Plan
from agent.nodes.court import court
from agent.nodes.report import report
from agent.nodes.synthesize import synthesize
from agent.reasoners.extractive import ExtractiveReasoner
from agent.records import Hypothesis, LedgerEntry, Status, Usage
from agent.scoring.calibration import RawScore
from agent.scoring.relevance import RelevanceGate, RelevanceModel
from tests.fakes import (
    BagOfWordsEmbedder,
    FixedStance,
    ListSource,
    OverlapReranker,
    RuleStance,
    make_backend,
    record,
    unique_backend_name,
)
from tests.nodes.test_nodes import RECORDS, _courted, base_state, run

GATE = RelevanceModel(
    weights={"best_cosine": 10.0, "coverage": 0.0}, intercept=-4.0, claim_floor=0.5
)  # passes at cosine >= 0.4


def gated_runtime(records, **settings):
    name = unique_backend_name()
    embedder = BagOfWordsEmbedder()

    def factory(context, documents=None):
        return Backend(
            name="scripted",
            sources=[ListSource(records)],
            embedder=embedder,
            reranker=OverlapReranker(),
            stance=RuleStance(),
            reasoner=ExtractiveReasoner(embedder),
            calibrator=RawScore(),
            relevance=RelevanceGate(embedder, GATE),
        )

    register_backend(name, factory)
    return SimpleNamespace(context=Context(backend=name, **settings))


def _answer(rt, question):
    state = _courted(rt) if question is None else None
    if state is None:
        state = base_state(rt, question=question)
        from agent.nodes.hypothesize import hypothesize
        from agent.nodes.rerank import rerank
        from agent.nodes.retrieve import retrieve

        for node in (retrieve, rerank, hypothesize, court):
            state.update(run(node, state, rt))
    state.update(run(synthesize, state, rt), started_at=time.time(), usage=Usage())
    return state, run(report, state, rt)["answer"]


def test_the_gate_declines_evidence_that_does_not_address_the_question():
    aspirin = [
        record(
            "asp",
            "Aspirin and colorectal cancer",
            "Aspirin reduces colorectal cancer risk in trials.",
            "Regular aspirin use increases bleeding risk.",
        )
    ]
    rt = gated_runtime(aspirin)
    state, answer = _answer(rt, "Does aspirin increase bleeding risk in trials?")
    assert state["relevance"].relevant and answer.status == Status.ANSWERED
    state, answer = _answer(rt, "Does liquid nitrogen boil faster than water in colorectal labs?")
    assert state["relevance"].relevant is False and state["ledger"] == []
    assert state["decisions"][-1].next == "synthesize" and "relevance gate" in state["decisions"][-1].reason
    assert answer.status == Status.INSUFFICIENT_EVIDENCE and answer.abstained and answer.verdict == "NOT_ENOUGH_INFO"
    assert answer.answer.startswith("Insufficient evidence: the retrieved evidence does not address the question")
    assert "[asp]" in answer.answer and answer.relevance["best_record"] == "asp"
    off = gated_runtime(aspirin, enable_relevance_gate=False)
    assert _answer(off, "Does liquid nitrogen boil faster than water in colorectal labs?")[0]["relevance"] is None


def test_an_mcq_whose_stem_names_no_topic_is_gated_on_its_options():
    """ "Which statement is supported by the literature?" shares no words with any record: the gate reads the
    options."""
    from agent.nodes.hypothesize import hypothesize
    from agent.nodes.plan import plan
    from agent.nodes.rerank import rerank
    from agent.nodes.retrieve import retrieve

    aspirin = [
        record(
            "asp",
            "Aspirin and colorectal cancer",
            "Aspirin reduces colorectal cancer risk in trials.",
            "Regular aspirin use increases bleeding risk.",
        )
    ]
    rt = gated_runtime(aspirin)
    state = {
        "question": "Which statement is supported by the literature?",
        "mode": "ask",
        "options": [
            "Aspirin reduces colorectal cancer risk in trials",
            "Aspirin has no effect on colorectal cancer risk",
        ],
    }
    state.update(run(plan, state, rt))
    for node in (retrieve, rerank, hypothesize, court):
        state.update(run(node, state, rt))
    assert state["plan"].task == "mcq" and state["relevance"].relevant, state["relevance"]
    assert state["ledger"], "the options' evidence is judged"


def test_the_answer_is_one_sentence_with_its_confidence_and_distinct_evidence():
    structured = record(
        "s1",
        "Statin trial",
        "BACKGROUND: Statin side effects are debated.",
        "METHODS: We followed 300 adults.",
        "RESULTS: Muscle pain increases with statin dose in the statin group.",
        "It increases with dose (OR 1.8).",
        "Liver enzymes were normal.",
    )
    from tests.nodes.test_nodes import runtime

    rt = runtime(sources_override=[ListSource(RECORDS + [structured])])
    state, answer = _answer(rt, None)
    verb = "indicates" if answer.confidence >= 0.75 else "suggests" if answer.confidence >= 0.6 else "weakly suggests"
    assert (
        answer.answer
        == f"Yes: the evidence {verb} that statins increase muscle pain (confidence {answer.confidence:.2f})."
    )
    texts = [s.text for s in answer.sentences]
    assert 1 <= len(texts) <= 4
    quotes = [t.split('"')[1].lower() for t in texts]
    for i, a in enumerate(quotes):  # no statement repeated, or contained in another (a window and its sentences once)
        assert all(a not in b for j, b in enumerate(quotes) if j != i), quotes
        assert a.rstrip(".") != "statins increase muscle pain"  # nor the answer restated
    stance = {e.text: e.stance for e in state["ledger"] if e.hypothesis_id == state["draft"].selected_hypothesis}
    for sentence in answer.sentences:
        judged = next(
            s for text, s in stance.items() if sentence.text.split('"')[1].rstrip("…") in text.replace("RESULTS: ", "")
        )
        # a yes / no question's quotes are stated towards its claim; the winner here is the claim itself
        assert (sentence.role == "against_claim") == (judged == "CONTRADICT"), (sentence, judged)
        assert sentence.text.startswith(ROLES[sentence.role] + ": ")


def test_a_long_window_is_quoted_in_whole_sentences_with_the_omission_marked():
    from agent.answer.compose import QUOTE_CHARS, quote_of

    window = (
        "RESULTS Dementia was diagnosed in 1822 of 16667 patients (11%) during a follow-up of 27 years in the "
        "regional "
        "health plan, and hypoglycemia was diagnosed in 1465 of them (8.8%) over the same period of observation. "
        "Enrolment, baseline laboratory values and medications were recorded for each participant by "
        "trained staff at "
        "every one of the annual visits. Patients with severe hypoglycemia had a higher risk of "
        "dementia (HR 1.94)."
    )
    assert len(window) > QUOTE_CHARS
    quote = quote_of(window, "Hypoglycemia increases the risk of dementia")
    assert quote.endswith(
        "Patients with severe hypoglycemia had a higher risk of dementia (HR 1.94)."
    )  # the finding is kept
    assert "[…] Patients with severe" in quote and "Enrolment" not in quote  # the sentence left out is marked
    assert len(quote) <= QUOTE_CHARS and "…" not in quote.replace("[…]", "") and not quote.startswith("RESULTS")
    assert quote_of("Short enough.", "anything") == "Short enough."
    # an open answer's line is its own finding; a long window holding it is quoted for its other sentences (seen:
    # the line "The number of cases of cervical cancer was small, ..." quoted again word for word under it)
    finding = "Patients with severe hypoglycemia had a higher risk of dementia (HR 1.94)."
    again = quote_of(window, finding)
    assert finding not in again and again.startswith("Dementia was diagnosed in 1822") and len(again) <= QUOTE_CHARS
    # a window's sentence that states no finding is no quote (seen under an open answer as 'Supports: "... The aim of
    # our retrospective study was to document the practice ..."')
    aims = (
        "With increased survival, more patients may be candidates for repeat whole brain radiotherapy. The aim "
        "of our "
        "retrospective study was to document the practice at our hospital."
    )
    assert (
        quote_of(aims, "Whole brain radiotherapy")
        == "With increased survival, more patients may be candidates for repeat whole brain radiotherapy."
    )
    middle = "Statins lowered LDL by 30%. We used mass spectrometry to measure sterols. Statins raised HDL by 5%."
    assert quote_of(middle, "statins") == "Statins lowered LDL by 30%. […] Statins raised HDL by 5%."


def test_a_quote_that_points_back_is_given_the_sentence_it_points_to():
    from agent.answer.compose import evidence_statement

    source = record(
        "h",
        "Hepatic progenitor transplantation",
        "Human liver progenitors were expanded as organoids.",
        "They also engraft as cholangiocytes into bile ducts of injured mice.",
        "Controls did not.",
    )
    pointing = LedgerEntry(
        hypothesis_id="H1",
        record_id="h",
        stance="SUPPORT",
        confidence=0.9,
        sentence_index=1,
        text="They also engraft as cholangiocytes into bile ducts of injured mice.",
    )
    quote = evidence_statement(pointing, {"h": source}).text
    assert '"Human liver progenitors were expanded as organoids. They also engraft' in quote  # who "they" are
    plain = pointing.model_copy(update={"sentence_index": 2, "text": "Controls did not."})
    assert '"Controls did not."' in evidence_statement(plain, {"h": source}).text
    # a paper speaking of itself, or an expletive "it", needs nothing before it
    from agent.common.text import opens_on_reference

    assert opens_on_reference("Of these, 62 patients (51.7%) were given metoclopramide.")
    assert not opens_on_reference("This prospective, randomized, double-blind study compared two blocks.")
    assert not opens_on_reference("It is well established that schizophrenia alters brain structure.")


def test_a_non_significant_estimate_only_qualifies_a_claimed_effect():
    from agent.answer.compose import evidence_statement

    trial = record(
        "t",
        "Aspirin in hereditary colorectal cancer",
        "Time to first colorectal cancer showed a hazard ratio (HR) of 0·63 (95% CI 0·35-1·13, p=0·12).",
    )
    entry = LedgerEntry(
        hypothesis_id="H1", record_id="t", stance="SUPPORT", confidence=0.9, sentence_index=0, text=trial.sentences[0]
    )
    effect = Hypothesis(id="H1", text="Aspirin reduces the risk of colorectal cancer", origin="claim")
    null = Hypothesis(
        id="H2",
        text="Aspirin does not reduce the risk of colorectal cancer",
        claim=effect.text,
        origin="negation",
        polarity=-1,
    )
    assert evidence_statement(entry, {"t": trial}, effect).role == "related"  # p = 0.12 shows no reduction: no side
    # it does support "no reduction", the claim's negation: against the claim as written
    assert (
        evidence_statement(entry.model_copy(update={"hypothesis_id": "H2"}), {"t": trial}, null).role == "against_claim"
    )
    significant = entry.model_copy(update={"text": "The hazard ratio was 0·63 (95% CI 0·45-0·83, p=0·001)."})
    assert evidence_statement(significant, {"t": trial}, effect).role == "supports_claim"


def test_an_open_answer_says_what_the_question_asks_that_its_records_never_mention():
    from agent.api import ask

    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)]))
    settings = dict(backend=name, max_claims=0, enable_relevance_gate=False)
    athletes = ask("What is the role of statins in muscle pain among athletes?", **settings)
    assert athletes.status == Status.ANSWERED and athletes.answer.endswith(
        "The records it rests on do not mention athletes."
    )
    assert "do not mention" not in ask("What is the role of statins in muscle pain?", **settings).answer
    # a claim, as a yes / no question, is told what its records leave out, the question's neighbouring words together
    # ("heart failure", not "heart or failure"; claims had no such note before stop 33)
    claim = ask("Statins increase muscle pain in patients with heart failure.", **settings)
    assert claim.task == "claim" and claim.answer.endswith("The records it rests on do not mention heart failure."), (
        claim.answer
    )
    # ... and only that, with the names it asks about: not the predicate, which records word their own way (a yes / no
    # question's answer said "do not mention aggravate, heart or failure" before stop 33; on PubMedQA's questions half
    # the answers carried such a note)
    polar = ask("Do statins aggravate muscle pain in patients with heart failure?", **settings)
    assert polar.task == "polar" and polar.answer.endswith("The records it rests on do not mention heart failure."), (
        polar.answer
    )
    from agent.answer.naming import unnamed_settings

    assert unnamed_settings("Does RTEL1 bind TRF2 in HeLa cells?", RECORDS, ["RTEL1", "TRF2", "HeLa"]) == [
        "HeLa cells",
        "RTEL1",
        "TRF2",
    ]
    from agent.answer.naming import unnamed_terms

    assert unnamed_terms("What is known about the mechanisms of IL-17 in psoriasis?", RECORDS) == ["IL-17", "psoriasis"]
    # a dose given in mg names "low-dose" (the answer said its aspirin trial did not mention low-dose); a name is not
    # split
    trial = record(
        "d1", "Aspirin and colorectal cancer: a randomised trial", "Aspirin 81 mg reduced the incidence of any adenoma."
    )
    assert unnamed_terms("Does low-dose aspirin reduce the risk of colorectal adenomas?", [trial]) == []
    assert unnamed_terms(
        "Does high-dose vitamin C prevent colds?", [record("c", "Vitamin C and colds", "Vitamin C shortened colds.")]
    ) == ["high-dose"]
    assert unnamed_terms(
        "Is IL-17 raised?", [record("i", "IL-6 in 17 patients", "IL-6 was raised in 17 patients.")]
    ) == ["IL-17"]
    # seen in evals.open_questions: "do not mention genetic" under "We propose DGKK as a major risk gene for
    # hypospadias", "do not mention take or part", "... compare": the kind of thing asked for and the question's own
    # verbs are no topic
    dgkk = [record("g", "DGKK and hypospadias", "We propose DGKK as a major risk gene for hypospadias.")]
    assert unnamed_terms("Which genetic variant is associated with the risk of hypospadias?", dgkk) == []
    assert unnamed_terms("How does DGKK take part in hypospadias?", dgkk) == []
    assert unnamed_terms("How does DGKK compare with HOXA13 in hypospadias?", dgkk) == ["HOXA13"]
    assert unnamed_terms("What causes hypospadias in twins?", dgkk) == ["twins"]  # no auxiliary: "causes" asks no kind
    # British and American spellings name the same thing ("do not mention anemia" under a quote about "anaemia")
    thal = [
        record(
            "h",
            "Thalassaemia and anaemia",
            "Alpha(+)-thalassaemia protects children against severe anaemia, haemoglobin loss and ischaemic tumours.",
        )
    ]
    assert (
        unnamed_terms("Does alpha-thalassemia protect against severe anemia, hemoglobin loss or ischemic tumors?", thal)
        == []
    )
    from agent.scoring.aspect import aspects_of, record_addresses

    assert record_addresses(aspects_of("Thalassemia protects against anemia."), thal[0])


def test_an_open_answer_whose_records_never_mention_a_name_the_question_asks_about_declines():
    """Seen as a user: "What is the role of TNF-alpha in rheumatoid arthritis?" was ANSWERED (0.49) with an IL-6
    finding and "The records it rests on do not mention TNF-alpha." An answer about something else is no answer."""
    from agent.api import ask

    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)]))
    settings = dict(backend=name, max_claims=0, enable_relevance_gate=False)
    named = ask("What is the role of HMGCR in statin muscle pain?", **settings)  # no record names HMGCR
    assert named.status == Status.INSUFFICIENT_EVIDENCE and named.abstained
    assert named.answer == (
        "Insufficient evidence: the records found do not mention HMGCR, which the question asks about; "
        "what they say is about something else."
    )
    assert (
        not named.sentences and not named.citations and not named.claims
    )  # no "Supports: ..." of an answer to another question
    athletes = ask(
        "What is the role of statins in muscle pain among athletes?", **settings
    )  # a common word: said, not declined
    assert athletes.status == Status.ANSWERED
    # two words no record mentions: "How does aspirin prevent blood clots?" was answered from a colorectal-cancer review
    liver = ask("How do statins cause liver damage?", **settings)
    assert (
        liver.status == Status.INSUFFICIENT_EVIDENCE
        and "do not mention liver damage, which the question asks about" in liver.answer
    ), liver.answer
    assert not liver.sentences and not liver.citations
    # ... unless a record it rests on is a bare title, which says little of what its paper covers (live sources)
    from agent.answer.naming import unaddressed_terms

    assert unaddressed_terms("How do statins cause liver damage?", ["liver damage"]) == ["liver damage"]
    assert unaddressed_terms("How do statins cause liver damage?", ["liver damage"], titles_only=True) == []
    from agent.answer.naming import unnamed_terms

    tnf = record("t", "TNF-α in arthritis", "TNF-α drives joint inflammation in rheumatoid arthritis.")
    assert (
        unnamed_terms("What is the role of TNF-alpha in rheumatoid arthritis?", [tnf]) == []
    )  # Greek letters spelled out
    # where a finding is claimed to hold ('in human embryos') is named only when one record names all of it: a rat
    # study that mentions "human" disease and a mouse-embryo study do not speak of human embryos (seen as a user)
    rat = record("r", "CRISPR in rats", "CRISPR/Cas9 corrects a mutation in a rat model of human retinal disease.")
    mouse = record("m", "Cas9 in mouse embryos", "Electroporation of Cas9 into mouse embryos.")
    human = record(
        "h", "Gene editing in human embryos", "CRISPR-Cas9 corrected a disease-causing mutation in human embryos."
    )
    asked = "Can CRISPR-Cas9 correct disease-causing mutations in human embryos?"
    assert unnamed_terms(asked, [rat, mouse]) == ["human embryos"] and unnamed_terms(asked, [human]) == []
    # ... which is said, not a reason to decline: a name the records mention, inside such a qualifier, is addressed
    from agent.answer.naming import unnamed_names

    il17 = [
        record("i", "IL-17 in psoriasis", "IL-17 drives psoriasis."),
        record("k", "Knockout mice", "Knockout mice lacked plaques."),
    ]
    knockout = "What is the role of psoriasis in IL-17 knockout mice?"
    assert (
        unnamed_terms(knockout, il17) == ["IL-17 knockout mice"]
        and unnamed_names(knockout, unnamed_terms(knockout, il17, together=False)) == []
    )
    # a possessive is its word: "Alzheimer's disease", not "disease or alzheimer" (seen in evals.open_questions)
    dementia = record(
        "x", "Exercise in dementia", "In interaction analyses, exercise effects differed between dementia types."
    )
    assert unnamed_terms(
        "How does physical activity affect cognitive function in people with Alzheimer's disease?", [dementia]
    ) == ["physical", "cognitive", "Alzheimer's disease"]
    # a name inside a phrase of missing words still declines ('HMGCR kinase' is said as one phrase since stop 33)
    kinase = ask("What is the role of HMGCR kinase in statin muscle pain?", **settings)
    assert kinase.status == Status.INSUFFICIENT_EVIDENCE and "do not mention HMGCR kinase, which" in kinase.answer, (
        kinase.answer
    )


def test_an_answer_with_enough_evidence_against_it_says_the_evidence_is_mixed():
    from agent.api import ask

    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)]))  # two records for the claim, a3 against it
    settings = dict(backend=name, mode="verify", max_claims=0, enable_relevance_gate=False)
    mixed = ask("Statins increase muscle pain", verdict_min_evidence=0.3, **settings)  # a3's weight (0.33) is enough
    assert mixed.status == Status.ANSWERED
    assert mixed.answer.endswith("The evidence is mixed: 1 of the 3 records that take a side read against it.")
    assert "mixed" not in ask("Statins increase muscle pain", **settings).answer  # at 0.5 it is not
    # seen as "1 of the 1 records that take a side read against it": one record whose passages read both ways
    from agent.answer.lines import mixed_sentence

    claim = Hypothesis(
        id="H1",
        text="Aspirin reduces adenomas",
        origin="claim",
        claim="Aspirin reduces adenomas",
        support=1.7,
        contradiction=1.0,
    )

    def side(record_id, stance):
        return LedgerEntry(
            hypothesis_id="H1", record_id=record_id, stance=stance, confidence=0.9, text=f"{record_id} {stance}"
        )

    assert (
        mixed_sentence(claim, [side("b", "SUPPORT"), side("b", "CONTRADICT")], 0.5)
        == " The evidence is mixed: the one record that takes a side reads both ways."
    )
    assert (
        mixed_sentence(
            claim, [side("b", "SUPPORT"), side("b", "CONTRADICT"), side("c", "SUPPORT"), side("d", "CONTRADICT")], 0.5
        )
        == " The evidence is mixed: of the 3 records that take a side, 1 reads against it and 1 reads both ways."
    )
    # seen under three supporting quotes: the one sentence read against the claim sits in a window read for it, more
    # strongly; the answer quotes that window, so it does not call the record mixed
    window = LedgerEntry(
        hypothesis_id="H1",
        record_id="b",
        stance="SUPPORT",
        confidence=0.9,
        sentence_index=3,
        sentence_end=6,
        text="HRs rose with episodes. The attributable risk was 2.39% per year. Results held.",
    )
    inside = LedgerEntry(
        hypothesis_id="H1",
        record_id="b",
        stance="CONTRADICT",
        confidence=0.7,
        sentence_index=4,
        text="The attributable risk was 2.39% per year.",
    )
    assert mixed_sentence(claim, [window, inside], 0.5) == ""
    elsewhere = inside.model_copy(update={"sentence_index": 7, "text": "Risk fell in the oldest group."})
    assert (
        mixed_sentence(claim, [window, elsewhere], 0.5)
        == " The evidence is mixed: the one record that takes a side reads both ways."
    )
    # a window read against it that only shares some sentences with the one read for it is other words: seen as "79% of
    # trials proceeded to completion" (for "not discontinued early") beside "... 21% (81/395) were discontinued"
    # (against)
    from agent.answer.compose import evidence_entries

    against = inside.model_copy(
        update={
            "sentence_index": 1,
            "sentence_end": 4,
            "confidence": 0.6,
            "text": "Of 395 trials, 21% were discontinued. HRs rose with episodes.",
        }
    )
    assert (
        mixed_sentence(claim, [window, against], 0.5)
        == " The evidence is mixed: the one record that takes a side reads both ways."
    )
    assert [e.stance for e in evidence_entries([window, against], claim)] == ["SUPPORT", "CONTRADICT"]
    assert [e.stance for e in evidence_entries([window, inside], claim)] == ["SUPPORT"]


def test_an_open_questions_findings_stand_alone():
    from agent.common.text import without_connective

    assert (
        without_connective("Thus, the biologic activity of IL-17 depends on IL-17RA.")
        == "The biologic activity of IL-17 depends on IL-17RA."
    )
    assert without_connective("Statins increase muscle pain.") == "Statins increase muscle pain."
    reasoner = ExtractiveReasoner(BagOfWordsEmbedder())
    from agent.literature import Passage

    evidence = [
        Passage(record_id="p", text="These include statins, which increase muscle pain in adults.", score=1.0),
        Passage(record_id="q", text="Thus, statins increase muscle pain in older adults.", score=1.0),
    ]
    [finding] = asyncio.run(reasoner._evidence_hypotheses("What do statins do to muscles?", evidence, 2))
    assert finding.text == "Statins increase muscle pain in older adults."  # not "These include ...", no "Thus,"


def test_an_open_questions_candidate_answers_name_what_it_asks_about():
    """Seen in evals.open_questions: "What is the effect of DUSP4 on apoptosis?" was declined ("the records found do not
    mention DUSP4") while one of its three candidate answers was "DUSP4 overexpression increased chemotherapy-induced
    apoptosis ...": candidates were picked by likeness to the question, and one about ciclosporin and apoptosis won."""
    from agent.literature import Passage

    reasoner = ExtractiveReasoner(BagOfWordsEmbedder())
    evidence = [
        Passage(
            record_id="a",
            text="Ciclosporin induced apoptosis and increased p53 expression in cultured renal cells.",
            score=1.0,
        ),
        Passage(
            record_id="b",
            text="Moderate lowering of ATP induces apoptosis and necrosis in cultured renal cells.",
            score=1.0,
        ),
        Passage(
            record_id="c",
            text="DUSP4 overexpression increased chemotherapy-induced apoptosis in breast cancer cells.",
            score=0.2,
        ),
    ]
    picked = asyncio.run(
        reasoner._evidence_hypotheses("What is the effect of DUSP4 on apoptosis in cultured renal cells?", evidence, 2)
    )
    assert [h.text for h in picked] == [
        "DUSP4 overexpression increased chemotherapy-induced apoptosis in breast cancer cells."
    ]
    unnamed = asyncio.run(
        reasoner._evidence_hypotheses("What is the effect of apoptosis in cultured renal cells?", evidence, 2)
    )
    assert all(not h.text.startswith("DUSP4") for h in unnamed)  # no name asked: likeness to the question decides
    # the record names it, not necessarily the sentence (held-out "In which group is Chlamydia trachomatis most
    # prevalent in the UK?" lost its gold answer "Chlamydia prevalence was 1.5% in women ..." to a sentence naming the
    # UK)
    survey = [
        Passage(record_id="u", text="Chlamydia prevalence was 3.1% in women aged 16-24 years.", score=1.0),
        Passage(record_id="u", text="A national survey of sexual attitudes was conducted in the UK.", score=1.0),
        Passage(record_id="v", text="Chlamydia prevalence was 4% in women in Sweden.", score=1.0),
    ]
    picked = asyncio.run(
        reasoner._evidence_hypotheses("In which group is chlamydia most prevalent in the UK?", survey, 3)
    )
    assert "Chlamydia prevalence was 3.1% in women aged 16-24 years." in [h.text for h in picked]
    assert all(h.text != "Chlamydia prevalence was 4% in women in Sweden." for h in picked)


def test_an_open_question_asking_for_a_cause_is_answered_by_a_sentence_stating_one():
    """Seen as a user: "What is the main cause of cervical cancer?" was answered "The number of cases of cervical
    cancer was small, but considering the high probability of progression of CIN III the findings are of importance
    regarding cancer prevention" (0.46), while a candidate said HPV is associated with cervical carcinoma."""
    from agent.english.asks import asks_cause
    from agent.literature import Passage

    assert asks_cause("What is the main cause of cervical cancer?") and asks_cause("What causes scurvy?")
    assert asks_cause("Why do tumours become resistant to erlotinib?")
    assert not asks_cause("What is the role of HPV in cervical cancer?")
    reasoner = ExtractiveReasoner(BagOfWordsEmbedder())
    evidence = [
        Passage(
            record_id="a", text="The number of cases of cervical cancer was small in the screening arm.", score=1.0
        ),
        Passage(record_id="b", text="Human papillomavirus infection is associated with cervical carcinoma.", score=0.2),
    ]
    picked = asyncio.run(reasoner._evidence_hypotheses("What is the main cause of cervical cancer?", evidence, 2))
    assert [h.text for h in picked] == ["Human papillomavirus infection is associated with cervical carcinoma."]
    either = asyncio.run(reasoner._evidence_hypotheses("What do we know about cervical cancer?", evidence, 2))
    assert len(either) == 2


def test_a_passage_that_says_it_needs_confirming_only_qualifies():
    from agent.answer.compose import role_of

    tentative = LedgerEntry(
        hypothesis_id="H1",
        record_id="m",
        stance="SUPPORT",
        confidence=0.9,
        text="Metformin might influence tumourigenesis; however, these effects require further investigation.",
    )
    assert role_of(tentative) == "qualifies"
    assert (
        role_of(tentative.model_copy(update={"text": "Metformin users had fewer incident cancers (HR 0.63)."}))
        == "supports"
    )


def test_an_answer_line_that_quotes_records_cites_them():
    from agent.answer.lines import with_citations, with_confidence

    line = with_confidence(
        with_citations("Folic acid supplementation reduced the risk of neural tube defects.", ["33740844"]), 0.52
    )
    assert line == "Folic acid supplementation reduced the risk of neural tube defects [33740844] (confidence 0.52)."
    assert with_citations("Yes: the evidence suggests that X.", []) == "Yes: the evidence suggests that X."


def test_an_answer_whose_passages_only_qualify_it_is_only_weakly_suggested():
    from agent.interfaces import StanceResult
    from tests.fakes import make_backend

    class Lukewarm:  # supports every passage, never firmly (below compose.STRONG): every quote only qualifies
        name = "lukewarm"

        async def judge(self, pairs):
            return [StanceResult(stance="SUPPORT", confidence=0.55) for _ in pairs]

    name = unique_backend_name()
    register_backend(name, make_backend([ListSource(RECORDS)], stance=Lukewarm(), calibrator=RawScore()))
    _state, answer = _answer(
        SimpleNamespace(context=Context(backend=name, enable_relevance_gate=False, decisive_confidence=0.0)), None
    )
    assert answer.sentences and {s.role for s in answer.sentences} == {"related"}  # no confident reading: no side
    assert all(s.text.startswith('Related evidence: "') for s in answer.sentences)
    assert answer.confidence >= 0.6 and answer.answer.startswith(
        "Yes: the evidence weakly suggests that statins increase muscle pain"
    )


def test_the_answer_lines_verb_is_as_strong_as_its_confidence():
    from agent.answer.lines import with_confidence

    yes = "Yes: the evidence indicates that statins increase muscle pain."
    assert (
        with_confidence(yes, 0.82) == "Yes: the evidence indicates that statins increase muscle pain (confidence 0.82)."
    )
    assert (
        with_confidence(yes, 0.66) == "Yes: the evidence suggests that statins increase muscle pain (confidence 0.66)."
    )
    assert (
        with_confidence(yes, 0.55)
        == "Yes: the evidence weakly suggests that statins increase muscle pain (confidence 0.55)."
    )
    claim = "The evidence contradicts the claim: Statins do not increase muscle pain."
    assert with_confidence(claim, 0.7).startswith("The evidence tends to contradict the claim: Statins do not")
    assert with_confidence("(A) metformin", 0.4) == "(A) metformin (confidence 0.40)."  # no evidence verb: unchanged
    # passages that only qualify the answer never make it more than weakly suggested
    assert with_confidence(yes, 0.82, firm=False).startswith("Yes: the evidence weakly suggests that")


def test_a_negated_claim_reads_as_a_negation_not_an_antonym():
    plan = Plan(task="polar", claim="Hypoglycemia increases the risk of dementia")
    hyps = asyncio.run(ExtractiveReasoner(BagOfWordsEmbedder()).hypothesize("q?", plan, [], 2))
    assert [h.text for h in hyps] == [
        "Hypoglycemia increases the risk of dementia",
        "Hypoglycemia does not increase the risk of dementia",
    ]
    entry = LedgerEntry(
        hypothesis_id="H2", record_id="a", text="No association was found.", stance="SUPPORT", confidence=0.9
    )
    from agent.answer.compose import verdict_sentence

    assert (
        verdict_sentence(Hypothesis(**hyps[1].model_dump()), "polar", polar=True)
        == "No: the evidence indicates that hypoglycemia does not increase the risk of dementia."
    )
    assert entry.stance == "SUPPORT"


def test_an_open_answer_reports_a_finding_in_the_authors_voice_as_one_studys():
    """The answer line does not speak as the authors ('We propose that ...'): it says whose finding it is."""
    from agent.answer.compose import verdict_sentence

    finding = Hypothesis(
        id="H1",
        text="We propose that Aβ*56 impairs memory independently of plaques or neuronal loss.",
        origin="evidence",
        claim="We propose that Aβ*56 impairs memory independently of plaques or neuronal loss.",
    )
    assert (
        verdict_sentence(finding, "open", polar=False)
        == "One study proposes that Aβ*56 impairs memory independently of plaques or neuronal loss."
    )
    for own, as_reported in [
        ("Here we show that FOXO3 regulates IL-10", "One study shows that FOXO3 regulates IL-10."),
        ("Taken together, our results suggest that A binds B", "One study's results suggest that A binds B."),
        (
            "We found no association between coffee and stroke",
            "One study found no association between coffee and stroke.",
        ),
        ("Coffee intake was not associated with stroke", "Coffee intake was not associated with stroke."),
    ]:
        assert verdict_sentence(finding.model_copy(update={"text": own}), "open", polar=False) == as_reported
    option = finding.model_copy(update={"origin": "option", "text": "We propose nothing"})
    assert (
        verdict_sentence(option, "mcq", polar=False) == "We propose nothing."
    )  # only a record's own sentence is reported


def test_verification_counts_the_own_source_first_and_other_records_only_when_about_the_claim():
    from agent.interfaces import CitedSentence, Draft
    from agent.nodes.verify_claims import verify_claims
    from agent.records import ClaimVerdict

    records = RECORDS + [
        record(
            "d9",
            "Dementia incidence in middle-income countries",
            "Statins were common; dementia increases with age in cohorts.",
        )
    ]
    quoted = CitedSentence(
        text='Supports: "Statins increases muscle pain in older adults (OR 1.8)." (Statins increase muscle pain)',
        citations=["a1"],
    )
    for rt, expected_others in (
        (gated_runtime(records, max_claims=1), {"a2", "a3"}),
        (gated_runtime([RECORDS[0], records[-1]], max_claims=1), set()),
    ):
        state = base_state(rt)
        from agent.nodes.retrieve import retrieve

        state.update(run(retrieve, state, rt))
        state["draft"] = Draft(answer="x", sentences=[quoted])
        [claim] = run(verify_claims, state, rt)["claims"]
        assert claim.supporting[0] == "a1"
        assert {e.record_id for e in claim.dossier} <= expected_others  # d9 shares words, not the claim
        if not expected_others:
            assert (
                claim.verdict == ClaimVerdict.UNVERIFIED
                and claim.note == "no independent source found"
                and claim.supporting == ["a1"]
            )


def test_verification_counts_no_record_that_does_not_name_the_claims_subject_and_object():
    """The gullible judge supports the claim with the cholesterol record; the aspect check keeps that record out."""
    from agent.interfaces import CitedSentence, Draft
    from agent.nodes.retrieve import retrieve
    from agent.nodes.verify_claims import verify_claims
    from tests.nodes.test_nodes import GullibleStance

    cholesterol = record("d8", "Statin therapy and LDL cholesterol", "Statins increases LDL clearance in 3,000 adults.")
    quoted = CitedSentence(
        text='Supports: "Statins increases muscle pain in older adults (OR 1.8)." (Statins increase muscle pain)',
        citations=["a1"],
    )

    def dossier(**settings):
        name = unique_backend_name()
        embedder = BagOfWordsEmbedder()
        register_backend(
            name,
            lambda context, documents=None: Backend(
                name="scripted",
                sources=[ListSource([RECORDS[0], cholesterol])],
                embedder=embedder,
                reranker=OverlapReranker(),
                stance=GullibleStance(),
                reasoner=ExtractiveReasoner(embedder),
                calibrator=RawScore(),
            ),
        )
        rt = SimpleNamespace(context=Context(backend=name, max_claims=1, enable_relevance_gate=False, **settings))
        state = base_state(rt)
        state.update(run(retrieve, state, rt))
        state["draft"] = Draft(answer="x", sentences=[quoted])
        [claim] = run(verify_claims, state, rt)["claims"]
        return {e.record_id for e in claim.dossier}, claim.note

    assert dossier(enable_aspect_check=False)[0] == {"d8"}
    assert dossier() == (set(), "no independent source found")


def test_faithfulness_is_measured_and_a_sentence_its_citation_contradicts_is_dropped():
    from agent.interfaces import CitedSentence
    from agent.scoring.faithfulness import check_faithfulness

    records = {r.id: r for r in RECORDS}
    sentences = [
        CitedSentence(text='Supports: "Statins increases muscle pain in older adults." (a1)', citations=["a1"]),
        CitedSentence(text="Statins increases muscle pain compared with placebo.", citations=["a3"]),
    ]  # a3 says decreases
    kept, share, notes = asyncio.run(check_faithfulness(sentences, records, BagOfWordsEmbedder(), RuleStance(), 0.5))
    assert [s.citations for s in kept] == [["a1"]] and share == 0.5 and "contradicts" in notes[0]
    from tests.nodes.test_nodes import runtime

    answer = _answer(runtime(), None)[1]
    assert answer.faithfulness is not None and 0.0 <= answer.faithfulness <= 1.0


def test_a_quote_that_is_its_records_own_text_is_faithful_without_asking_the_judge():
    """An offline answer reported "0.75 of the cited statements are supported" for four verbatim quotes: the judge
    read one ("However, the overall benefits observed with statins appear to be greater ...") as not supporting
    itself."""
    from agent.interfaces import CitedSentence
    from agent.scoring.faithfulness import check_faithfulness

    trial = record(
        "q",
        "Statins and muscles",
        "Statins increased muscle pain in older adults. The trial ran for two years in 40 clinics.",
    )
    quote = CitedSentence(
        text='Contradicts: "Statins increased muscle pain in older adults. […] The trial ran for two years in 40 '
        'clinics." (Statins and muscles) [q]',
        citations=["q"],
    )
    paraphrase = CitedSentence(text="Statins hurt the muscles of the elderly.", citations=["q"])
    neutral = FixedStance("neutral", [0.1, 0.1, 0.8])  # whatever it is asked, it reads no side
    kept, share, _ = asyncio.run(
        check_faithfulness([quote, paraphrase], {"q": trial}, BagOfWordsEmbedder(), neutral, 0.5)
    )
    assert share == 0.5 and kept == [quote, paraphrase]
    assert all("hurt" in statement for call in neutral.calls for statement, _ in call)  # only the paraphrase was judged
    elsewhere = CitedSentence(text='Supports: "Statins increased muscle pain in children." [q]', citations=["q"])
    assert asyncio.run(check_faithfulness([elsewhere], {"q": trial}, BagOfWordsEmbedder(), neutral, 0.5))[1] == 0.0


def test_plan_does_not_send_the_same_query_twice_in_another_case():
    plan = asyncio.run(ExtractiveReasoner(BagOfWordsEmbedder()).plan("Aspirin reduces colorectal cancer", [], "verify"))
    assert [q.text for q in plan.queries] == ["Aspirin reduces colorectal cancer"]


def test_the_cli_and_json_show_the_verdict_sentence_roles_and_faithfulness():
    import json

    from agent.answer.text import render
    from tests.nodes.test_nodes import runtime

    answer = _answer(runtime(), None)[1]
    text = render(answer)
    assert f"Answer: {answer.answer}" in text and "(confidence " in text and "Faithfulness: " in text
    assert (
        answer.task == "polar" and "   task yes/no   " in text.splitlines()[0]
    )  # a yes / no question, not 'task open'
    assert any(
        line.strip().startswith(("- Supports the claim:", "- Against the claim:", "- Related evidence:"))
        for line in text.splitlines()
    )
    data = json.loads(answer.model_dump_json())
    assert data["faithfulness"] == answer.faithfulness and all(
        s["role"] in ("supports_claim", "against_claim", "related") for s in data["sentences"]
    )


def test_an_abstention_says_why_and_which_way_the_evidence_leans_without_nesting_a_verdict():
    from tests.nodes.test_nodes import FixedCalibrator, _reported

    unsure = _reported(FixedCalibrator(0.25, 0.7))
    assert unsure.status == Status.INSUFFICIENT_EVIDENCE
    assert unsure.answer == (
        "Insufficient evidence to decide: the leading answer's confidence is 0.25, below the 0.30 needed to "
        "answer. What evidence there is leans towards yes (that statins increase muscle "
        "pain) [a1, a2]."
    )
    thin = _reported(
        FixedCalibrator(0.62, 0.4), verdict_min_evidence=50
    )  # a confident map, but too little evidence takes a side
    assert thin.status == Status.INSUFFICIENT_EVIDENCE and "confidence is 0.62" not in thin.answer
    assert thin.answer.startswith(
        "Insufficient evidence to decide: the 3 records that take a side weigh too little for a verdict."
    )
    assert "evidence indicates" not in thin.answer and "evidence suggests" not in thin.answer
    assert thin.answer.endswith(
        "What evidence there is leans towards yes (that statins increase muscle pain) [a1, a2]."
    )


def test_the_lean_of_an_unanswered_claim_or_option_names_its_side_and_records():
    from agent.answer.lines import lean_sentence

    negation = Hypothesis(
        id="H2",
        text="Smoking does not lower the risk of preeclampsia",
        claim="Smoking lowers the risk of preeclampsia",
        origin="negation",
        polarity=-1,
        support=0.4,
    )
    option = Hypothesis(id="H1", text="metformin", origin="option", option_index=1, support=0.3)
    finding = "Smoking was associated with a lower risk of preeclampsia."
    ledger = [
        LedgerEntry(hypothesis_id="H2", record_id="r9", text=finding, stance="SUPPORT", confidence=0.7),
        LedgerEntry(hypothesis_id="H2", record_id="r8", text=finding, stance="NEUTRAL", confidence=0.7),
        LedgerEntry(
            hypothesis_id="H2", record_id="r6", text=finding, stance="SUPPORT", confidence=0.4
        ),  # only qualifies
        LedgerEntry(hypothesis_id="H1", record_id="r7", text=finding, stance="SUPPORT", confidence=0.7),
    ]
    assert lean_sentence(negation, "claim", ledger) == " What evidence there is leans against the claim [r9]."
    assert lean_sentence(option, "mcq", ledger) == " What evidence there is leans towards (B) metformin [r7]."
    # a passage that only qualifies the leading answer is no lean (the demo: a folate paper "leaning" towards a smoking
    # claim)
    assert lean_sentence(negation, "claim", [e for e in ledger if e.record_id != "r9"]) == ""


def test_a_quote_too_long_is_cut_at_a_word_not_inside_one():
    from agent.common.text import truncate

    text = (
        "The reduced risk associated with dietary folate intake during pregnancy was only seen for severe "
        "preeclampsia "
        "and our study results suggest that folic acid supplementation and higher dietary folate intake "
        "decrease it."
    )
    cut = truncate(text, 200)
    assert cut.endswith("higher dietary folate…") and len(cut) <= 200  # was "... folate i…"
    assert truncate("x" * 80, 30) == "x" * 29 + "…"  # no space to cut at: cut where the limit falls


def test_the_gates_reason_quotes_its_best_match_cut_at_a_word():
    from agent.scoring.relevance import RelevanceAssessment

    text = (
        "This limits mobility impaired children from exploring their home environment safely, which in turn "
        "impacts "
        "their cognitive development."
    )
    reason = RelevanceAssessment(
        relevant=False, probability=0.22, features={"best_cosine": 0.44}, best_record="108886332", best_text=text
    ).reason()
    assert (
        '"This limits mobility impaired children from exploring their home environment safely, which in turn '
        'impacts their…"'
    ) in reason
    labelled = RelevanceAssessment(
        relevant=False,
        probability=0.16,
        features={"best_cosine": 0.52},
        best_record="21700295",
        best_text="Conclusions and Relevance Antiviral treatment reduced the risk.",
    ).reason()
    assert '"Antiviral treatment reduced the risk."' in labelled  # seen as '"Conclusions and Relevance Antiviral ..."'


def test_a_non_significant_result_on_the_claims_outcome_reads_against_a_claimed_effect_when_asked():
    from agent.interfaces import StanceResult
    from agent.scoring.court import null_result_reading

    neutral = StanceResult.from_probabilities(["SUPPORT", "CONTRADICT", "NEUTRAL"], [0.3, 0.1, 0.6])
    firm = StanceResult.from_probabilities(["SUPPORT", "CONTRADICT", "NEUTRAL"], [0.8, 0.05, 0.15])
    null = "High-dose aspirin had no significant effect on colorectal adenomas (relative risk 0.96, 95% CI 0.81-1.13)."
    claim = "High-dose aspirin prevents colorectal adenomas"
    assert null_result_reading(claim, null, neutral, "NEUTRAL", 0.6, 0.5) == ("CONTRADICT", 0.7)
    assert null_result_reading(claim, null, firm, "SUPPORT", 0.8, 0.5) == (
        "NEUTRAL",
        0.15,
    )  # no support from a null estimate
    # not the claim's outcome (a baseline comparison), not a claim of an effect, or a significant result: the judge's
    # reading
    assert null_result_reading(claim, "The groups were similar in age (p = 0.4).", neutral, "NEUTRAL", 0.6, 0.5) == (
        "NEUTRAL",
        0.6,
    )
    assert null_result_reading(
        "High-dose aspirin does not prevent colorectal adenomas", null, neutral, "NEUTRAL", 0.6, 0.5
    ) == ("NEUTRAL", 0.6)
    assert null_result_reading(
        claim, null.replace("0.81-1.13", "0.71-0.93").replace("no significant", "an"), neutral, "NEUTRAL", 0.6, 0.5
    ) == ("NEUTRAL", 0.6)


def test_the_court_reads_null_results_against_a_claimed_effect_only_when_the_setting_is_on():
    from agent.nodes.hypothesize import hypothesize
    from agent.nodes.rerank import rerank
    from agent.nodes.retrieve import retrieve

    records = [
        record(
            "n1",
            "High-dose aspirin and colorectal adenomas: a randomised trial",
            "High-dose aspirin had no significant effect on colorectal adenomas (relative risk "
            "0.96, 95% CI 0.81-1.13).",
        )
    ]

    def contradictions(on: bool) -> list[str]:
        name = unique_backend_name()
        register_backend(name, make_backend([ListSource(records)], stance=FixedStance("neutral", [0.2, 0.1, 0.7])))
        rt = SimpleNamespace(context=Context(backend=name, enable_relevance_gate=False, null_results_contradict=on))
        state = base_state(rt, question="High-dose aspirin prevents colorectal adenomas")
        for node in (retrieve, rerank, hypothesize, court):
            state.update(run(node, state, rt))
        return [e.record_id for e in state["ledger"] if e.hypothesis_id == "H1" and e.stance == "CONTRADICT"]

    assert contradictions(True) == ["n1"]
    assert contradictions(False) == []


def test_a_passage_saying_what_an_options_statement_says_is_its_evidence_not_a_repetition():
    """The stem answered by the option ("Metformin increases insulin sensitivity ...") is what the court judges; the
    answer line shows "(A) metformin". A passage stating the former supports the line and is quoted; for a claim,
    a passage that repeats the claim shown in the line is not."""
    from agent.answer.compose import evidence_entries
    from agent.english.options import option_statement

    text = "Metformin increases insulin sensitivity in adults with prediabetes."
    stem = "Which drug increases insulin sensitivity in adults with prediabetes?"
    option = Hypothesis(
        id="H1",
        text="metformin",
        origin="option",
        option_index=0,
        claim=option_statement(stem, "metformin", ("aspirin",)),
    )
    claim = Hypothesis(id="H1", text=text, origin="claim", claim=text, polarity=1)
    entry = LedgerEntry(
        hypothesis_id="H1", record_id="m", stance="SUPPORT", confidence=0.9, sentence_index=0, text=text
    )
    assert option.statement.rstrip(".") == text.rstrip(".")
    assert evidence_entries([entry], option) == [entry]
    assert evidence_entries([entry], claim) == []


def test_an_open_answer_cites_the_record_its_sentence_comes_from():
    """Seen in evals.open_questions (stop 33): "Migraine, particularly with aura, is a risk factor for early-onset
    ischemic stroke (confidence 0.44)." with no citation: the court had not read the winning sentence against itself,
    so no ledger entry 'restated' it. An open answer is a record's own sentence and cites that record."""
    from agent.records import Hypothesis, LedgerEntry

    source = record(
        "m1",
        "Migraine and stroke",
        "Migraine, particularly with aura, is a risk factor for early-onset ischemic stroke.",
    )
    other = record("m2", "Stroke in the young", "Young adults with migraine had more strokes.")
    best = Hypothesis(
        id="H1",
        text="Migraine, particularly with aura, is a risk factor for early-onset ischemic stroke.",
        origin="evidence",
        claim="Migraine, particularly with aura, is a risk factor for early-onset ischemic stroke.",
        support=1.0,
        score=1.0,
    )
    ledger = [
        LedgerEntry(
            hypothesis_id="H1",
            record_id="m2",
            stance="SUPPORT",
            confidence=0.8,
            sentence_index=0,
            text=other.sentences[0],
        )
    ]
    plan = asyncio.run(
        ExtractiveReasoner(BagOfWordsEmbedder()).plan("What is the association between migraine and stroke?", [], "ask")
    )
    draft = asyncio.run(
        ExtractiveReasoner(BagOfWordsEmbedder()).synthesize(
            "What is the association between migraine and stroke?", plan, [best], ledger, {"m1": source, "m2": other}
        )
    )
    assert draft.answer_citations == ["m1"], draft
