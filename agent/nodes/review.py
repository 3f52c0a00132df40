"""review: a scientist rules on the court's ledger before the answer is written (opt-in: `answer.review`, flat
`review=true`).

Every route to the answer passes here (agent.routing.ROUTE_NODES), so the ledger it shows is the court's last. It
stops the run with LangGraph's `interrupt`, its value the ledger numbered (agent/review/ledger.py); Studio shows it and
resumes with the reviewer's edits, the SDK sends them as `command: {"resume": {...}}`, the Python API as `review=` or
a `reviewer` callback, `sparkit ask --review` from the terminal. Edits that do not fit the ledger interrupt again with
the reason (at most MAX_ATTEMPTS times; then the ledger stands unreviewed, said in a note). The verdict is then
weighed from the edited ledger through the court's own path (agent.nodes.court.weigh); an empty review changes
nothing. Each change is kept with the run id (agent/review/corrections.py) and named in the answer.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

import numpy as np
from langgraph.types import interrupt

from agent.config import Context
from agent.english.lexicon import STANCE_FLIP
from agent.literature import Record
from agent.nodes.court import weigh
from agent.nodes.parts import RunParts
from agent.records import Hypothesis, LedgerEntry
from agent.review.corrections import record_changes
from agent.review.ledger import (
    Change,
    Edits,
    ReviewError,
    ReviewPassage,
    edited_ledger,
    edited_readings,
    parse_edits,
    review_passages,
    review_payload,
)
from agent.scoring.chunking import sentence_passages
from agent.scoring.court import passage_entry, passage_weight, score_hypothesis, source_types_by_record
from agent.state import ResearchState
from agent.tracing.progress import emit
from agent.verdict.readings import read_all

MAX_ATTEMPTS = 3
ADDED_PASSAGES = 100_000  # passage numbers of an added record's sentences start here (the court's are below)


async def review(state: ResearchState, parts: RunParts) -> ResearchState:
    settings = parts.settings
    if not settings.answer.review or state.get("review") is not None:
        return {}
    hypotheses = state.get("hypotheses") or []
    ledger = state.get("ledger") or []
    pool: dict[str, Record] = state.get("pool") or {}
    if not hypotheses or not ledger:
        return {
            "review": {"changes": []},
            "notes": ["review: the court read no passage, so there was nothing to review"],
        }
    passages = review_passages(hypotheses, ledger)
    payload = review_payload(state["question"], hypotheses, ledger, pool)
    edits, error = _asked(payload, passages, pool)
    if edits is None:
        return {
            "review": {"changes": [], "refused": error},
            "notes": [f"review: {MAX_ATTEMPTS} reviews did not fit the ledger ({error}); it stands unreviewed"],
        }
    if edits.empty:
        emit({"node": "review", "changes": 0})
        return {"review": {"changes": []}}
    update, changes = await _reweighed(state, parts, hypotheses, ledger, passages, edits)
    as_json = [c.as_json() for c in changes]
    record_changes(as_json, state.get("run_id", ""))
    emit({"node": "review", "changes": len(changes)})
    return cast(ResearchState, {**update, "review": {"changes": as_json}})


def _asked(
    payload: dict[str, Any], passages: list[ReviewPassage], pool: dict[str, Record]
) -> tuple[Edits | None, str | None]:
    """The reviewer's edits: interrupt, and again with the reason while they do not fit (bounded)."""
    error: str | None = None
    for _ in range(MAX_ATTEMPTS):
        value = interrupt({**payload, **({"error": error} if error else {})})
        try:
            return parse_edits(value, passages, pool), None
        except ReviewError as exc:
            error = str(exc)
    return None, error


