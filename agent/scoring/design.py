"""What kind of study a record reports (its design), read from its title and abstract, with the sentence that says so.

A reader weighing "aspirin reduces colorectal cancer" wants to know, per paper, whether the finding comes from a
meta-analysis of trials, one randomised trial, a cohort, a mouse model or a cell line: the same "supports" means very
different things. Consensus tags each paper so; here the design is read by rules, in the order of how explicitly an
abstract states it:

1. a stated design: a structured label ("DESIGN Inception cohort study"), or the design named in the title or in
   a sentence saying what was done ("We did a case-control study ...", "In this randomised trial ...");
2. the signature of a design: a literature search with pooled estimates (meta-analysis), a search without them
   (systematic review), random assignment (RCT), follow-up of a population (cohort), cases against controls, a
   survey or a single time point (cross-sectional), one patient described (case report or series);
3. what was studied, when no human design is stated: living animals (animal), cells, microbes or molecules (in vitro),
   a discussion of the literature (narrative review); else other (models, methods, software, genomic maps).

The rules were written after SciFact abstracts had been labelled by hand (evals/data/study_design.jsonl) and tuned
on 234 of them; on the 100 labelled apart in two parts and never tuned on they read the design right 0.79 of the time
(0.74 and 0.84 by part, evals/HISTORY.md: an unstated design is often a judgement call, between animal and in vitro
above all). Pure and cheap: regular expressions over at most a few dozen sentences, no model (a classifier on the
packaged encoder's embeddings did worse, evals/HISTORY.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from agent.common.text import split_sentences
from agent.literature import Record
from agent.records import StudyDesign

Design = StudyDesign
DESIGNS: tuple[Design, ...] = get_args(StudyDesign)
EVIDENCE_LEVEL: dict[Design, float] = {
    "meta-analysis": 1.0,
    "systematic review": 0.9,
    "RCT": 0.8,
    "cohort": 0.6,
    "case-control": 0.5,
    "cross-sectional": 0.4,
    "case report or series": 0.2,
    "animal": 0.15,
    "in vitro": 0.1,
    "narrative review": 0.1,
    "other": 0.0,
}
"""The usual evidence pyramid as a number in [0, 1] (a verdict model's input, `agent.scoring.study.study_numbers`):
pooled trials above one trial above observational designs above a single case above preclinical work."""


@dataclass(frozen=True)
class DesignReading:
    """A record's design and the sentence it was read from (the title when that said it; None when no sentence did:
    the fallback 'other')."""

    design: Design
    sentence: str | None


_I = re.IGNORECASE
_META = re.compile(
    r"meta-?analy(?:sis|[sz]ed|tic)|meta-?regression|(?:our|separate|network) meta-?analyses|meta-?analyses were|"
    r"pooled analysis of|quantitative synthesis",
    _I,
)
_POOLED = re.compile(
    r"\bpooled\b|random[- ]effects?|fixed[- ]effects?|summary (?:estimates?|sensitivity|odds|relative)|"
    r"\bmeta-?analy|combined (?:odds|relative|hazard|risk)|weighted mean difference|"
    r";\s*(?:\w+|\d+) (?:trials|studies);",
    _I,
)
_SYSTEMATIC = re.compile(
    r"systematic(?:ally)? (?:literature )?(?:review|search)(?!s)|\bsearch strategy\b|\bdata sources\b|"
    r"\b(?:we )?searched (?:the |for )?(?:\w+ ){0,3}(?:medline|pubmed|embase|cochrane|web of science|databases?|"
    r"literature|electronic)|(?:medline|pubmed|embase)[^.]{0,80}(?:were|was) searched|literature search|"
    r"\bselection criteria\b|\bstudy selection\b|studies (?:met|meeting) (?:the )?inclusion criteria",
    _I,
)
_NOT_A_STUDY = re.compile(  # a methods paper about meta-analysis is not one
    r"\bwe (?:develop|derive|propose|study|introduce)\b[^.]{0,80}\b(?:methods?|measures?|statistics?|metrics?|"
    r"techniques?)\b|\b(?:methodology|statistical methods?) for\b|\bwe review the statistical\b",
    _I,
)
_UNCONTROLLED = re.compile(r"\bopen-label\b|\bsingle-arm\b|\bnon-?randomi[sz]ed\b|\buncontrolled\b", _I)
_LITERATURE = re.compile(  # an abstract that reports others' findings, not its own
    r"\b(?:studies|trials|data|evidence|work) (?:have |has )?(?:shown|demonstrated?|show|suggests?|indicates?)\b|"
    r"\bin a recent (?:\w+ )?(?:study|trial)\b|\bare currently ongoing\b|\brecent (?:studies|evidence|data|work)\b",
    _I,
)
_METHODS_PAPER = re.compile(  # a paper proposing a statistic or a method: no study of its own
    r"\bwe (?:develop|derive|propose|introduce)\b[^.]{0,80}\b(?:methods?|measures?|statistics?|metrics?|techniques?)\b",
    _I,
)
_NARRATIVE = re.compile(
    r"\b(?:this|the present|our|in this|a) (?:mini-?)?review\b|\bwe (?:review|discuss|summari[sz]e|highlight|"
    r"examine the current)\b|\bhere,? (?:we|i) (?:review|discuss|summari[sz]e)\b|\bi review\b|"
    r"\breview(?:s|ed)? (?:the |recent |current )+(?:advances|evidence|literature|knowledge|studies|findings|state)|"
    r"\bthis (?:chapter|perspective|overview|article (?:reviews|discusses|summari[sz]es))\b|"
    r"\bposition statement\b|\bcurrent perspectives\b|\bwe (?:provide|give) an overview\b|"
    r"\bas we discuss here\b|\bthis review\b|\ba summary is given\b",
    _I,
)
_NARRATIVE_TITLE = re.compile(r"\breview\b|\bperspectives?\b|\boverview\b|: a (?:\w+ )?update\b", _I)
_RCT = re.compile(
    r"\brandomi[sz]ed\b[^.]{0,60}\b(?:trial|study|design)\b(?!s)|\brandomly (?:assigned|allocated)\b|"
    r"\bwere randomi[sz]ed\b|\bwe randomi[sz]ed\b|\brandomi[sz]ation\b|\bcluster[- ]randomi[sz]ed\b|"
    r"\bplacebo-controlled\b",
    _I,
)
_STRONG_RCT = re.compile(
    r"\bdouble-blind(?:ed)?\b[^.]{0,40}\btrial\b(?!s)|"
    r"\b(?:a|an|this|our|the present|in this)\s+(?:[\w-]+,?\s+){0,4}randomi[sz]ed\b[^.]{0,40}\btrial\b(?!s)|"
    r"\bwere randomly (?:assigned|allocated)|\bwe randomi[sz]ed\b|\bwere randomi[sz]ed\b",
    _I,
)
_PROSPECTIVE_ONLY = re.compile(r"\b(?:future|further|should|needed|warranted|required|are needed)\b", _I)
_COMPUTATIONAL = re.compile(
    r"\bwe present a (?:new |novel )?(?:\w+ )?(?:method|software|tool|representation|algorithm|approach)\b|"
    r"\b(?:software|package|tool)\b[^.]{0,40}\b(?:is|are|was) (?:freely )?available|\bsoftware package\b|"
    r"\bwe (?:present|describe|developed?) [^.]{0,60}\bsoftware\b|\bour model\b|\bmicrosimulation\b|"
    r"\bdecision (?:analytic(?:al)?|model)|\bmathematical models?\b|"
    r"\bcomputational (?:approaches|analysis|model)|\bin silico\b|"
    r"\bin this protocol\b|\bthis protocol (?:describes|provides)|"
    r"\blandscape of\b|"
    r"\bgenome-wide (?:data|map)|\bsequencing data\b|\b\d+ (?:\w+ )?species\b|"
    r"\bwe propose a\b[^.]{0,60}\bmodel\b|\bmodel(?:led|ling) ",
    _I,
)
_STUDIED_ONCE = re.compile(
    r"\bwe (?:studied|examined|evaluated|assessed|measured|included|enrolled|recruited|investigated)\b[^.]{0,40}"
    r"\b\d[\d,]*\s+(?:[\w-]+\s+){0,3}(?:patients|participants|subjects|women|men|children|adults|individuals|"
    r"volunteers|people)\b",
    _I,
)
_OWN_DATA = re.compile(
    r"\bwe (?:found|find|show|report|demonstrate|identified|documented|observed|measured|estimated|examined|"
    r"investigated|isolated|studied|enrolled|analy[sz]ed)\b",
    _I,
)
_CASE_CONTROL = re.compile(
    r"\bcase[- ]control\b|\bcases? and (?:[\w,]+ ){0,3}controls\b|\bmatched controls\b",
    _I,
)
_COHORT = re.compile(
    r"\bcohort\b|\bprospective(?:ly)? (?:study|studies|population|observational|followed|evaluat)|"
    r"\b(?:we|were) followed\b|"
    r"\bfollowed (?:up )?(?:for|over|until|to)\b|\bfollow[-–]up (?:of|was|period)\b|\bperson-years\b|"
    r"\bretrospective(?:ly)? (?:study|analy[sz]ed|analysis|review(?:ed)?)\b|\bregistry\b|"
    r"\bduring (?:a |the )?(?:mean |median )?follow[-–]up\b|\bprospectively collected\b",
    _I,
)
_CROSS = re.compile(r"\bsurvey\b|\bprevalence\b|\bquestionnaires?\b", _I)  # only where people are named
_MEASURED_ONCE = re.compile(
    r"\bcross[- ]sectional(?:ly)?\b|\bvalidat(?:ion|ed|ing)\b|\binternal consistency\b|\breproducibility\b|"
    r"\binter-?(?:rater|observer) (?:agreement|reliability)\b|\bdiagnostic (?:accuracy|capabilit)|"
    r"\bsensitivity and specificity\b",
    _I,
)
_CASE_REPORT = re.compile(
    r"\bcase report\b|\bcase series\b|\bwe (?:report|describe|present) (?:a|an|the|two|three|four) "
    r"(?:\w+ ){0,3}(?:cases?|patients?|child|man|woman|boy|girl|adolescent)\b|\ba case of\b|"
    r"\b\d+-year-old (?:man|woman|male|female|boy|girl|patient)\b|\blevel (?:of evidence )?iv\b|"
    r"\b(?:a|one|two|three) (?:family|families|patients?|cases?)\b[^.]{0,80}"
    r"\b(?:is|are|was|were) (?:described|reported|presented)\b",
    _I,
)
_ANIMAL = re.compile(
    r"\b(?:mice|mouse|murine|rats?|rodents?|pigs?|porcine|piglets?|dogs?|canine|rabbits?|sheep|monkeys?|"
    r"macaques?|primates?|zebrafish|drosophila|xenopus|c\. elegans|caenorhabditis|hamsters?|ferrets?|"
    r"animals|animal models?|knock-?out|knock-?in|transgenic|in vivo|xenografts?|flies|sprague-dawley|wistar|c57bl/6|"
    r"balb/c)\b",
    _I,
)
_IN_VIVO_RESULT = re.compile(  # animal work carrying the finding, not a confirmatory aside
    r"\b(?:mice|rats|animals|pigs|flies|zebrafish|embryos)\b[^.]{0,80}\b(?:develop(?:ed)?|show(?:ed)?|exhibit(?:ed)?|"
    r"were (?:resistant|protected|fed|treated|infected|randomi[sz]ed|given|injected)|had|display(?:ed)?|"
    r"lacking|deficient|underwent|received)\b|"
    r"\b(?:mouse|rat|porcine|murine|animal|knock-?in|knock-?out) models?\b|\bwe (?:engrafted|crossed|inactivated)\b|"
    r"\b(?:mice|rats) (?:lacking|deficient|with|bearing|infected|harboring)\b|"
    r"\b(?:[\w-]+-(?:null|deficient|knockout)|recipient|mutant|knockout|deficient|exposed|treated|septic) "
    r"(?:mice|rats|animals)\b|"
    r"\b(?:immunity|tumou?rs?|disease|responses?|inflammation) in (?:mice|rats)\b",
    _I,
)
_IN_VITRO = re.compile(
    r"\b(?:cells?|cell lines?|in vitro|cultured?|cultures|yeast|saccharomyces|bacteria|bacterial|e\. coli|"
    r"escherichia|vibrio|strains?|fibroblasts|plasmids?|crystal structure|cryo-em|structure of|recombinant|"
    r"purified|biochemical|assays?|extracts?|enzyme|protein-protein|promoters?|transcription factors?)\b",
    _I,
)
_HUMANS = re.compile(
    r"\b(?:patients|participants|subjects|women|men|children|adults|infants|individuals|persons|people|"
    r"volunteers|cases|controls|girls|boys|adolescents|students|survivors|smokers|pregnancies|mothers|"
    r"prisoners|inhabitants|residents|outpatients|inpatients|admissions|respondents)\b",
    _I,
)


def sentences_of(record: Record) -> list[str]:
    """The record's abstract sentences as the court reads them (a corpus record's own split, else split here)."""
    return [s for s in (record.sentences or split_sentences(record.abstract)) if s.strip()]


def read_design(record: Record) -> DesignReading:
    """The record's study design and the sentence (or title) it was read from (module docstring)."""
    return design_of(record.title or "", sentences_of(record))


