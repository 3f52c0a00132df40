"""Semantic Scholar Academic Graph client: search, batch details, references and citations.

With SEMANTIC_SCHOLAR_API_KEY the key gets 1 request/s (sent as `x-api-key`); without one, calls share a
global pool where 429s are the norm, so the keyless policy retries harder and the final error says to set
the key. Nested papers in /references and /citations often have their abstract elided, so `neighbours`
fills missing abstracts through one /paper/batch call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from agent.errors import SourceError
from agent.interfaces import HopFilter
from agent.literature import Provenance, Record
from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, env_secret
from agent.tools.http.parsing import collapse_ws, dig, first_str, items_of, non_empty_url, unique, year_of
from agent.tools.sources.citations import select_neighbours

BASE_URL = "https://api.semanticscholar.org/graph/v1/"
KEY_ENV = "SEMANTIC_SCHOLAR_API_KEY"
KEYED_POLICY = HostPolicy(
    min_interval_s=1.05, max_concurrency=1, max_attempts=4, backoff_base_s=2.0, backoff_cap_s=30.0
)
KEYLESS_POLICY = HostPolicy(
    min_interval_s=1.0, max_concurrency=1, max_attempts=5, backoff_base_s=2.0, backoff_cap_s=30.0
)

PAPER_FIELDS = (
    "paperId,externalIds,url,title,abstract,venue,publicationVenue,year,publicationDate,journal,"
    "authors,citationCount,openAccessPdf,fieldsOfStudy"
)
EDGE_FIELDS = "paperId,externalIds,url,title,abstract,venue,year,authors,citationCount,openAccessPdf"
SEARCH_MAX = 100
BATCH_MAX = 500
EDGE_PAGE_MAX = 1000


def paper_to_record(paper: Any, *, query: str | None = None) -> Record | None:
    """Map an S2 Paper object to a Record; None for null entries and unresolved papers (paperId null).

    `query` (for search results) becomes a 'search' provenance; lookups and graph edges carry none here.
    """
    if not isinstance(paper, dict) or not paper.get("paperId"):
        return None
    ext = paper.get("externalIds") or {}
    authors = [a for a in paper.get("authors") or [] if isinstance(a, dict)]
    pmid = ext.get("PubMed")
    return Record(
        id=paper["paperId"],
        source="semantic_scholar",
        s2_id=paper["paperId"],
        title=collapse_ws(paper.get("title")),
        abstract=collapse_ws(paper.get("abstract")),
        year=year_of(paper.get("year")) or year_of(paper.get("publicationDate")),
        authors=unique(a.get("name") for a in authors),
        institutions=unique(aff for a in authors for aff in a.get("affiliations") or []),
        venue=first_str([paper.get("venue"), dig(paper, "journal", "name"), dig(paper, "publicationVenue", "name")])
        or None,
        doi=ext.get("DOI"),
        arxiv_id=ext.get("ArXiv"),
        pmid=str(pmid) if pmid else None,
        citation_count=paper.get("citationCount"),
        oa_pdf_url=non_empty_url(dig(paper, "openAccessPdf", "url")),
        url=paper.get("url"),
        source_type="index",
        provenance=[Provenance(query=query, source="semantic_scholar")] if query is not None else [],
    )


def s2_paper_id(record: Record) -> str | None:
    """An id S2 accepts for `record`: its paperId, else DOI:/ARXIV:/PMID: forms; None when it has none."""
    if record.s2_id:
        return record.s2_id
    if record.alt_ids.get("semantic_scholar"):
        return record.alt_ids["semantic_scholar"]
    if record.doi:
        return f"DOI:{record.doi}"
    if record.arxiv_id:
        return f"ARXIV:{record.arxiv_id}"
    if record.pmid:
        return f"PMID:{record.pmid}"
    return None


def _clean_query(text: str) -> str:
    # S2 relevance search has no syntax, and hyphenated terms match nothing: use spaces instead.
    return collapse_ws(text.replace("-", " "))


def _by_citations(records: list[Record]) -> list[Record]:
    return sorted(records, key=lambda r: r.citation_count or 0, reverse=True)


class SemanticScholarClient(ApiClient):
    """LiteratureSource over the S2 Graph API (citation graph supported)."""

    name = "semantic_scholar"
    supports_citations = True

    def __init__(
        self,
        *,
        api_key: str | None = None,
        options: HttpOptions | None = None,
        hop_pool: int = 100,
        base_url: str = BASE_URL,
    ):
        key = env_secret(api_key, KEY_ENV, "S2_API_KEY")
        self.has_key = key is not None
        self.http = HttpBase(
            self.name,
            base_url,
            policy=KEYED_POLICY if key else KEYLESS_POLICY,
            options=options,
            headers={"x-api-key": key.get_secret_value()} if key else None,
            secrets=[key],
            rate_limit_hint=None if key else f"set {KEY_ENV} for a dedicated rate limit",
        )
        self.hop_pool = hop_pool

    async def search(self, query: str, *, limit: int) -> list[Record]:
        """Relevance search (one page, limit ≤ 100)."""
        params = {
            "query": _clean_query(query),
            "fields": PAPER_FIELDS,
            "offset": 0,
            "limit": max(1, min(limit, SEARCH_MAX)),
        }
        data = await self.http.get_json("paper/search", params=params, not_found_ok=False)
        return self._records(items_of(self.name, data, "data"), query)[:limit]

    async def batch(self, paper_ids: Sequence[str]) -> list[Record | None]:
        """Details for many ids via POST /paper/batch, aligned with the input (None for unknown ids)."""
        results: list[Record | None] = []
        for start in range(0, len(paper_ids), BATCH_MAX):
            chunk = list(paper_ids[start : start + BATCH_MAX])
            data = await self.http.post_json("paper/batch", {"ids": chunk}, params={"fields": PAPER_FIELDS})
            if not isinstance(data, list) or len(data) != len(chunk):
                raise SourceError(self.name, "unexpected /paper/batch response (not a list aligned with the ids)")
            results.extend(paper_to_record(p) for p in data)
        return results

    async def references(self, paper_id: str, *, limit: int = 100) -> list[Record]:
        """Papers `paper_id` cites (unresolved references without a paperId are skipped)."""
        return await self._edges(paper_id, "references", "citedPaper", limit)

    async def citations(self, paper_id: str, *, limit: int = 100) -> list[Record]:
        """Papers citing `paper_id`."""
        return await self._edges(paper_id, "citations", "citingPaper", limit)

    async def neighbours(self, record: Record, *, limit: int, gate: HopFilter | None = None) -> list[Record]:
        """References and citing papers through the hop filter, most-cited first, abstracts filled by batch."""
        paper_id = s2_paper_id(record)
        if paper_id is None or limit <= 0:
            return []
        pool = min(EDGE_PAGE_MAX, max(self.hop_pool, limit))
        refs, cites = await asyncio.gather(self.references(paper_id, limit=pool), self.citations(paper_id, limit=pool))
        chosen = select_neighbours(record, [_by_citations(refs), _by_citations(cites)], limit=limit, gate=gate)
        missing = [r for r in chosen if not r.abstract and r.s2_id]
        if missing:
            filled = await self.batch([r.s2_id for r in missing if r.s2_id])
            for record_, full in zip(missing, filled):
                if full is not None and full.abstract:
                    record_.abstract, record_.sentences = full.abstract, full.sentences
        return chosen

    async def _edges(self, paper_id: str, kind: str, key: str, limit: int) -> list[Record]:
        records: list[Record] = []
        offset: int | None = 0
        while offset is not None and len(records) < limit:
            params = {
                "fields": EDGE_FIELDS,
                "offset": offset,
                "limit": max(1, min(limit - len(records), EDGE_PAGE_MAX)),
            }
            data = await self.http.get_json(f"paper/{quote(paper_id, safe='/:')}/{kind}", params=params)
            if data is None:
                return records
            items = items_of(self.name, data, "data")
            records.extend(self._records([item.get(key) for item in items if isinstance(item, dict)], None))
            offset = data.get("next") if isinstance(data.get("next"), int) and items else None
        return records[:limit]

    @staticmethod
    def _records(papers: list[Any], query: str | None) -> list[Record]:
        return [r for r in (paper_to_record(p, query=query) for p in papers) if r is not None]
