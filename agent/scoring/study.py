"""A record's study at a glance: its design and its sample size, each with the sentence it came from, and the same
as numbers a model can take (the verdict model may weigh a meta-analysis of 20,000 above a case report)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from agent.literature import Record
from agent.scoring.design import EVIDENCE_LEVEL, Design, DesignReading, design_of, sentences_of
from agent.scoring.sample_size import SizeReading, size_of

_ONE_CASE = re.compile(
    r"\ba case\b|\bcase report\b|\b(?:a|an) (?:\w+ ){0,2}(?:patient|child|adolescent|infant|man|woman|boy|girl)\b|"
    r"\ba \d+-year-old\b",
    re.IGNORECASE,
)
WITHOUT_PARTICIPANTS: frozenset[Design] = frozenset({"in vitro", "narrative review"})
"""Designs whose abstracts count cells, genes or studies, never participants: no size is read from them."""


@dataclass(frozen=True)
class StudyReading:
    design: Design
    design_sentence: str | None
    sample_size: int | None
    size_sentence: str | None


def read_study(record: Record) -> StudyReading:
    """The record's design and stated sample size (agent/scoring/design.py, agent/scoring/sample_size.py)."""
    sentences = sentences_of(record)
    design = design_of(record.title or "", sentences)
    size = (
        None
        if design.design in WITHOUT_PARTICIPANTS
        else size_of(sentences, pooled=design.design in ("meta-analysis", "systematic review"))
    )
    if design.sentence is None and size is not None:  # people counted, no design stated, no follow-up, no allocation
        design = DesignReading("cross-sectional", size.sentence)
    if (
        size is None
        and design.design == "case report or series"
        and design.sentence
        and _ONE_CASE.search(design.sentence)
    ):
        size = SizeReading(1, design.sentence)  # "We report a case of ...": one patient
    return StudyReading(
        design=design.design,
        design_sentence=design.sentence,
        sample_size=size.size if size else None,
        size_sentence=size.sentence if size else None,
    )


def study_numbers(record: Record) -> dict[str, float]:
    """The study as numbers: `evidence_level` (agent.scoring.design.EVIDENCE_LEVEL, 0 to 1), `log10_size`
    (log10 of 1 + the stated sample size; 0 when none is stated) and `size_stated` (1 or 0), for a model's inputs."""
    study = read_study(record)
    return {
        "evidence_level": EVIDENCE_LEVEL[study.design],
        "log10_size": math.log10(1 + study.sample_size) if study.sample_size else 0.0,
        "size_stated": 1.0 if study.sample_size else 0.0,
    }
