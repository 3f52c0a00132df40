"""Faithfulness: does each cited sentence of the answer say what its cited passage says?

For every answer sentence, the statement it makes (the quoted passage of an evidence statement, else the sentence
itself) is judged by the run's stance judge against the closest passages (by cosine) of each record it cites. A
sentence is faithful when some cited passage SUPPORTS it; a sentence that its own citations only CONTRADICT is
dropped and noted. A quote whose every part stands word for word in a record it cites is faithful without a
judge: it is that record's text, and the judge, asked whether a sentence supports itself, said no for one in four
of an offline answer's quotes ("However, the overall benefits observed with statins appear to be greater ..."),
which the answer then reported as "0.75 of the cited statements are supported". The share of faithful sentences
is `Answer.faithfulness` (and a column of the evals).
Confidence thresholds are the court's (`stance_min_confidence`), so a retrained judge needs no refit here.
"""

from __future__ import annotations

import re

import numpy as np

from agent.interfaces import CitedSentence, Embedder, StanceJudge
from agent.literature import Record
from agent.scoring.relevance import units_of

PASSAGES_PER_CITATION = 2


def statement_of(sentence: CitedSentence) -> str:
    """What the sentence asserts: its quote when it quotes a passage, else its text."""
    parts = sentence.text.split('"')
    return parts[1].rstrip("…").strip() if len(parts) >= 3 else sentence.text


async def check_faithfulness(
    sentences: list[CitedSentence],
    records: dict[str, Record],
    embedder: Embedder,
    judge: StanceJudge,
    min_confidence: float,
) -> tuple[list[CitedSentence], float | None, list[str]]:
    """(kept sentences, faithful share of the checked ones or None when none was checked, notes)."""
    pairs: list[tuple[int, str, str]] = []
    verbatim: set[int] = set()
    for i, sentence in enumerate(sentences):
        statement = statement_of(sentence)
        if _quoted_verbatim(statement, [records[rid] for rid in sentence.citations if rid in records]):
            verbatim.add(i)
            continue
        units = [u for rid in sentence.citations if rid in records for u in units_of(records[rid])]
        if not units:
            continue
        vectors = await embedder.embed([statement, *units], kind="document")
        order = np.argsort(-(vectors[1:] @ vectors[0]))[: PASSAGES_PER_CITATION * len(sentence.citations)]
        pairs += [(i, statement, units[int(j)]) for j in order]
    if not pairs and not verbatim:
        return sentences, None, []
    judged = await judge.judge([(statement, passage) for _, statement, passage in pairs]) if pairs else []
    supported: set[int] = set(verbatim)
    contradicted: set[int] = set()
    for (i, _, _), result in zip(pairs, judged, strict=True):
        if result.confidence >= min_confidence and result.stance == "SUPPORT":
            supported.add(i)
        elif result.confidence >= min_confidence and result.stance == "CONTRADICT":
            contradicted.add(i)
    checked = {i for i, _, _ in pairs} | verbatim
    dropped = contradicted - supported
    notes = [
        f"faithfulness: dropped a sentence its own citation contradicts: {sentences[i].text[:80]!r}"
        for i in sorted(dropped)
    ]
    kept = [s for i, s in enumerate(sentences) if i not in dropped]
    return kept, round(len(supported & checked) / len(checked), 4), notes


def _quoted_verbatim(statement: str, cited: list[Record]) -> bool:
    """Whether every part of the quote (split at its "[…]" omissions and "…" cuts) stands, case and spacing aside,
    in the text of one record it cites."""
    parts = [_plain(part) for part in re.split(r"\[…\]|…", statement)]
    parts = [part for part in parts if len(part) >= 12]
    return bool(parts) and any(
        all(part in text for part in parts) for text in map(_plain, (record.text for record in cited))
    )


def _plain(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")