async def _reweighed(
    state: ResearchState,
    parts: RunParts,
    hypotheses: list[Hypothesis],
    ledger: list[LedgerEntry],
    passages: list[ReviewPassage],
    edits: Edits,
) -> tuple[dict[str, Any], list[Change]]:
    """The court's update weighed from the edited ledger and readings, and the changes made."""
    settings = parts.settings
    backend = await parts.backend()
    statements = list(dict.fromkeys(h.statement for h in hypotheses))
    kept, changes = edited_ledger(hypotheses, ledger, passages, edits)
    readings = edited_readings(state.get("readings") or [], passages, edits, statements)
    pool: dict[str, Record] = state.get("pool") or {}
    added = [pool[rid] for rid in edits.add]
    if added:
        new_entries, new_rows = await _read_added(backend, hypotheses, statements, added, settings, state)
        kept += new_entries
        readings += new_rows
        changes += [Change("add", statements[0], r.id, r.title, None, None) for r in added]
    by_hypothesis: dict[str, list[LedgerEntry]] = defaultdict(list)
    for entry in kept:
        by_hypothesis[entry.hypothesis_id].append(entry)
    scored, weighed_ledger = [], []
    for h in hypotheses:
        h_scored, h_kept = score_hypothesis(h, by_hypothesis[h.id], settings)
        scored.append(h_scored)
        weighed_ledger += h_kept
    judged = _judged_by_passage(weighed_ledger, readings, hypotheses, statements)
    semantic = state.get("semantic") or [0.0] * len(hypotheses)
    update = await weigh(
        backend, state, scored, weighed_ledger, readings, semantic, judged, state.get("relevance"), settings
    )
    return update, changes


def _judged_by_passage(
    ledger: list[LedgerEntry], readings: list[dict[str, Any]], hypotheses: list[Hypothesis], statements: list[str]
) -> dict[tuple[str, int], LedgerEntry]:
    """(hypothesis id, reading row's passage number) -> its ledger entry: what with_decider promotes."""
    by_id = {h.id: h for h in hypotheses}
    number = {
        (row["statement"], row["record"], row.get("sentence"), row.get("sentence_end")): row["passage"]
        for row in readings
        if row.get("kind") == "sentence"
    }
    judged = {}
    for entry in ledger:
        key = (
            statements.index(by_id[entry.hypothesis_id].statement),
            entry.record_id,
            entry.sentence_index,
            entry.sentence_end,
        )
        if key in number:
            judged[(entry.hypothesis_id, number[key])] = entry
    return judged


async def _read_added(
    backend: Any,
    hypotheses: list[Hypothesis],
    statements: list[str],
    records: list[Record],
    settings: Context,
    state: ResearchState,
) -> tuple[list[LedgerEntry], list[dict[str, Any]]]:
    """An added record read as the court reads its records: its sentences closest to each statement judged, the
    ledger entries (after the court's ranked records) and the verdict model's reading rows."""
    passages = sentence_passages(records)
    if not passages:
        return [], []
    vectors = await backend.embedder.embed(statements + [p.text for p in passages], kind="document")
    sims = vectors[len(statements) :] @ vectors[: len(statements)].T
    per = settings.court.sentences_per_hypothesis
    chosen = {s: [int(i) for i in np.argsort(-sims[:, j])[:per]] for j, s in enumerate(statements)}
    pairs = [(s, passages[i].text) for s in statements for i in chosen[s]]
    results = dict(zip(pairs, await backend.stance.judge(pairs), strict=True))
    rank = len(state.get("ranked") or [])
    source_types = source_types_by_record(records)
    entries = []
    for h in hypotheses:
        for i in chosen[h.statement]:
            result = results[(h.statement, passages[i].text)]
            stance, confidence = result.side_taken(
                settings.court.stance_min_confidence, settings.court.stance_side_floor
            )
            record = next(r for r in records if r.id == passages[i].record_id)
            weight = passage_weight(passages[i], record, h, settings, source_types[record.id], rank)
            stance = STANCE_FLIP[stance] if h.polarity < 0 else stance
            entries.append(passage_entry(h, passages[i], stance, confidence, weight, "review", result.judged_by))
    rows = await read_all(
        backend.stance,
        statements,
        chosen,
        passages,
        sims,
        results,
        hypotheses,
        records,
        settings.court.section_weights,
    )
    for row in rows:
        row["rank"] = rank
        if "passage" in row:
            row["passage"] += ADDED_PASSAGES
    return entries, rows
