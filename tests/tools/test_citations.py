"""The shared citation-hop gate and neighbour selection."""

from __future__ import annotations

from agent.interfaces import HopFilter
from agent.literature import Record
from agent.tools.sources.citations import filter_hop_records, select_neighbours


def _rec(rid: str, year: int | None, cites: int | None = None, **extra) -> Record:
    return Record(
        id=rid, source="test", title=f"A sufficiently long title {rid}", year=year, citation_count=cites, **extra
    )


def test_filter_uses_the_context_thresholds():
    records = [
        _rec("new", 2020),
        _rec("old-famous", 2005, 50),
        _rec("old-obscure", 2005, 49),
        _rec("ancient", 1999, 10_000),
        _rec("old-unknown-cites", 2008, None),
        _rec("no-year", None, 500),
        _rec("boundary", 2010, 0),
    ]
    kept = filter_hop_records(records, HopFilter())
    assert [r.id for r in kept] == ["new", "old-famous", "boundary"]
    custom = HopFilter(min_year=1990, old_year=2000, old_min_citations=5)
    assert [r.id for r in filter_hop_records(records, custom)] == [
        "new",
        "old-famous",
        "old-obscure",
        "ancient",
        "old-unknown-cites",
        "boundary",
    ]
    assert [r.id for r in filter_hop_records(records, HopFilter(keep_unknown_year=True))][-2:] == [
        "no-year",
        "boundary",
    ]


def test_select_neighbours_interleaves_and_dedupes():
    seed = _rec("seed", 2020, doi="10.1/seed")
    refs = [
        _rec("r1", 2019, doi="10.1/shared"),
        _rec("r2", 2018),
        _rec("self", 2020, doi="10.1/SEED"),
        _rec("r3", 1990, 999),
    ]
    cites = [_rec("c1", 2021, doi="10.1/shared"), _rec("c2", 2022), _rec("c3", 2023)]
    got = select_neighbours(seed, [refs, cites], limit=4, gate=HopFilter())
    assert [r.id for r in got] == ["r1", "r2", "c2", "c3"]  # c1 duplicates r1, 'self' is the seed, r3 too old
    assert all(r.provenance == [] for r in got)  # tagging is the search service's, once
    assert [r.id for r in select_neighbours(seed, [refs, cites], limit=2, gate=None)] == ["r1", "r2"]


def test_a_local_record_of_unknown_year_passes_the_gate_a_live_one_only_when_asked():
    local, live = _rec("local", None, source_type="local"), _rec("live", None)
    assert [r.id for r in filter_hop_records([local, live], HopFilter())] == ["local"]
    assert [r.id for r in filter_hop_records([local, live], HopFilter(keep_unknown_year=True))] == ["local", "live"]
