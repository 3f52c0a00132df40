"""Each paper the court read, at a glance: what it says to the question, what kind of study it is, how large.

The court reads a dozen records sentence by sentence and weighs their readings into one verdict; a scientist also
wants the tally behind it, the way Consensus shows a "Yes / Possibly / No" meter over the top papers with each paper's
study type and size. Here every record the court read gets one answer from the ledger's readings of it:

- towards the claim as written, for a claim or a yes / no question (the negation hypothesis's readings reversed, so
  both hypotheses' readings of a passage count once, on the claim's side or against it); towards the answer given
  (the leading hypothesis), for a choice or an open question;
- supports / contradicts when its kept readings take that side; mixed when they take both and neither side's summed
  confidence is twice the other's; silent when the court read it and kept no reading of it that takes a side (the
  ledger keeps the strongest few per hypothesis, so a record whose sentences only restate the question is silent).

Design and sample size come from agent/scoring/study.py. The meter is drawn only when at least METER_MIN_PAPERS
records were read: over one or two papers it would only repeat the table as a bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

from agent.english.lexicon import STANCE_FLIP
from agent.literature import Record
from agent.records import Hypothesis, LedgerEntry, PaperAnswer, PaperFinding, Stance
from agent.scoring.study import read_study

METER_MIN_PAPERS = 3
ANSWER_ORDER: tuple[PaperAnswer, ...] = ("supports", "mixed", "contradicts", "silent")
ANSWER_LABEL: dict[PaperAnswer, str] = {
    "supports": "supports",
    "mixed": "mixed",
    "contradicts": "contradicts",
    "silent": "related but silent",
}
OUTWEIGHS = 2.0  # one side's summed confidence this many times the other's decides a record read on both sides


def records_read(read_ids: Sequence[str], ledger: Sequence[LedgerEntry], pool: Mapping[str, Record]) -> list[Record]:
    """The records the court read (its last reading, in its order), then any other record the ledger cites (a passage
    a reviewer added), each once."""
    ids = dict.fromkeys([*read_ids, *(e.record_id for e in ledger)])
    return [pool[rid] for rid in ids if rid in pool]


def reference_readings(
    ledger: Sequence[LedgerEntry], hypotheses: Sequence[Hypothesis], best: Hypothesis | None
) -> list[tuple[LedgerEntry, Stance]]:
    """The ledger's readings towards the question's reference statement (module docstring): (entry, stance) pairs."""
    claim = next((h for h in hypotheses if h.origin == "claim" and h.polarity > 0), None)
    if claim is not None:
        negations = {h.id for h in hypotheses if h.origin == "negation" and h.statement == claim.statement}
        return [
            (e, e.stance if e.hypothesis_id == claim.id else STANCE_FLIP[e.stance])
            for e in ledger
            if e.hypothesis_id == claim.id or e.hypothesis_id in negations
        ]
    if best is None:
        return []
    return [(e, e.stance) for e in ledger if e.hypothesis_id == best.id]


def answer_of(readings: Sequence[tuple[LedgerEntry, Stance]]) -> tuple[PaperAnswer, str | None]:
    """One record's answer from its readings, and the passage that decided it (the strongest on the winning side;
    for a silent record its strongest neutral reading, if any)."""
    best: dict[tuple[Stance, object], tuple[float, str]] = {}
    for entry, stance in readings:  # each passage counts once per side (claim and negation read the same passages)
        key = (stance, (entry.sentence_index, entry.sentence_end, entry.text))
        if entry.confidence > best.get(key, (-1.0, ""))[0]:
            best[key] = (entry.confidence, entry.text)

    def side(stance: Stance) -> list[tuple[float, str]]:
        return sorted((v for (s, _), v in best.items() if s == stance), reverse=True)

    support, against, neutral = side("SUPPORT"), side("CONTRADICT"), side("NEUTRAL")
    s, c = sum(conf for conf, _ in support), sum(conf for conf, _ in against)
    if support and against and max(s, c) < OUTWEIGHS * min(s, c):
        return "mixed", max(support[0], against[0])[1]
    if support and s >= c:
        return "supports", support[0][1]
    if against:
        return "contradicts", against[0][1]
    return "silent", neutral[0][1] if neutral else None


def paper_findings(
    records: Sequence[Record],
    ledger: Sequence[LedgerEntry],
    hypotheses: Sequence[Hypothesis],
    best: Hypothesis | None,
) -> list[PaperFinding]:
    """Each record's answer, design and sample size (module docstring), in the order the records are given."""
    readings = reference_readings(ledger, hypotheses, best)
    findings = []
    for record in records:
        answer, sentence = answer_of([(e, stance) for e, stance in readings if e.record_id == record.id])
        study = read_study(record)
        findings.append(
            PaperFinding(
                record_id=record.id,
                title=record.title,
                year=record.year,
                answer=answer,
                answer_sentence=sentence,
                **asdict(study),  # design, design_sentence, sample_size, size_sentence
            )
        )
    return findings


def meter_counts(papers: Sequence[PaperFinding]) -> dict[PaperAnswer, int]:
    """How many papers gave each answer, in the meter's order."""
    return {answer: sum(p.answer == answer for p in papers) for answer in ANSWER_ORDER}


def meter_drawn(papers: Sequence[PaperFinding]) -> bool:
    return len(papers) >= METER_MIN_PAPERS


def meter_text(papers: Sequence[PaperFinding]) -> str:
    """'supports 3 · mixed 1 · contradicts 1 · related but silent 2' (answers no paper gave left out)."""
    return " · ".join(f"{ANSWER_LABEL[a]} {n}" for a, n in meter_counts(papers).items() if n)
