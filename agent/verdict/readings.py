"""What the court read, kept per sentence: the verdict model's inputs (agent/verdict/features.py).

The court's formula sums each hypothesis's readings into one support and one contradiction number, and what it sums
away (which reader said what, in which section, about which record, how close to the claim) is what tells a right
verdict from a wrong one. A reading row is plain JSON (state and answers carry it as is, checkpoints need no new
class): one row per (statement, judged passage), plus one row per top record read as a whole (`kind` 'record': the
claim against that record's findings together, the way SciFact labels an abstract), and for a claim the
negation's own reading of each passage (`neg`: two readings that must agree, where the negation hypothesis otherwise
takes the claim's reversed). Each row keeps the text it read, so a reader trained later is fitted into the verdict
model on the same passages (training/fit_verdict.py) without rerunning retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agent.common.text import is_finding, is_tentative, jaccard
from agent.judges.breakdown import decider_readers, reader_rows
from agent.judges.reading import read_structure
from agent.literature import Passage, Record
from agent.records import STANCE_LABELS, Hypothesis
from agent.scoring.aspect import aspects_of_hypothesis, record_addresses
from agent.scoring.chunking import structured_label
from agent.scoring.court import section_weight, under_results
from agent.scoring.quantitative import has_quantitative_claim
from agent.scoring.significance import only_non_significant
from agent.verdict.features import cascade_rows

RECORDS_READ_WHOLE = 3  # top records whose findings are read together against the claim
FINDINGS_SENTENCES = 4  # at most this many finding sentences make a record's findings text
RESULT_SECTIONS = ("results", "conclusions", "conclusion", "findings", "interpretation")


def _row(probabilities: Sequence[float]) -> list[float]:
    return [round(float(x), 4) for x in probabilities]


def findings_text(record: Record) -> str:
    """The record's findings as one passage: its results / conclusions sentences when labelled, else its last finding
    sentences (an unstructured abstract states its results last)."""
    sentences = [s for s in (record.sentences or []) if s.strip()]
    labelled, section = [], None
    for sentence in sentences:
        section = structured_label(sentence) or section
        if section and any(section.startswith(name) for name in RESULT_SECTIONS):
            labelled.append(sentence)
    chosen = labelled or [s for s in sentences if is_finding(s)]
    return " ".join(chosen[-FINDINGS_SENTENCES:]) or record.abstract or record.title


def claim_negation(hypotheses: list[Hypothesis]) -> tuple[Hypothesis | None, Hypothesis | None]:
    """The claim hypothesis and its negation, when the question is a claim (or yes / no question)."""
    claim = next((h for h in hypotheses if h.origin == "claim" and h.polarity > 0), None)
    negation = next((h for h in hypotheses if h.origin == "negation" and h.polarity < 0), None)
    return claim, negation


async def read_all(
    judge: Any,
    statements: list[str],
    chosen: dict[str, list[int]],
    passages: list[Passage],
    sims: np.ndarray,
    final: dict[tuple[str, str], Any],
    hypotheses: list[Hypothesis],
    records: list[Record],
    section_weights: dict[str, float],
) -> list[dict[str, Any]]:
    """Every reading row of one court (module docstring); `final` is the composed judge's result of each pair."""
    pairs = [(s, passages[i].text) for s in statements for i in chosen[s]]
    readers = await reader_rows(judge, pairs)
    claim, negation = claim_negation(hypotheses)
    negated: dict[str, list[float]] = {}
    if claim is not None and negation is not None and negation.text != claim.statement:
        texts = [passages[i].text for i in chosen.get(claim.statement, [])]
        for text, result in zip(texts, await judge.judge([(negation.text, t) for t in texts]), strict=True):
            negated[text] = _row([result.probabilities.get(label, 0.0) for label in STANCE_LABELS])
    rank_of = {record.id: rank for rank, record in enumerate(records)}
    aspects = {h.statement: aspects_of_hypothesis(h) for h in hypotheses}
    by_id = {record.id: record for record in records}
    ids_of = {s: [h.id for h in hypotheses if h.statement == s] for s in statements}
    rows: list[dict[str, Any]] = []
    k = 0
    for j, statement in enumerate(statements):
        for order, i in enumerate(chosen[statement]):
            passage, result = passages[i], final[(statement, passages[i].text)]
            structure = read_structure(statement, passage.text)
            record = by_id[passage.record_id]
            rows.append(
                {
                    "kind": "sentence",
                    "statement": j,
                    "passage": i,
                    "sentence": passage.sentence_index,
                    "sentence_end": passage.sentence_end,
                    "hypotheses": ids_of[statement],
                    "record": passage.record_id,
                    "text": passage.text,  # kept so a new reader can be fitted on what the court read, unrerun
                    "rank": rank_of[passage.record_id],
                    "order": order,
                    "sim": round(float(sims[i, j]), 4),
                    "p": _row([result.probabilities.get(label, 0.0) for label in STANCE_LABELS]),
                    "readers": {name: _row(rows_[k]) for name, rows_ in readers.items()},
                    "structure": structure.structure if structure else None,
                    "structure_side": structure.side if structure else None,
                    "finding": is_finding(passage.text),
                    "tentative": is_tentative(passage.text),
                    "results": under_results(passage.text, section_weights),
                    "section_weight": section_weight(passage.section, section_weights),
                    "window": passage.sentence_end is not None,
                    "quantitative": has_quantitative_claim(passage.text),
                    "non_significant": only_non_significant(passage.text),
                    "restates": round(jaccard(passage.text, statement), 4),
                    "addressed": record_addresses(aspects[statement], record) if statement in aspects else True,
                    **({"neg": negated[passage.text]} if passage.text in negated else {}),
                }
            )
            k += 1
    rows += await _whole_records(judge, statements, records, rank_of)
    if claim is not None and negation is not None and claim.statement in statements:
        await read_cascade(judge, rows, statements.index(claim.statement), claim.statement)
    return rows


