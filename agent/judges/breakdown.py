"""Each reader's own probabilities behind a composed judge, for the verdict model (agent/verdict/).

The offline judge is a composition (structure reader over a direction vote over a mean of readers, agent.judges):
its one probability row per pair averages away where the readers disagree, and their disagreement is what the
verdict model learns to trust or discount. `leaf_readers` walks the composition to the readers that hold models or
cues; `reader_rows` asks each of them for the same pairs (the cross-encoders keep their recent pairs, so a court's
pairs are read once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agent.interfaces import StanceJudge
from agent.records import STANCE_LABELS as LABELS


def leaf_readers(judge: Any) -> list[StanceJudge]:
    """The readers a composed judge averages or votes with, each once, in the order the composition names them; a
    judge that composes nothing is its own only reader."""
    found: list[StanceJudge] = []

    def walk(node: Any) -> None:
        parts = [*(getattr(node, "judges", None) or [])]
        for attribute in ("base", "direction"):
            part = getattr(node, attribute, None)
            if part is not None and hasattr(part, "judge"):
                parts.append(part)
        if not parts:
            if all(node is not seen for seen in found):
                found.append(node)
            return
        for part in parts:
            walk(part)

    walk(judge)
    return found


def _carried(judge: Any, attribute: str) -> list[StanceJudge]:
    """The readers a judge's wrappers carry under `attribute`, outermost first."""
    found: list[StanceJudge] = []
    node = judge
    while node is not None:
        if getattr(node, attribute, None) is not None:
            found.append(getattr(node, attribute))
        node = getattr(node, "base", None)
    return found


def record_readers(judge: Any) -> list[StanceJudge]:
    """The readers a judge carries for whole records only (the evidence reader, agent/judges/evidence.py): they read
    the court's `record` rows, never single sentences."""
    return _carried(judge, "evidence")


def decider_readers(judge: Any) -> list[StanceJudge]:
    """The readers a judge carries for the sentences a verdict rests on only (the MPNet decider,
    agent/judges/decider.py): they read the cascade's rows (agent/verdict/features.py `cascade_rows`)."""
    return _carried(judge, "decider")


async def reader_rows(judge: Any, pairs: list[tuple[str, str]], records: bool = False) -> dict[str, np.ndarray]:
    """Each leaf reader's probabilities [n, 3] in LABELS order, keyed by reader name (a name met twice gets '#2');
    with `records`, the record readers' too (the pairs are a statement against a record's findings)."""
    rows: dict[str, np.ndarray] = {}
    if not pairs:
        return rows
    for reader in leaf_readers(judge) + (record_readers(judge) if records else []):
        results = await reader.judge(pairs)
        name = str(getattr(reader, "name", type(reader).__name__))
        key, n = name, 2
        while key in rows:
            key, n = f"{name}#{n}", n + 1
        rows[key] = np.asarray(
            [[r.probabilities.get(label, 0.0) for label in LABELS] for r in results], dtype=np.float32
        )
    return rows
