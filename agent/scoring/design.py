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
packaged encoder's embeddings did worse, evals/HISTORY.md). The words and phrases each rule matches are
agent/scoring/design_cues.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from agent.common.text import split_sentences
from agent.literature import Record
from agent.records import StudyDesign
from agent.scoring import design_cues as cue

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


def _measured(sentences: Sequence[str]) -> list[str]:
    """The sentences outside a structured abstract's background section (BACKGROUND / CONTEXT, until the next
    label), where what the study itself did is stated."""
    kept, background = [], False
    for sentence in sentences:
        label = cue.SECTION.match(sentence)
        if label and len(label.group(1)) > 3:
            background = bool(cue.BACKGROUND.match(label.group(1)))
        if not background:
            kept.append(sentence)
    return kept


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
    if (cue.META.search(text) or (re.search(r"meta-?analy", text, _I) and title)) and not cue.NOT_A_STUDY.search(
        everything
    ):
        return DesignReading("meta-analysis", text)
    if re.search(r"systematic(?:ally)? (?:literature )?review(?!s)", text, _I) or (
        cue.SYSTEMATIC.search(text) and not title
    ):
        return DesignReading("meta-analysis" if cue.POOLED.search(everything) else "systematic review", text)
    if title and re.search(
        r"\bin an? (?:\w+ ){0,2}(?:child|adolescent|infant|patient|man|woman|boy|girl)\b",
        text,
        _I,
    ):
        return DesignReading("case report or series", text)
    named = [(m.start(), design) for design, pattern in _NAMED if (m := pattern.search(text))]
    if named:
        design = min(named)[1]
        if design == "cohort" and not re.search(r"\bcohort\b", text, _I) and cue.DIAGNOSTIC.search(everything):
            design = "cross-sectional"  # "a prospective study" of a test's diagnostic accuracy: measured once
        return DesignReading(design, text)
    if title and cue.NARRATIVE_TITLE.search(text) and not cue.SYSTEMATIC.search(everything):
        return DesignReading("narrative review", text)
    return None


def _signature(title: str, sentences: Sequence[str]) -> DesignReading | None:
    """A design recognisable by what the abstract says was done."""
    everything = " ".join(sentences)
    modelling = _first(cue.MODELLING, sentences)
    if modelling is not None:
        return DesignReading("other", modelling)
    search = _first(cue.SYSTEMATIC, sentences)
    if search is not None:
        pooled = _first(cue.POOLED, sentences)
        return DesignReading("meta-analysis", pooled) if pooled else DesignReading("systematic review", search)
    meta = _first(cue.META_STUDY, sentences)
    if meta is not None and not cue.NOT_A_STUDY.search(everything):
        return DesignReading("meta-analysis", meta)
    findings = [s for s in sentences if not cue.PROSPECTIVE_ONLY.search(s)]  # "Future randomized trials should ..."
    strong = _first(
        cue.STRONG_RCT, [s for s in findings if not cue.ANIMAL.search(s)]
    )  # "Pigs were randomized": animals
    if strong is not None:
        return DesignReading("RCT", strong)
    review = _first(cue.NARRATIVE, sentences)
    if review is not None and not cue.OWN_DATA.search(everything) and not cue.METHODS_PAPER.search(everything):
        return DesignReading("narrative review", review)
    case = _first(cue.CASE_REPORT, sentences)
    if case is not None:
        return DesignReading("case report or series", case)
    humans = bool(cue.HUMANS.search(everything))
    measured = _measured(sentences)
    animal_finding = _animal_finding(title, measured)
    rct = _first(cue.RCT, [s for s in findings if not cue.ANIMAL.search(s)])
    if rct is not None and not (animal_finding and not humans):
        return DesignReading("RCT", rct)
    uncontrolled = _first(cue.UNCONTROLLED, findings)
    if uncontrolled is not None and humans:
        return DesignReading("other", uncontrolled)  # an intervention without random allocation
    single_arm = _first(cue.SINGLE_ARM, findings)
    if single_arm is not None and humans and not cue.COMPARED.search(everything):
        return DesignReading("other", single_arm)  # an intervention in one group, without a comparison
    if animal_finding is not None and not _human_design_words(everything):
        return DesignReading("animal", animal_finding)
    if not humans:
        return None
    observational: tuple[tuple[Design, re.Pattern[str], bool], ...] = (
        ("case-control", cue.CASE_CONTROL, False),
        ("cross-sectional", re.compile(r"\bcross[- ]sectional(?:ly)?\b", _I), False),
        ("cohort", cue.COHORT, False),
        (
            "cross-sectional",
            cue.CROSS,
            True,
        ),  # a survey or a prevalence: only in a sentence that names people
        ("cross-sectional", cue.MEASURED_ONCE, False),
    )
    for design, pattern, of_people in observational:
        found = next(
            (s for s in measured if pattern.search(s) and (not of_people or cue.HUMANS.search(s))),
            None,
        )
        if found is not None and design == "case-control" and not _case_control(found, everything):
            return DesignReading("cross-sectional", found)  # patients and controls measured once, no exposure weighed
        if found is not None:
            return DesignReading(design, found)
    studied = _first(cue.STUDIED_ONCE, measured)  # people measured, no follow-up, no allocation: one point in time
    return DesignReading("cross-sectional", studied) if studied is not None else None