def design_of(title: str, sentences: Sequence[str]) -> DesignReading:
    """The design of an abstract given as a title and its sentences."""
    for rule in (_stated, _signature, _subject):
        reading = rule(title, sentences)
        if reading is not None:
            return reading
    return DesignReading("other", None)


def _first(
    pattern: re.Pattern[str],
    texts: Sequence[str],
    also: Callable[[str], bool] = lambda _: True,
) -> str | None:
    return next((t for t in texts if pattern.search(t) and also(t)), None)


_BACKGROUND = re.compile(r"^\s*(?:background|context|importance|introduction|rationale)\b", _I)
_SECTION = re.compile(r"^\s*([A-Z][A-Z/&,]+(?: [A-Z/&,]+)*)\b(?![a-z])")
_MODELLING = re.compile(
    r"\bmicrosimulation\b|\bdecision[- ](?:analytic(?:al)?|tree) model|\bmarkov model\b|\bsimulation model\b",
    _I,
)
_META_STUDY = re.compile(  # a meta-analysis the abstract did, not one it used
    r"meta-?analy\w* of (?:\w+ ){0,3}(?:studies|trials|randomi[sz]ed|cohort|case-control|published|observational)|"
    r"(?:studies|trials)\b[^.]{0,80}\b(?:were|was) (?:included|pooled|combined)|"
    r"\bwe (?:performed|conducted|did|carried out|undertook|report)\b[^.]{0,40}meta-?analy|"
    r"\b(?:this|the present|our) meta-?analy",
    _I,
)
_MOUSE_CELLS = re.compile(
    r"\b(?:mouse|murine|rat|hamster)\s+(?:[\w-]+\s+){0,2}(?:cells?|fibroblasts|es|escs|lines?|neurons|"
    r"macrophages|homologs?|genes?|genomes?|epiblast|embryonic stem|lymphocytes?|splenocytes|hepatocytes|keratinocytes|"
    r"cardiomyocytes|adipocytes|progenitors|tissues?|epidermis|subpopulations)\b",
    _I,
)


