"""Cross-source triangulation: how independently a claim is supported, not how often it is repeated.

score = log(1 + weighted_n) * (1 - HHI)   (seed 002)

- weighted_n sums an authority weight per supporting source (seed 002's mitigation: a preprint counts 0.8,
  a web page 0.6), so three blog posts do not outweigh two indexed papers;
- HHI is the Herfindahl-Hirschman index of the source types' (weighted) shares: 1 when every source is
  of one type (score 0: no triangulation), lower as support spreads across types.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from agent.literature import Record

AUTHORITY_WEIGHTS: dict[str, float] = {
    "preprint": 0.8,
    "index": 1.0,
    "publisher": 1.0,
    "web": 0.6,
    "local": 1.0,
}

# Source names (Record.source) and common aliases mapped onto the source types above.
SOURCE_TYPE_ALIASES: dict[str, str] = {
    "arxiv": "preprint",
    "biorxiv": "preprint",
    "medrxiv": "preprint",
    "semantic_scholar": "index",
    "s2": "index",
    "openalex": "index",
    "europe_pmc": "index",
    "pubmed": "index",
    "crossref": "publisher",
    "brave": "web",
}

UNKNOWN_WEIGHT = 0.6  # an unrecognised source type is treated like the web: least authority


def source_type(name: str) -> str:
    """Canonical source type of a source name or type ('arxiv' -> 'preprint')."""
    key = (name or "").strip().lower()
    return SOURCE_TYPE_ALIASES.get(key, key)


def authority_weight(name: str) -> float:
    return AUTHORITY_WEIGHTS.get(source_type(name), UNKNOWN_WEIGHT)


def herfindahl(shares: Iterable[float]) -> float:
    """HHI of non-negative masses (normalised here): sum of squared shares, 1.0 for a single holder."""
    values = [max(0.0, float(s)) for s in shares]
    total = sum(values)
    if total <= 0:
        return 1.0
    return sum((v / total) ** 2 for v in values)


def triangulation_score(source_types: Sequence[str]) -> float:
    """log(1 + weighted source count) * (1 - HHI over source types); one entry per independent source."""
    if not source_types:
        return 0.0
    mass: dict[str, float] = defaultdict(float)
    for name in source_types:
        mass[source_type(name)] += authority_weight(name)
    weighted_n = sum(mass.values())
    return math.log1p(weighted_n) * (1.0 - herfindahl(mass.values()))


def record_triangulation(records: Iterable[Record]) -> float:
    """Triangulation over records, counting a work once even when several sources returned it."""
    seen: set[str] = set()
    types: list[str] = []
    for record in records:
        keys = record.dedupe_keys()
        if seen.intersection(keys):
            continue
        seen.update(keys)
        types.append(record.source_type or record.source)
    return triangulation_score(types)