def _case_control(sentence: str, everything: str) -> bool:
    """Cases against controls are a case-control study when it is named so, or when the abstract weighs an exposure
    (a risk, odds, an association, a genotype); patients and controls merely measured once and compared
    are a cross-sectional comparison (evals/data/README.md)."""
    return bool(re.search(r"\bcase[- ]control\b", sentence, _I) or cue.EXPOSURE.search(everything))


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
    in_vivo = [t for t in sentences if cue.IN_VIVO_RESULT.search(t)]
    if title and cue.ANIMAL.search(cue.MOUSE_CELLS.sub("", title)):
        return title
    if len(in_vivo) >= 2:
        return in_vivo[0]
    text = cue.MOUSE_CELLS.sub("", " ".join([title, *sentences]))
    animal_terms = len(cue.ANIMAL.findall(text)) + 2 * len(in_vivo)
    cell_words = len(re.findall(r"\bcells?\b", text, _I))  # immunology names cells in vivo too: half weight
    if animal_terms and animal_terms >= len(cue.IN_VITRO.findall(text)) - cell_words / 2:
        return in_vivo[0] if in_vivo else _first(cue.ANIMAL, sentences)
    return None


def _subject(title: str, sentences: Sequence[str]) -> DesignReading | None:
    """No human design: what was studied. Models, methods and genomic maps (other); an abstract with neither own
    data, a 'this study' nor a number (narrative review); living animals carrying the finding (animal); cells,
    microbes or molecules (in vitro)."""
    texts = [title, *sentences]
    everything = " ".join(texts)
    computational = _first(cue.COMPUTATIONAL, texts) or _first(cue.METHODS_PAPER, texts)
    if computational is not None and not cue.IN_VIVO_RESULT.search(everything):
        return DesignReading("other", computational)
    first_person = re.search(r"\bwe\b|\bour\b|\bhere\b|\bthis study\b|\bthe present study\b", everything, _I)
    if (
        not cue.OWN_DATA.search(everything)
        and not first_person
        and (cue.LITERATURE.search(everything) or not re.search(r"\d+(?:\.\d+)? ?%|\bp ?[<=]", everything, _I))
    ):
        return DesignReading("narrative review", _first(cue.NARRATIVE, texts) or title or None)
    animal = _animal_finding(title, _measured(sentences))
    if animal is not None:
        return DesignReading("animal", animal)
    if (
        not cue.OWN_DATA.search(everything)
        and not first_person
        and not cue.OWN_DATA_PASSIVE.search(everything)
        and cue.EPIDEMIOLOGY.search(everything)
    ):
        return DesignReading("narrative review", _first(cue.EPIDEMIOLOGY, texts))  # others' studies of people, told
    in_vitro = _first(cue.IN_VITRO, texts)
    if in_vitro is not None:
        return DesignReading("in vitro", in_vitro)
    if title and cue.NARRATIVE_TITLE.search(title):
        return DesignReading("narrative review", title)
    return None
