"""Citation-hop selection shared by every source that walks a citation graph: the gate (agent.interfaces.HopFilter,
passed with each `neighbours` call) applied before the lists are cut, reference and citing lists interleaved."""

from __future__ import annotations

from collections.abc import Iterable

from agent.interfaces import HopFilter
from agent.records import Provenance, Record


def filter_hop_records(records: Iterable[Record], gate: HopFilter) -> list[Record]:
    """The records that pass the citation-hop gate, in their original order."""
    return [r for r in records if gate.keeps(r)]


def mark_hop(records: list[Record], source: str, seed: Record) -> list[Record]:
    """Tag records found through `seed`'s references or citations with via='citation_hop' provenance."""
    query = f"{seed.source}:{seed.id}"
    for record in records:
        record.provenance.append(Provenance(query=query, via="citation_hop", source=source))
    return records


def select_neighbours(
    seed: Record, source: str, groups: Iterable[list[Record]], *, limit: int, gate: HopFilter | None
) -> list[Record]:
    """Filter, tag and interleave reference and citing lists, dropping duplicates and the seed itself.

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
    return mark_hop(chosen, source, seed)