def _measured(sentences: Sequence[str]) -> list[str]:
    """The sentences outside a structured abstract's background section (BACKGROUND / CONTEXT, until the next
    label), where what the study itself did is stated."""
    kept, background = [], False
    for sentence in sentences:
        label = _SECTION.match(sentence)
        if label and len(label.group(1)) > 3:
            background = bool(_BACKGROUND.match(label.group(1)))
        if not background:
            kept.append(sentence)
    return kept


_DIAGNOSTIC = re.compile(
    r"\bdiagnostic (?:accuracy|capabilit\w*|performance|value|yield)\b|\bsensitivity and specificity\b|"
    r"\b(?:positive|negative) predictive values?\b",
    _I,
)
_SINGLE_ARM = re.compile(  # an intervention followed in one group: "This prospective study was designed to assess the
    # impact of exercise and respiratory training on ..."
    r"\bprospective(?:ly)? (?:study|trial|evaluation)\b[^.]{0,80}\b(?:impact|effects?|efficacy|benefits?) of "
    r"(?:[\w-]+,? (?:and )?){0,4}(?:training|therapy|treatment|intervention|program(?:me)?|exercise|supplementation|"
    r"rehabilitation)\b",
    _I,
)
_COMPARED = re.compile(
    r"\bcontrols?\b|\bcontrol group\b|\bplacebo\b|\bcompared (?:with|to)\b|\bversus\b|\bvs\.?\b",
    _I,
)
_NAMED: tuple[tuple[Design, re.Pattern[str]], ...] = (
    ("case report or series", re.compile(r"\bcase report\b|\bcase series\b", _I)),
    (
        "RCT",
        re.compile(
            r"\brandomi[sz]ed\b(?:[^.]{0,40}\btrial\b(?!s)|(?! trials))|\bplacebo-controlled\b",
            _I,
        ),
    ),
    ("case-control", re.compile(r"\bcase[- ]control\b", _I)),
    ("cross-sectional", re.compile(r"\bcross[- ]sectional\b|\bsurvey\b", _I)),
    (
        "cohort",
        re.compile(r"\bcohort\b|\bprospective (?:study|investigation|population)", _I),
    ),
)


