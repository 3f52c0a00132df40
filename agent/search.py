"""The search service: the one way the graph reaches its literature sources.

    search = SearchService(backend, settings, usage=state.get("usage"), meter=meter)
    found = await search.queries(queries, limit=settings.retrieval.results_per_query, round_=2)  # -> Found
    found = await search.neighbours(seeds, round_=2)                                           # citation hop
    update = pool_additions(pool, found.records)                                               # the pool update

Written once here: how many queries the source-call budget still allows, the academic-then-web routing with
the run's Brave budget, the citation-hop gate and how many neighbours a record keeps, provenance tagging
(search, claim_check, citation_hop), and how found records join the pool by work identity (DOI, arXiv id,
S2 / OpenAlex id, title). `retrieve`, `citation_hop` and `verify_claims` search through it; `verify_claims` and
`target_claims` turn a claim into queries with `claim_queries`. Every call is metered; a source failing beyond
its retries is reported and the others carry on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel

from agent.budget import source_calls_left
from agent.config import Context
from agent.english.questions import contrary
from agent.errors import SourceError
from agent.interfaces import HopFilter, LiteratureSource
from agent.literature import Provenance, Query, Record
from agent.metering import Meter
from agent.records import Usage


def claim_queries(claim: str) -> list[Query]:
    """A claim's literal query and its falsifying rewrite (seed 004)."""
    return [Query(text=claim, intent="claim_literal"), Query(text=contrary(claim), intent="claim_negation")]


SOURCE_LABELS = {
    "arxiv": "arXiv",
    "semantic_scholar": "Semantic Scholar",
    "openalex": "OpenAlex",
    "crossref": "Crossref",
    "brave": "Brave",
    "pubchem": "PubChem",
}
"""How messages name the live sources."""


# --- one query: academic sources, then the web ----------------------------------------------------------


@dataclass
class WebBudget:
    """Brave searches left in this run (budget.brave_cap), counting those earlier nodes made."""

    cap: int
    used: int = 0

    def spend(self) -> bool:
        """Take one search from the budget; False when none is left."""
        if self.used >= self.cap:
            return False
        self.used += 1
        return True


class SourceFailure(BaseModel):
    """A source that failed beyond its retries, for the trace and Usage.source_failures."""

    source: str
    message: str
    unreachable: str | None = None  # why its host could not be connected to ('connection refused'), else None

    def __str__(self) -> str:
        return self.message


@dataclass
class SearchOutcome:
    """What one routed query returned (academic sources in their configured order, not de-duplicated)."""

    records: list[Record] = field(default_factory=list)
    failures: list[SourceFailure] = field(default_factory=list)
    web_used: bool = False


async def search_academic_then_web(
    sources: Sequence[LiteratureSource], web: LiteratureSource | None, query: str, *, limit: int, web_budget: WebBudget
) -> SearchOutcome:
    """Academic sources in parallel; the web source only when all of them came back empty (failed sources count
    as empty) and the budget allows. A SourceError is a reported failure; any other exception is a bug and raises."""
    outcome = SearchOutcome()
    results = await asyncio.gather(*(s.search(query, limit=limit) for s in sources), return_exceptions=True)
    for source, result in zip(sources, results):
        if isinstance(result, SourceError):
            outcome.failures.append(
                SourceFailure(source=source.name, message=str(result), unreachable=getattr(result, "unreachable", None))
            )
        elif isinstance(result, BaseException):
            raise result
        else:
            outcome.records.extend(result)
    if outcome.records or web is None or not web_budget.spend():
        return outcome
    outcome.web_used = True
    try:
        outcome.records.extend(await web.search(query, limit=limit))
    except SourceError as exc:
        outcome.failures.append(
            SourceFailure(source=web.name, message=str(exc), unreachable=getattr(exc, "unreachable", None))
        )
    return outcome


# --- the service ----------------------------------------------------------------------------------------


@dataclass
class Found:
    """Tagged records from a batch of calls, the failure messages, and the queries actually sent."""

    records: list[Record] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    sent: list[Query] = field(default_factory=list)
    unreachable: dict[str, str] = field(default_factory=dict)  # source -> why it could not be connected to
    answered: set[str] = field(default_factory=set)  # sources that answered at least one query (even with nothing)

    def no_network(self, sources: Sequence[LiteratureSource]) -> str | None:
        """'no network: arXiv, Crossref unreachable (connection refused)' when nothing was found and every source
        failed to connect on every query sent; None when any source answered (or nothing was sent)."""
        names = [s.name for s in sources]
        if self.records or not self.sent or not names or self.answered or any(n not in self.unreachable for n in names):
            return None
        reasons = ", ".join(dict.fromkeys(self.unreachable[n] for n in names))
        return f"no network: {', '.join(SOURCE_LABELS.get(n, n) for n in names)} unreachable ({reasons})"


class Sources(Protocol):
    """What the search service reads of a backend: its literature sources, and the web source searched after them."""

    sources: list[LiteratureSource]
    web: LiteratureSource | None


