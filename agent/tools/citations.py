"""Citation-hop rules shared by every source that walks a citation graph (and by the offline backend).

One function holds the seeds' filters so every source applies the same age/citation gate: records older
than `citation_min_year` are dropped; records older than `citation_old_year` must have at least
`citation_old_min_citations` citations. A record whose year (or, when old, citation count) is unknown
cannot be shown to pass the gate and is dropped unless `keep_unknown_year` is set.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from agent.config import Context
from agent.records import Provenance, Record


class HopFilter(BaseModel):
    """The citation-hop gate, built from a Context or given directly."""

    min_year: int = Field(default=2000, description="Records older than this are dropped.")
    old_year: int = Field(default=2010, description="Records older than this need old_min_citations.")
    old_min_citations: int = Field(default=50, description="Citations an old record needs to be kept.")
    keep_unknown_year: bool = Field(default=False, description="Keep records whose year is unknown.")

    @classmethod
    def from_context(cls, settings: Context) -> HopFilter:
        return cls(
            min_year=settings.citation_min_year,
            old_year=settings.citation_old_year,
            old_min_citations=settings.citation_old_min_citations,
        )

    def keeps(self, record: Record) -> bool:
        if record.year is None:
            return self.keep_unknown_year
        if record.year < self.min_year:
            return False
        if record.year < self.old_year:
            return (record.citation_count or 0) >= self.old_min_citations
        return True


def filter_hop_records(records: Iterable[Record], settings: Context | HopFilter) -> list[Record]:
    """The records that pass the citation-hop gate, in their original order."""
    gate = settings if isinstance(settings, HopFilter) else HopFilter.from_context(settings)
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