def _stated(title: str, sentences: Sequence[str]) -> DesignReading | None:
    """A design the abstract names: under a DESIGN label, or in its title."""
    for i, sentence in enumerate(sentences):
        if re.match(r"^\s*(?:study )?design\b", sentence, _I):
            if len(sentence) < 40 and i + 1 < len(sentences):  # 'DESIGN' alone, its text in the next sentence
                sentence = f"{sentence} {sentences[i + 1]}"
            reading = _named(sentence, sentences)
            if reading is not None:
                return reading
    return _named(title, sentences, title=True) if title else None


def _named(text: str, sentences: Sequence[str], title: bool = False) -> DesignReading | None:
    """The design one text (a DESIGN label's sentence, or the title) names explicitly; of several, the first named."""
    everything = " ".join(sentences)
    if (_META.search(text) or (re.search(r"meta-?analy", text, _I) and title)) and not _NOT_A_STUDY.search(everything):
        return DesignReading("meta-analysis", text)
    if re.search(r"systematic(?:ally)? (?:literature )?review(?!s)", text, _I) or (
        _SYSTEMATIC.search(text) and not title
    ):
        return DesignReading("meta-analysis" if _POOLED.search(everything) else "systematic review", text)
    if title and re.search(
        r"\bin an? (?:\w+ ){0,2}(?:child|adolescent|infant|patient|man|woman|boy|girl)\b",
        text,
        _I,
    ):
        return DesignReading("case report or series", text)
    named = [(m.start(), design) for design, pattern in _NAMED if (m := pattern.search(text))]
    if named:
        design = min(named)[1]
        if design == "cohort" and not re.search(r"\bcohort\b", text, _I) and _DIAGNOSTIC.search(everything):
            design = "cross-sectional"  # "a prospective study" of a test's diagnostic accuracy: measured once
        return DesignReading(design, text)
    if title and _NARRATIVE_TITLE.search(text) and not _SYSTEMATIC.search(everything):
        return DesignReading("narrative review", text)
    return None