def cascade_pairs(
    rows: list[dict[str, Any]], statement: int, text: str
) -> list[tuple[dict[str, Any], tuple[str, str]]]:
    """The rows the decider reads for one statement, each with the (statement, passage) pair it reads: the same at
    run time and when collected answers are read again (training/reread.py)."""
    return [(row, (text, str(row["text"]))) for row in cascade_rows(rows, statement)]


async def read_cascade(judge: Any, rows: list[dict[str, Any]], statement: int, text: str) -> None:
    """A claim's deciding rows read by the judge's deciders (agent/judges/decider.py), in place: only a claim (or
    yes / no question), whose verdict the model decides from its statement's rows."""
    chosen = cascade_pairs(rows, statement, text)
    for reader in decider_readers(judge) if chosen else []:
        results = await reader.judge([pair for _, pair in chosen])
        name = str(getattr(reader, "name", type(reader).__name__))
        for (row, _), result in zip(chosen, results, strict=True):
            row["readers"][name] = _row([result.probabilities.get(label, 0.0) for label in STANCE_LABELS])


async def _whole_records(
    judge: Any, statements: list[str], records: list[Record], rank_of: dict[str, int]
) -> list[dict[str, Any]]:
    """Each statement against each top record's findings read together (`kind` 'record')."""
    top = records[:RECORDS_READ_WHOLE]
    pairs = [(s, findings_text(r)) for s in statements for r in top]
    results = await judge.judge(pairs) if pairs else []
    readers = await reader_rows(judge, pairs, records=True)
    rows = []
    for n, result in enumerate(results):
        j, record = divmod(n, len(top))
        rows.append(
            {
                "kind": "record",
                "statement": j,
                "record": top[record].id,
                "text": pairs[n][1],
                "rank": rank_of[top[record].id],
                "p": _row([result.probabilities.get(label, 0.0) for label in STANCE_LABELS]),
                "readers": {name: _row(rows_[n]) for name, rows_ in readers.items()},
            }
        )
    return rows