class SearchService:
    """A node's access to the backend's sources, inside the run's budgets, metered on the node's meter."""

    def __init__(self, backend: Sources, settings: Context, *, usage: Usage | None, meter: Meter):
        self.backend, self.settings, self.usage, self.meter = backend, settings, usage, meter

    async def queries(self, queries: list[Query], *, limit: int, round_: int, use_web: bool = True) -> Found:
        """Send as many of `queries` as the source-call budget still allows to every source (the web source for
        queries every academic source missed, when `use_web`); records are tagged with the query that found them."""
        sources = self.backend.sources
        left = source_calls_left(self.usage, self.settings) - self.meter.usage.source_calls
        sendable = queries[: max(0, left) // max(1, len(sources))]
        web = self.backend.web if use_web else None
        budget = WebBudget(cap=self.settings.budget.brave_cap, used=self._calls_to(web.name) if web is not None else 0)
        outcomes = await asyncio.gather(
            *(search_academic_then_web(sources, web, q.text, limit=limit, web_budget=budget) for q in sendable)
        )
        found = Found(sent=sendable)
        for query, outcome in zip(sendable, outcomes, strict=True):
            failed = {f.source for f in outcome.failures}
            for source in sources:
                self.meter.source_call(source.name, ok=source.name not in failed)
            if outcome.web_used and web is not None:
                self.meter.source_call(web.name, ok=web.name not in failed)
            found.failures += [f"{f.source}: {f.message}" for f in outcome.failures]
            found.unreachable.update(
                {
                    f.source: f.unreachable
                    for f in outcome.failures
                    if f.unreachable and f.source not in found.unreachable
                }
            )
            found.answered.update(source.name for source in sources if source.name not in failed)
            via = "claim_check" if query.intent.startswith("claim") else "search"
            found.records += [
                _tagged(
                    r,
                    Provenance(
                        query=query.text, round=round_, hypothesis_id=query.hypothesis_id, via=via, source=r.source
                    ),
                )
                for r in outcome.records
            ]
        return found

    @property
    def citation_sources(self) -> list[LiteratureSource]:
        """The backend's sources that have a citation graph."""
        return [s for s in self.backend.sources if s.supports_citations]

    def hop_gate(self) -> HopFilter:
        """The citation-hop gate from the retrieval settings (seed 000's age and citation rules)."""
        r = self.settings.retrieval
        return HopFilter(
            min_year=r.citation_min_year,
            old_year=r.citation_old_year,
            old_min_citations=r.citation_old_min_citations,
            keep_unknown_year=r.citation_keep_unknown_year,
        )

    async def neighbours(self, seeds: list[Record], *, round_: int) -> Found:
        """References and citing papers of each seed from every citation source, through the hop gate, at most
        `citation_hop_per_record` per seed and source, each tagged once as found through that seed."""
        per_record, gate = self.settings.retrieval.citation_hop_per_record, self.hop_gate()
        calls = [(source, seed) for seed in seeds for source in self.citation_sources]

        async def expand(source: LiteratureSource, seed: Record) -> tuple[list[Record], str | None]:
            try:
                linked = await source.neighbours(seed, limit=per_record * 4, gate=gate)
            except SourceError as exc:
                self.meter.source_call(source.name, ok=False)
                return [], str(exc)
            self.meter.source_call(source.name)
            return linked, None

        found = Found()
        for (source, seed), (linked, error) in zip(
            calls, await asyncio.gather(*(expand(s, r) for s, r in calls)), strict=True
        ):
            if error:
                found.failures.append(error)
            tag = Provenance(query=f"citations of {seed.id}", round=round_, via="citation_hop", source=source.name)
            found.records += [_tagged(r, tag) for r in linked[:per_record]]
        return found

    def _calls_to(self, name: str) -> int:
        """Calls to one source in this run so far: earlier nodes' and this node's."""
        return (self.usage.calls_by_source.get(name, 0) if self.usage else 0) + self.meter.usage.calls_by_source.get(
            name, 0
        )


def _tagged(record: Record, tag: Provenance) -> Record:
    """The record with `tag` added; the scores its source put on it for this hit (a provenance entry without a
    query) move into the tag, so each query's provenance says why the record came back."""
    last = record.provenance[-1] if record.provenance else None
    if last is not None and last.scores and not last.query:
        return record.model_copy(
            update={"provenance": [*record.provenance[:-1], tag.model_copy(update={"scores": last.scores})]}
        )
    return record.model_copy(update={"provenance": [*record.provenance, tag]})


# --- joining the pool -----------------------------------------------------------------------------------


def pool_additions(pool: Mapping[str, Record], incoming: list[Record]) -> dict[str, Record]:
    """The pool update for `incoming`: each record keyed by the pool id of its work (DOI, arXiv id without
    version, S2 / OpenAlex id, title), copies of one work within the batch merged. Merging with the records
    already in the pool is the state's reducer's job (agent.state.merge_records), done once when the update lands.

    A new work whose id is taken by another work is keyed '<source>:<id>'.
    """
    key_to_id: dict[str, str] = {}
    for pool_id, record in pool.items():
        for key in record.dedupe_keys():
            key_to_id.setdefault(key, pool_id)
    updates: dict[str, Record] = {}
    for record in incoming:
        pid = next((key_to_id[k] for k in record.dedupe_keys() if k in key_to_id), None)
        if pid is None:
            pid = record.id if record.id not in pool and record.id not in updates else f"{record.source}:{record.id}"
            updates[pid] = record.model_copy(update={"id": pid}) if pid != record.id else record
        else:
            updates[pid] = updates[pid].merge(record) if pid in updates else record
        for key in record.dedupe_keys():
            key_to_id.setdefault(key, pid)
    return updates