def _signature(title: str, sentences: Sequence[str]) -> DesignReading | None:
    """A design recognisable by what the abstract says was done."""
    everything = " ".join(sentences)
    modelling = _first(_MODELLING, sentences)
    if modelling is not None:
        return DesignReading("other", modelling)
    search = _first(_SYSTEMATIC, sentences)
    if search is not None:
        pooled = _first(_POOLED, sentences)
        return DesignReading("meta-analysis", pooled) if pooled else DesignReading("systematic review", search)
    meta = _first(_META_STUDY, sentences)
    if meta is not None and not _NOT_A_STUDY.search(everything):
        return DesignReading("meta-analysis", meta)
    findings = [s for s in sentences if not _PROSPECTIVE_ONLY.search(s)]  # "Future randomized trials should ..."
    strong = _first(_STRONG_RCT, [s for s in findings if not _ANIMAL.search(s)])  # "Pigs were randomized": animals
    if strong is not None:
        return DesignReading("RCT", strong)
    review = _first(_NARRATIVE, sentences)
    if review is not None and not _OWN_DATA.search(everything) and not _METHODS_PAPER.search(everything):
        return DesignReading("narrative review", review)
    case = _first(_CASE_REPORT, sentences)
    if case is not None:
        return DesignReading("case report or series", case)
    humans = bool(_HUMANS.search(everything))
    measured = _measured(sentences)
    animal_finding = _animal_finding(title, measured)
    rct = _first(_RCT, [s for s in findings if not _ANIMAL.search(s)])
    if rct is not None and not (animal_finding and not humans):
        return DesignReading("RCT", rct)
    uncontrolled = _first(_UNCONTROLLED, findings)
    if uncontrolled is not None and humans:
        return DesignReading("other", uncontrolled)  # an intervention without random allocation
    single_arm = _first(_SINGLE_ARM, findings)
    if single_arm is not None and humans and not _COMPARED.search(everything):
        return DesignReading("other", single_arm)  # an intervention in one group, without a comparison
    if animal_finding is not None and not _human_design_words(everything):
        return DesignReading("animal", animal_finding)
    if not humans:
        return None
    observational: tuple[tuple[Design, re.Pattern[str], bool], ...] = (
        ("case-control", _CASE_CONTROL, False),
        ("cross-sectional", re.compile(r"\bcross[- ]sectional(?:ly)?\b", _I), False),
        ("cohort", _COHORT, False),
        (
            "cross-sectional",
            _CROSS,
            True,
        ),  # a survey or a prevalence: only in a sentence that names people
        ("cross-sectional", _MEASURED_ONCE, False),
    )
    for design, pattern, of_people in observational:
        found = next(
            (s for s in measured if pattern.search(s) and (not of_people or _HUMANS.search(s))),
            None,
        )
        if found is not None and design == "case-control" and not _case_control(found, everything):
            return DesignReading("cross-sectional", found)  # patients and controls measured once, no exposure weighed
        if found is not None:
            return DesignReading(design, found)
    studied = _first(_STUDIED_ONCE, measured)  # people measured, no follow-up, no allocation: one point in time
    return DesignReading("cross-sectional", studied) if studied is not None else None


