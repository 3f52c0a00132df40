"""Citation-hop selection shared by every source that walks a citation graph: the gate (agent.interfaces.HopFilter,
passed with each `neighbours` call) applied before the lists are cut, reference and citing lists interleaved."""

from __future__ import annotations

from collections.abc import Iterable

from agent.interfaces import HopFilter
from agent.literature import Record


def filter_hop_records(records: Iterable[Record], gate: HopFilter) -> list[Record]:
    """The records that pass the citation-hop gate, in their original order."""
    return [r for r in records if gate.keeps(r)]


def select_neighbours(
    seed: Record, groups: Iterable[list[Record]], *, limit: int, gate: HopFilter | None
) -> list[Record]:
    """Filter and interleave reference and citing lists, dropping duplicates and the seed itself (the search
    service tags what the hop found).

    Interleaving keeps both directions represented when `limit` is small.
    """
    seed_keys = set(seed.dedupe_keys())
    lists = [filter_hop_records(g, gate) if gate else list(g) for g in groups]
    seen: set[str] = set()
    chosen: list[Record] = []
    for i in range(max((len(g) for g in lists), default=0)):
        for group in lists:
            if i >= len(group) or len(chosen) >= limit:
                continue
            record = group[i]
            keys = set(record.dedupe_keys())
            if keys & seed_keys or keys & seen:
                continue
            seen |= keys
            chosen.append(record)
    return chosen
