"""Each paper the court read, at a glance: what it says to the question, what kind of study it is, how large.

The court reads a dozen records sentence by sentence and weighs their readings into one verdict; a scientist also
wants the tally behind it, the way Consensus shows a "Yes / Possibly / No" meter over the top papers with each paper's
study type and size. Here every record the court read gets one answer from the ledger's readings of it:

- towards the claim as written, for a claim or a yes / no question (the negation hypothesis's readings reversed, so
  both hypotheses' readings of a passage count once, on the claim's side or against it); towards the answer given
  (the leading hypothesis), for a choice or an open question;
- supports / contradicts when its kept readings take that side; mixed when they take both and neither side's summed
  confidence is twice the other's; silent when the court read it and kept no reading of it that takes a side (the
  ledger keeps the strongest few per hypothesis, so a record whose sentences only restate the question is silent);
- one reading of a record throughout the answer: where the court kept no reading of a record that takes a side but
  the claims check counted it for or against a quoted claim (`Claim.supporting` / `Claim.refuting`, other than the
  quote's own record), its answer is that check's dossier reading, stated towards the reference statement as the
  quote's role is (a record refuting a quote that supports reads against). The court's reading, where it has one,
  is the one its verdict weighed and stays.
  A record "Claims checked" lists as supporting a VERIFIED quote is never "related but silent" in the table above it,
  and one that refutes a quote counts against it in the meter (`claim_readings`).

Design and sample size come from agent/scoring/study.py. The meter is drawn only when at least METER_MIN_PAPERS
records were read: over one or two papers it would only repeat the table as a bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

from agent.english.lexicon import STANCE_FLIP
from agent.interfaces import CitedSentence
from agent.literature import Record
from agent.records import Claim, Hypothesis, LedgerEntry, PaperAnswer, PaperFinding, Stance
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


QUOTE_SIDE: dict[str, Stance] = {
    "supports_claim": "SUPPORT",
    "for_option": "SUPPORT",
    "for_answer": "SUPPORT",
    "against_claim": "CONTRADICT",
    "against_option": "CONTRADICT",
    "against_answer": "CONTRADICT",
}
"""A quote's role (agent/answer/compose.py, ROLES) as a reading of the reference statement: the roles are stated
towards the claim as written, the selected option or the answer line, which is what the reference statement is."""


def claim_readings(claims: Sequence[Claim], quoted: Sequence[CitedSentence]) -> list[tuple[LedgerEntry, Stance]]:
    """The claims check's readings of the records it counted (module docstring), towards the reference statement:
    each dossier entry of a record in a claim's `supporting` or `refuting` list that is not the claim's own source
    (whose reading is the ledger's, already counted), for a claim quoted under a role that takes a side (`quoted`:
    the answer's sentences; a "Related evidence" quote takes none, and neither do the records that bear it out). A
    record that supports the quote reads as the quote does; one that refutes it, the other way."""
    sides = {
        sentence.text: QUOTE_SIDE[sentence.role] for sentence in quoted if sentence.role and sentence.role in QUOTE_SIDE
    }
    readings: list[tuple[LedgerEntry, Stance]] = []
    for checked in claims:
        side = next((stance for text, stance in sides.items() if f'"{checked.text}' in text), None)
        if side is None:
            continue
        counted = (set(checked.supporting) | set(checked.refuting)) - set(checked.sources)
        for entry in checked.dossier:
            if entry.record_id in counted and entry.stance != "NEUTRAL":
                readings.append((entry, side if entry.stance == "SUPPORT" else STANCE_FLIP[side]))
    return readings


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
    claims: Sequence[Claim] = (),
    quoted: Sequence[CitedSentence] = (),
) -> list[PaperFinding]:
    """Each record's answer, design and sample size (module docstring), in the order the records are given: from the
    court's readings of it, or, where the court kept none that takes a side, from the claims check's
    (`claim_readings`; `quoted`: the answer's sentences)."""
    readings, checked = reference_readings(ledger, hypotheses, best), claim_readings(claims, quoted)
    findings = []
    for record in records:
        answer, sentence = answer_of([(e, stance) for e, stance in readings if e.record_id == record.id])
        checks = [(e, stance) for e, stance in checked if e.record_id == record.id]
        if answer == "silent" and checks:  # the court kept no reading that takes a side: the claims check's reading
            answer, sentence = answer_of(checks)
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