_EXPOSURE = re.compile(
    r"\brisks?\b|\bodds\b|\bexposures?\b|\bexposed\b|\bassociat\w*|\bpolymorphisms?\b|\bgenotyp\w*|\balleles?\b|"
    r"\bsusceptib\w*|\bgenome-wide\b|\bnested\b",
    _I,
)


def _case_control(sentence: str, everything: str) -> bool:
    """Cases against controls are a case-control study when it is named so, or when the abstract weighs an exposure
    (a risk, odds, an association, a genotype); patients and controls merely measured once and compared
    are a cross-sectional comparison (evals/data/README.md)."""
    return bool(re.search(r"\bcase[- ]control\b", sentence, _I) or _EXPOSURE.search(everything))


def _human_design_words(text: str) -> bool:
    return bool(
        re.search(
            r"\b(?:cohort|case-control|cross-sectional|randomi[sz]ed|participants)\b",
            text,
            _I,
        )
    )


def _animal_finding(title: str, sentences: Sequence[str]) -> str | None:
    """The sentence (or title) showing the finding rests on living animals: animals in the title, results in two
    sentences or more, or animal words outnumbering cell words ('mouse fibroblasts' counts as cells). One sentence
    of in vivo confirmation in a cell study does not make it an animal study."""
    in_vivo = [t for t in sentences if _IN_VIVO_RESULT.search(t)]
    if title and _ANIMAL.search(_MOUSE_CELLS.sub("", title)):
        return title
    if len(in_vivo) >= 2:
        return in_vivo[0]
    text = _MOUSE_CELLS.sub("", " ".join([title, *sentences]))
    animal_terms = len(_ANIMAL.findall(text)) + 2 * len(in_vivo)
    cell_words = len(re.findall(r"\bcells?\b", text, _I))  # immunology names cells in vivo too: half weight
    if animal_terms and animal_terms >= len(_IN_VITRO.findall(text)) - cell_words / 2:
        return in_vivo[0] if in_vivo else _first(_ANIMAL, sentences)
    return None


_EPIDEMIOLOGY = re.compile(  # what studies of people report, in an abstract that tells of others' studies
    r"\bepidemiolog\w*|"
    r"\b(?:clinical|randomi[sz]ed|observational|prospective|cohort|population-based) (?:studies|trials)\b|"
    r"\b(?:incidence|prevalence|mortality|morbidity|risk factors?)\b[^.]{0,60}\b(?:patients|people|subjects|adults|"
    r"children|women|men|populations?)\b",
    _I,
)


_OWN_DATA_PASSIVE = re.compile(  # "expression was evaluated in 107 patients", "P = 0.01": own work told passively
    r"\b(?:was|were) (?:evaluated|assessed|measured|analy[sz]ed|examined|studied|found|observed|recruited|enrolled|"
    r"followed|included|randomi[sz]ed)\b|\bp ?[<=]",
    _I,
)


def _subject(title: str, sentences: Sequence[str]) -> DesignReading | None:
    """No human design: what was studied. Models, methods and genomic maps (other); an abstract with neither own
    data, a 'this study' nor a number (narrative review); living animals carrying the finding (animal); cells,
    microbes or molecules (in vitro)."""
    texts = [title, *sentences]
    everything = " ".join(texts)
    computational = _first(_COMPUTATIONAL, texts) or _first(_METHODS_PAPER, texts)
    if computational is not None and not _IN_VIVO_RESULT.search(everything):
        return DesignReading("other", computational)
    first_person = re.search(r"\bwe\b|\bour\b|\bhere\b|\bthis study\b|\bthe present study\b", everything, _I)
    if (
        not _OWN_DATA.search(everything)
        and not first_person
        and (_LITERATURE.search(everything) or not re.search(r"\d+(?:\.\d+)? ?%|\bp ?[<=]", everything, _I))
    ):
        return DesignReading("narrative review", _first(_NARRATIVE, texts) or title or None)
    animal = _animal_finding(title, _measured(sentences))
    if animal is not None:
        return DesignReading("animal", animal)
    if (
        not _OWN_DATA.search(everything)
        and not first_person
        and not _OWN_DATA_PASSIVE.search(everything)
        and _EPIDEMIOLOGY.search(everything)
    ):
        return DesignReading("narrative review", _first(_EPIDEMIOLOGY, texts))  # others' studies of people, told
    in_vitro = _first(_IN_VITRO, texts)
    if in_vitro is not None:
        return DesignReading("in vitro", in_vitro)
    if title and _NARRATIVE_TITLE.search(title):
        return DesignReading("narrative review", title)
    return None
